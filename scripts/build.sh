#!/usr/bin/env bash
# Configures (once) and builds vprof in build/ (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
cuda="${VPROF_CUDA_TOOLKIT:-/usr/local/cuda}"
if [[ ! -f "$dir/build.ninja" ]]; then
  meson setup "$dir" -Dcudatoolkit="$cuda" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
