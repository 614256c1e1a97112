#!/usr/bin/env bash
# The fabric demo (the main job before the transports existed): builds, runs the fabric demo on the 64-host 4-plane Clos and
# plots per-plane, per-tier utilisation into results/fabric-demo/.
# Debian's python3 (where python3-matplotlib lives), not whatever python3 is first on PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/build.sh"
out="$root/results/fabric-demo"
mkdir -p "$out"
"$root/build/examples/fabric-demo" --topology="$root/topologies/clos-64h-4p.json" --out="$out" "$@"
/usr/bin/python3 "$root/analysis/plot_fabric_demo.py" "$out"
