#!/usr/bin/env bash
# Configures (once) and builds vprof in build/ (or DIR). Quiet when the build
# succeeds; when it fails, the end of ninja's output (the failing command and
# its errors) goes to standard error.
#   usage: scripts/build.sh [DIR [MESON_SETUP_ARG...] [--tests MESON_TEST_ARG... |
#                                                     --targets TARGET...]]
# With --tests, only what the tests `meson test MESON_TEST_ARG...` selects need
# is built (scripts/test_targets.py): a sanitizer tree that runs one suite
# does not build the rest. With --targets, only the ninja targets named, paths
# relative to DIR (`ninja -C DIR -t targets all` lists them), e.g.
# reporter/vprof interpose/libvprof.so: the demo builds only what it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
setup_args=()
while (($# > 0)) && [[ "$1" != --tests && "$1" != --targets ]]; do
  setup_args+=("$1")
  shift
done
cuda="${VPROF_CUDA_TOOLKIT:-/usr/local/cuda}"
if [[ ! -f "$dir/build.ninja" ]]; then
  meson setup "$dir" -Dcudatoolkit="$cuda" "${setup_args[@]}" >/dev/null
fi
targets=()
if (($# > 0)) && [[ "$1" == --tests ]]; then
  shift
  # An existing tree reads the meson.build files again first (ninja's own
  # regeneration rule), so that the tests and targets it lists are the current ones,
  # not those of its last build (a moved or renamed test).
  ninja -C "$dir" build.ninja >"$dir/ninja-output.log" 2>&1 || {
    echo "build.sh: configuring $dir again failed; the end of $dir/ninja-output.log:" >&2
    tail -30 "$dir/ninja-output.log" >&2
    exit 1
  }
  listed=$(scripts/test_targets.py "$dir" "$@")
  mapfile -t targets <<<"$listed"
elif (($# > 0)); then
  shift  # --targets
  if (($# == 0)); then
    echo "build.sh: --targets needs at least one target (ninja -C $dir -t targets all)" >&2
    exit 2
  fi
  targets=("$@")
fi
if ! ninja -C "$dir" "${targets[@]}" >"$dir/ninja-output.log" 2>&1; then
  echo "build.sh: building $dir failed; the end of $dir/ninja-output.log:" >&2
  grep -E "FAILED|error|Error" -A6 "$dir/ninja-output.log" | tail -60 >&2
  exit 1
fi
