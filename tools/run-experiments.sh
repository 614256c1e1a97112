#!/usr/bin/env bash
# Runs every shipped experiment (experiments/*.json, experiments/bench/*.json)
# and every sweep (experiments/*.sweep.json) with the runner of a checkout,
# into OUT (one folder per experiment, one per sweep), so that two builds'
# results can be compared with tools/compare-results.py.
# Usage: tools/run-experiments.sh OUT [CHECKOUT]   (CHECKOUT: default this one)
set -euo pipefail
out=$1
tree=$(cd "${2:-$(dirname "$0")/..}" && pwd)
runner=$tree/build/examples/metaroce-run
mkdir -p "$out"
cd "$tree"
for sweep in experiments/*.sweep.json; do
  name=$(basename "$sweep" .sweep.json)
  /usr/bin/python3 analysis/sweep.py "$sweep" --out "$out/$name" --runner "$runner" >/dev/null
done
for e in experiments/*.json experiments/bench/*.json; do
  case $e in *.sweep.json) continue ;; esac
  "$runner" "$e" --quiet --out "$out/exp-$(basename "$e" .json)" >/dev/null
done
echo "results in $out"
