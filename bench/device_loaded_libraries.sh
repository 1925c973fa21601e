#!/usr/bin/env bash
# Roles from loaded libraries on real PyTorch: a Python process whose
# command line names no role ("python3 -c ...") loads a stand-in extension module from
# site-packages/vllm/_C.abi3.so, a path given in ROLE_LIB, not on the command line
# (tests/integration/role_extension.cc, carried as
# .device/librole_extension.so) and runs matmuls; a second loads nothing extra. Both run under
# `vprof run`; prints each one's role and rule from `vprof report --format json`, how many
# objects its trace lists and whether libtorch_cuda.so is among them, and the LoadedLibraries
# packets' share of the trace.
# Usage: bench/device_loaded_libraries.sh LIB VPROF EXTENSION (trace_dump from .device/)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
site=/tmp/role-site/lib/python3.12/site-packages
mkdir -p "$site/vllm" && cp "$3" "$site/vllm/_C.abi3.so"
work='import ctypes, os, torch
if os.environ.get("ROLE_LIB"): ctypes.CDLL(os.environ["ROLE_LIB"])
x = torch.randn(2048, 2048, device="cuda")
for _ in range(200): x = torch.tanh(x @ x)
torch.cuda.synchronize()'
for case in vllm plain; do
  dir=/tmp/role-$case
  rm -rf "$dir"
  lib_path=""
  [[ $case == vllm ]] && lib_path="$site/vllm/_C.abi3.so"
  ROLE_LIB="$lib_path" "$vprof" run --output "$dir" -- python3 -c "$work" >/dev/null 2>&1
  echo "== $case"
  "$vprof" report "$dir" --format json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["phases"]:
    print("role:", p["role"], "|", p["role_rule"])'
  for trace in "$dir"/*.vtrace; do
    listed=$(.device/trace_dump "$trace" | grep '"kind":"loaded_library"')
    echo "$(basename "$trace"): $(wc -l <<<"$listed") objects listed," \
      "libtorch_cuda.so $(grep -c '/libtorch_cuda.so"' <<<"$listed")×," \
      "$(grep -o '"path":"[^"]*"' <<<"$listed" | wc -c) path bytes of $(stat -c %s "$trace") trace bytes"
  done
done
