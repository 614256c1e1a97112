#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang into build-fuzz/ and runs each on
# its committed corpus (test/fuzz/corpus/<target>) with a fixed seed and a
# fixed number of runs: a crash, a sanitizer report, a timeout or a leak fails
# the script. CI runs it short; for a long campaign:
#   tools/fuzz.sh 0 -max_total_time=3600        (0 runs = no limit)
# New interesting inputs found go to build-fuzz/corpus-<target>/, never into
# the committed corpus; copy the ones worth keeping by hand.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh" clang libclang-rt-14-dev
runs="${1:-20000}"
shift || true
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF -DMETAROCE_FUZZERS=ON >/dev/null
cmake --build "$root/build-fuzz" --target fuzz-headers fuzz-json -j "$(nproc)" >/dev/null
for target in fuzz-headers fuzz-json; do
  work="$root/build-fuzz/corpus-$target"
  mkdir -p "$work"
  echo "metaroce: $target, $runs runs, seed 1"
  "$root/build-fuzz/test/fuzz/$target" -seed=1 -runs="$runs" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 "$@" "$work" "$root/test/fuzz/corpus/$target"
done
