#!/usr/bin/env bash
# What fixing it buys, on one GPU (docs/replay.md): the transformers Llama step of
# bench/workloads/llama_step.py with an injected slow operator (--spin-ms: a GPU kernel that
# spins about SPIN ms after each forward) and without it, ROUNDS rounds of fresh processes in
# turn, each under `vprof run` (the light default, one NVTX range per step). From the run with
# the operator alone, `vprof whatif RUN --faster '*spin_kernel*=off'` projects the step without
# it; each round prints, as one line,
#   round R spin=SPIN with_ms W projected_ms P without_ms M error E replay_error C
# with W and M the two runs' mean full steps in the report (its ledger), P = W less the
# projected saving, E = (P - M) / M and C the unchanged replay's own error; then the first
# run's candidates with their projections, and with VPROF_CUPTI_KINDS=all the same run's
# candidate order (the ranking must not depend on the capture mode).
# Usage: bench/device_replay_pair.sh LIB VPROF [ROUNDS [SPIN]]
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="${3:-5}" spin="${4:-8}"
mean_step() { "$vprof" report "$1" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["steps"]["ledger"]["mean_step_ns"])'; }
for round in $(seq 1 "$rounds"); do
  for run in with without all; do
    flag="--spin-ms $spin" env=()
    [ "$run" = without ] && flag=""
    [ "$run" = all ] && env=(VPROF_CUPTI_KINDS=all)
    rm -rf "/tmp/pair-$run"
    env "${env[@]}" "$vprof" run --library "$lib" --output "/tmp/pair-$run" -- \
      python3 bench/workloads/llama_step.py --nvtx --steps 20 $flag >/dev/null 2>&1
  done
  with=$(mean_step /tmp/pair-with) without=$(mean_step /tmp/pair-without)
  "$vprof" whatif /tmp/pair-with --faster '*spin_kernel*=off' --format json | python3 -c '
import json, sys
a = json.load(sys.stdin)
w, m = '"$with"', '"$without"'
p = a["projection"]
if p is None:
    print("round '"$round"' spin='"$spin"' withheld:", a["withheld"])
else:
    proj = w - p["saving_ns"]
    print("round '"$round"' spin='"$spin"' with_ms %.2f projected_ms %.2f without_ms %.2f "
          "error %+.1f%% replay_error %.1f%%" % (w / 1e6, proj / 1e6, m / 1e6,
          (proj - m) / m * 100, a["replay"]["error"] * 100))'
  for run in with all; do
    "$vprof" report "/tmp/pair-$run" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("  '"$run"' replay:", {k: r["steps"]["replay"][k] for k in ("steps", "error", "withheld")})
for c in r["candidates"][:6]:
    s = c["projected_saving_ns"]
    print("  '"$run"' %s %s %.2f ms saves %s" % (c["rank_order"], c["kind"], c["exposed_ns"] / 1e6,
          "%.2f ms" % (s / 1e6) if s is not None else "- (" + c["projection_withheld"] + ")"))'
  done
done
