#!/usr/bin/env bash
# The main job: builds, runs the loss sweep (published claim 1: normalized
# goodput vs random loss, MetaRoCE vs RoCEv2 go-back-N vs selective repeat,
# on the 64-host 4-plane Clos; 21 runs on all cores, about a minute on 2
# cores), prints the table and plots results/loss-sweep/loss_sweep.png.
# The sweep is resumable: points already run are not run again.
# Debian's python3 (where python3-matplotlib lives), not whatever python3 is first on PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/build.sh"
out="$root/results/loss-sweep"
/usr/bin/python3 "$root/analysis/sweep.py" "$root/experiments/loss-sweep.sweep.json" --out "$out" "$@"
/usr/bin/python3 "$root/analysis/plot_loss_sweep.py" "$out"
