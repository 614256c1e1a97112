#!/usr/bin/env bash
# Checks the Debian packages this project needs and installs the missing ones
# when running as root; otherwise prints the apt-get line and fails.
# Usage: tools/deps.sh [extra-package ...]
set -euo pipefail
# ns3 ships the helper executables that libns3-dev's exported CMake targets name;
# without it find_package(ns3) fails on a missing raw-sock-creator.
needed=(cmake g++ make libns3-dev ns3 libgsl-dev libsqlite3-dev libxml2-dev
        libboost-graph-dev nlohmann-json3-dev catch2 python3 python3-matplotlib
        python3-numpy python3-pytest tshark "$@")
missing=()
for p in "${needed[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "metaroce: missing Debian packages: ${missing[*]}" >&2
  echo "metaroce: install them as root with:" >&2
  echo "  apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "metaroce: installing missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "metaroce: packages installed"
