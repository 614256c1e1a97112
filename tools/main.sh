#!/usr/bin/env bash
# The main job: builds, then runs the fabric demo on the 64-host 4-plane Clos.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/build.sh"
mkdir -p "$root/results/fabric-demo"
"$root/build/examples/fabric-demo" --topology="$root/topologies/clos-64h-4p.json" \
  --out="$root/results/fabric-demo" "$@"
