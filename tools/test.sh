#!/usr/bin/env bash
# Builds, then runs every test through ctest (C++ Catch2 cases and the
# analysis scripts' checks). Exit code is ctest's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" "$@"
