#!/usr/bin/env bash
# Checks the Debian packages this project needs and installs the missing ones
# when running as root; otherwise prints the apt-get line and fails.
# Usage: tools/deps.sh [extra-package ...] [--optional package ...]
# Packages after --optional are installed too when root, but never make the
# script fail: without root they are only named (the tests that need them
# skip), and as root a failed install of them is a warning.
set -euo pipefail
# ns3 ships the helper executables that libns3-dev's exported CMake targets name;
# without it find_package(ns3) fails on a missing raw-sock-creator.
needed=(cmake g++ make libns3-dev ns3 libgsl-dev libsqlite3-dev libxml2-dev
        libboost-graph-dev nlohmann-json3-dev catch2 python3 python3-matplotlib
        python3-numpy python3-pytest tshark)
optional=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--optional" ]; then
    shift
    optional+=("$@")
    break
  fi
  needed+=("$1")
  shift
done
missing_of() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}
mapfile -t missing < <(missing_of "${needed[@]}")
mapfile -t missing_opt < <(missing_of ${optional[@]+"${optional[@]}"})
[ ${#missing[@]} -eq 0 ] && [ ${#missing_opt[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  if [ ${#missing_opt[@]} -gt 0 ]; then
    echo "metaroce: optional Debian packages missing (the tests needing them skip):" \
         "${missing_opt[*]}" >&2
  fi
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "metaroce: missing Debian packages: ${missing[*]}" >&2
  echo "metaroce: install them as root with:" >&2
  echo "  apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
apt-get update -q >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
  echo "metaroce: installing missing Debian packages: ${missing[*]}"
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_opt[@]} -gt 0 ]; then
  echo "metaroce: installing optional Debian packages: ${missing_opt[*]}"
  # The Slurm test starts its own daemons on private ports and sockets; it
  # does not use (or need) the services Debian may enable for these packages.
  if ! apt-get install -y -q --no-install-recommends "${missing_opt[@]}" >/dev/null; then
    echo "metaroce: warning: could not install ${missing_opt[*]}; the tests needing them skip" >&2
  fi
fi
echo "metaroce: packages installed"
