#!/usr/bin/env bash
# Builds the test suite with ThreadSanitizer into build-tsan/ and runs the
# cases that use FabricSimulatorImpl's lanes ("[lanes]"): any data race
# between two lanes in this project's code fails the run (ns-3's own
# libraries are not instrumented). About 6 minutes of building on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh"
flags="-fsanitize=thread -fno-omit-frame-pointer -O1 -g"
cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$root/build-tsan" --target metaroce-tests -j "$(nproc)" >/dev/null
cd "$root/build-tsan/test"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
echo "metaroce: running the lanes' tests under ThreadSanitizer"
./metaroce-tests "[lanes]"
