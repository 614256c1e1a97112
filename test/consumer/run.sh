#!/usr/bin/env bash
# Installs the module from BUILD_DIR into a scratch prefix, builds the
# consumer project against it with find_package only, and runs it.
# Usage: run.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
build=$1
scratch=$2
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$here" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/metaroce-consumer"
