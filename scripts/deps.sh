#!/usr/bin/env bash
# Installs what optrace needs to build and test, from Debian's packages
# (idempotent: only missing packages are installed). Needs root.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libyaml-dev libcli11-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev python3 python3-yaml git dpkg-dev xz-utils)
packages+=(zlib1g-dev)    # profile reads gzipped torch.profiler exports
packages+=(libjemalloc-dev)  # the optrace executable's malloc (CMakeLists.txt)
packages+=(python3-torch)  # verify's tests run Debian's torch 1.13 (CPU) against the 1.13.1 tree
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
