#!/usr/bin/env bash
# Configures (Release by default) and builds into build/ at the repository root.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE="${METAROCE_BUILD_TYPE:-Release}" >/dev/null
cmake --build "$root/build" -j "$(nproc)"
