#!/usr/bin/env bash
# Configures (Release by default) and builds into build/ at the repository root.
# METAROCE_WERROR=ON makes every compiler warning an error (CI).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE="${METAROCE_BUILD_TYPE:-Release}" \
  -DMETAROCE_WERROR="${METAROCE_WERROR:-OFF}" >/dev/null
cmake --build "$root/build" -j "$(nproc)"
