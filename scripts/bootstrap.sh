#!/usr/bin/env bash
# Installs what building and testing vprof needs, from Debian packages, and
# does nothing when everything is already there. Safe to run again.
set -euo pipefail

packages=(g++ python3 pkg-config meson ninja-build protobuf-compiler libprotobuf-dev
          libspdlog-dev libfmt-dev catch2
          chromium fonts-dejavu-core   # the HTML report's screenshot test: headless Chromium
          clang libclang-rt-14-dev libfuzzer-14-dev)  # the fuzz targets: scripts/fuzz.sh

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi

# The CUDA toolkit is not a Debian package of the version vprof targets; only
# its headers are needed to build (nccl.h, cuda_runtime_api.h).
cuda="${VPROF_CUDA_TOOLKIT:-/usr/local/cuda}"
for h in nccl.h cuda_runtime_api.h; do
  if [[ ! -f "$cuda/include/$h" ]]; then
    echo "bootstrap: $cuda/include/$h is missing: install the CUDA toolkit with NCCL headers," \
         "or set VPROF_CUDA_TOOLKIT to a toolkit root that has them" >&2
    exit 1
  fi
done
