#!/usr/bin/env bash
# Configures (once) and builds vprof in build/ (or $1). Quiet when the build
# succeeds; when it fails, the end of ninja's output (the failing command and
# its errors) goes to standard error.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
cuda="${VPROF_CUDA_TOOLKIT:-/usr/local/cuda}"
if [[ ! -f "$dir/build.ninja" ]]; then
  meson setup "$dir" -Dcudatoolkit="$cuda" "$@" >/dev/null
fi
if ! ninja -C "$dir" >"$dir/ninja-output.log" 2>&1; then
  echo "build.sh: building $dir failed; the end of $dir/ninja-output.log:" >&2
  grep -E "FAILED|error|Error" -A6 "$dir/ninja-output.log" | tail -60 >&2
  exit 1
fi
