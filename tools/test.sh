#!/usr/bin/env bash
# Builds, then runs every test through ctest (C++ Catch2 cases and the
# analysis scripts' checks, the sweep driver's Slurm backend against a real
# single-node Slurm). Exit code is ctest's. As root it also installs Slurm and
# munge for that test; without them (or without root) it skips.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh" --optional slurm-wlm munge
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" "$@"
