#!/usr/bin/env bash
# Installs what building and testing vprof needs, from Debian packages, and
# does nothing when everything is already there. Safe to run again.
set -euo pipefail

packages=(g++ python3 pkg-config meson ninja-build protobuf-compiler libprotobuf-dev
          libspdlog-dev libfmt-dev catch2
          chromium fonts-dejavu-core   # the HTML report's screenshot test: headless Chromium
          clang libclang-rt-14-dev libfuzzer-14-dev   # the fuzz targets: scripts/fuzz.sh
          clang-format-14                              # the format check: tests/format
          lld)  # links the test programs (meson.build), the sanitizer trees all of theirs

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

# Node.js and npm: the HTML report inlines d3 from the npm registry, and its
# browser test drives Chromium with playwright-core. A machine whose Node.js
# came from elsewhere (with npm beside it) keeps it.
if ! command -v npm >/dev/null 2>&1; then
  echo "bootstrap: installing nodejs npm"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends nodejs npm
fi
# Exactly the versions package-lock.json pins, installed again only when it
# changed (the stamp is the lock file npm ci last installed).
web="$(cd "$(dirname "$0")/.." && pwd)/reporter/render/html/web"
if ! cmp -s "$web/package-lock.json" "$web/node_modules/.vprof-installed-lock" 2>/dev/null; then
  echo "bootstrap: npm ci in reporter/render/html/web"
  if ! (cd "$web" && npm ci --no-audit --no-fund --loglevel=error); then
    echo "bootstrap: npm ci in $web failed: the HTML report needs d3 from the npm registry" >&2
    exit 1
  fi
  cp "$web/package-lock.json" "$web/node_modules/.vprof-installed-lock"
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
