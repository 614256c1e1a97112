#!/usr/bin/env bash
# Applies ns-3's code style (.clang-format) to every C++ file of the project,
# or with --check lists the files that differ from it and fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then
  "$root/tools/deps.sh" clang-format
  fmt=$(command -v clang-format-14 || command -v clang-format)
fi
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then
      echo "metaroce: not in ns-3 style (run tools/format.sh): $f" >&2
      bad=1
    fi
  done
  exit $bad
fi
"$fmt" --style=file -i "${files[@]}"
