#!/usr/bin/env bash
# Makes the seed corpora of the fuzz targets, tests/fuzz/corpus/<target>/,
# from a real simulated run: 2 ranks of the stand-in training program under
# libvprof.so, with GPU capture of every CUPTI kind (over the fake CUPTI) and
# the NCCL profiler plugin, so every kind of packet is in the traces. What it
# writes is committed; run it again after a change of the trace, summary or
# report format.
#   usage: tests/fuzz/make_corpus.sh [BUILD_DIR]   (default build/, made by scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="$(realpath "${1:-build}")"
corpus=tests/fuzz/corpus
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run="$work/run"
env -u LD_PRELOAD \
  LD_LIBRARY_PATH="$build/tests/standins" \
  LD_PRELOAD="$build/interpose/libvprof.so" \
  VPROF_OUTPUT_DIR="$run" VPROF_GPU=1 VPROF_CUPTI_KINDS=all \
  "$build/tests/standins/sim_launch" -n 2 "$build/tests/standins/sim_train" \
  --steps 3 --layers 4 --bucket-layers 2 --opt-kernels 2 --peer-copy-bytes 4096 \
  --sync-every 2 --slow-rank 1 --slow-ms 1 >/dev/null

rm -rf "$corpus"
mkdir -p "$corpus"/{trace_reader,gpu_batch,node_summary,run_contract,phase_rules,diff_json}

cp "$run"/*.vtrace "$corpus/trace_reader/"
python3 tests/fuzz/split_packets.py "$corpus/gpu_batch" "$run"/*.vtrace
"$build/reporter/vprof" report --node-summary "$corpus/node_summary/node.vsummary" "$run"
"$build/reporter/vprof" report --format json --output "$corpus/diff_json/report.json" "$run"

# A contract with every field (reporter/README.md, "Run contract"), and the least one.
cat > "$corpus/run_contract/every_field.json" <<'JSON'
{"version": 1, "consistency": "strict",
 "nccl": {"algorithms": ["Ring", "nvls_tree"], "protocols": ["Simple", "LL128"],
          "channels": {"min": 2, "max": 16}},
 "custom_allreduce_allowed": true, "all_reduce_backend": "custom_allreduce",
 "fallback_axes": ["nccl_proto", "all_reduce_backend"]}
JSON
echo '{"version": 1}' > "$corpus/run_contract/version_only.json"
"$build/reporter/vprof" report --format json --contract "$corpus/run_contract/every_field.json" \
  --output "$corpus/diff_json/strict_report.json" "$run" || true

cat > "$corpus/phase_rules/rules.txt" <<'RULES'
# vime's generation timer
gen_rollout = rollout execution
  Forward =  train forward
weight_sync = weight sync
RULES

du -sh "$corpus"/*
