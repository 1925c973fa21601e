#!/usr/bin/env bash
# Why two runs drifted, on one GPU: the DDP training of
# bench/workloads/fingerprint_check.py (an MLP, world size 1, seed 1234, deterministic
# algorithms, 6 steps) three times under `vprof run` with VPROF_AUDIT=fingerprint: A and A2 with
# TF32 matmuls off, B with them on (torch.backends.cuda.matmul.allow_tf32). A one-rank
# communicator launches no NCCL kernel, but its calls are recorded and fingerprinted, and they
# bound the window: the GEMMs launched between the last agreeing call and the first differing
# one are what changes. Prints `vprof diff --bitwise` for A against A2 (expected: every call
# agrees, no setting differs, and the NCCL version is not among those recorded in one run only;
# the CUDA versions may be, since the header asks for them as the trace begins, which can come
# before `import torch` loads the runtime: a gap of capture, never a difference) and
# for A against B (expected: upstream at ncclAllReduce seq 4, after ncclBcast seq 3, and "run B
# launched a TF32 GEMM kernel where run A launched an FP32 GEMM kernel: TF32 arithmetic" with
# both kernels' names), then the JSON fields that say so.
# Usage: bench/device_drift_tf32.sh LIB VPROF
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
for run in a a2 b; do
  flag=""
  [ "$run" = b ] && flag="--tf32"
  rm -rf "/tmp/drift-$run"
  VPROF_AUDIT=fingerprint "$vprof" run --library "$lib" --output "/tmp/drift-$run" -- \
    python3 bench/workloads/fingerprint_check.py train $flag 2>&1 | grep -v "^$"
done
for other in a2 b; do
  echo "-- vprof diff --bitwise a $other"
  "$vprof" diff --bitwise /tmp/drift-a "/tmp/drift-$other"
  echo "exit $?"
  "$vprof" diff --bitwise /tmp/drift-a "/tmp/drift-$other" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
f, why = d["first_difference"], d["why_drifted"] or {}
print("first", f and (f["function"], f["seq"]), "drift", d["drift"])
print("settings_differing", d["settings_differing"])
print("settings_recorded_once", d["settings_recorded_once"])
for key in ("a", "b", "first_a", "first_b", "family_a", "family_b", "cause", "finding"):
    print(key, why.get(key))'
done
