#!/usr/bin/env bash
# The report a new user reads, on real PyTorch: the small Llama training step with one
# deliberately slow step, run four ways under `vprof run`, each reported; leaves each text
# report (its first 60 lines), the JSON summaries and a's HTML page in OUT.
#   a  python3, NVTX step ranges, step 10 stalled 60 ms on the host (Summary, spread, HTA steps)
#   b  torchrun with one process, no NVTX, no NCCL (a rank by RANK; steps from optimizer kernels)
#   c  plain python3, no NVTX (role from the kernels)
#   d  as c, renamed after the warm-up as Ray names an actor (role from the title), when
#      setproctitle is installed
# Usage: bench/device_report_story.sh LIB VPROF OUT
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
out="$3"
llama=bench/workloads/llama_step.py
story() {  # NAME COMMAND...
  local name="$1" dir="/tmp/story-$1"
  shift
  rm -rf "$dir"
  "$vprof" run --output "$dir" -- "$@" 2>&1 | grep -E "_ms|vprof|rror" | head -5
  "$vprof" report "$dir" 2>&1 | head -60 >"$out/$name.txt"
  "$vprof" report "$dir" --format json 2>/dev/null |
    python3 -c 'import json, sys
r = json.load(sys.stdin)
print(json.dumps({"summary": r["summary"],
                  "processes": [{k: p[k] for k in ("file", "rank", "is_rank")} for p in r["processes"]],
                  "roles": [{k: p[k] for k in ("file", "role", "role_rule")} for p in r["phases"]],
                  "candidates": [{k: c[k] for k in ("kind", "exposed_ns", "scope", "strict")}
                                 for c in r["candidates"]]}))' >>"$out/summaries.jsonl"
  echo "== $name: $(grep -c . "$out/$name.txt") lines kept"
}
story a python3 "$llama" --steps 20 --nvtx --slow-step 10 --slow-ms 60
# The HTML page of a, with its interactive timeline (screenshotted off the GPU machine).
"$vprof" report /tmp/story-a --format html --output "$out/a.html" 2>&1 | head -3
"$vprof" export --format hta -o /tmp/story-a-hta /tmp/story-a >/dev/null 2>&1
echo "hta step ranges: $(grep -o 'ProfilerStep#[0-9]*' /tmp/story-a-hta/*.json | sort -u | wc -l)"
story b torchrun --standalone --nproc-per-node 1 "$llama" --steps 20
story c python3 "$llama" --steps 20
if python3 -c 'import setproctitle' 2>/dev/null; then
  story d python3 "$llama" --steps 20 --title "ray::MegatronTrainRayActor.train"
else
  echo "== d: setproctitle is not installed here"
fi
