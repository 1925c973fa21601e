"""CUDA-graph replays end to end over the stand-ins: a one-rank simulated training run whose
optimizer kernels are captured once into a CUDA graph and replayed every step (sim_train
--graph-opt). The light default records each replay whole (CUPTI GRAPH_TRACE) and none of its
nodes; VPROF_CUPTI_KINDS=all records each node; the report counts replays apart from kernels,
treats each as compute work in its step, and both captures agree on what both record. Then a
whole training step captured as one graph and replayed back to back, without NVTX ranges
(sim_train --graph-step): the light default finds each replay's step from the graph's node list,
read once as the graph was instantiated."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import LIBVPROF, STANDINS, VPROF, base_env, check, report_json, run, temp_dir  # noqa: E402

STEPS, LAYERS, OPT_KERNELS, OPT_US = 4, 3, 3, 2000
SIM = [os.path.join(STANDINS, "sim_launch"), "-n", "1", os.path.join(STANDINS, "sim_train"),
       "--steps", str(STEPS), "--layers", str(LAYERS), "--opt-kernels", str(OPT_KERNELS),
       "--opt-us", str(OPT_US), "--fwd-us", "1000", "--bwd-us", "1000", "--graph-opt"]


def rank_of(kinds, sim=SIM, **extra_env):
    trace_dir = temp_dir("graph-capture")
    env = base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_GPU=1, VPROF_FLUSH_MS=10, **extra_env)
    if kinds:
        env["VPROF_CUPTI_KINDS"] = kinds
    traced = run(sim, preload=[LIBVPROF], env=env)
    check(traced.returncode == 0, f"{kinds or 'light'} run failed: {traced.stderr}")
    check("vprof" not in traced.stderr, f"vprof printed something: {traced.stderr}")
    rep = report_json(trace_dir)
    ranks = [p for p in rep["processes"] if p["is_rank"]]
    check(len(ranks) == 1, f"{len(ranks)} ranks")
    return ranks[0], rep["steps"]["ranks"][0], rep, trace_dir


light, light_steps, _, _ = rank_of("")
full, full_steps, _, _ = rank_of("all")

check(light["gpu"]["capture"]["mode"] == "light" and full["gpu"]["capture"]["mode"] == "all",
      f"modes {light['gpu']['capture']['mode']}, {full['gpu']['capture']['mode']}")

# Light: the layers' kernels, one replay per step, no node of it.
gpu = light["gpu"]
check(gpu["kernels"]["count"] == STEPS * 2 * LAYERS,
      f"light: {gpu['kernels']['count']} kernels, expected the {STEPS * 2 * LAYERS} outside graphs")
names = {k["name"] for k in gpu["top_kernels"]}
check("sim_opt_kernel" not in names, f"light: graph nodes recorded: {sorted(names)}")
replays = gpu.get("graph_replays")
check(replays is not None and replays["count"] == STEPS, f"light: replays {replays}")
# What the replays ran, from the graph's node list: the count 'all' records node by node.
check(replays["kernels"] == STEPS * OPT_KERNELS and replays["unlisted"] == 0,
      f"light: the replays ran {replays['kernels']} kernels, {replays['unlisted']} unlisted")
# Each replay spans its nodes, run back to back: at least their durations, not much more.
least = STEPS * OPT_KERNELS * OPT_US * 1000
check(least <= replays["total_ns"] <= least + STEPS * 20_000_000,
      f"light: replays last {replays['total_ns']} ns, the nodes {least}")

# Full: every node a kernel record, no replay recorded whole.
gpu = full["gpu"]
check(gpu["kernels"]["count"] == STEPS * (2 * LAYERS + OPT_KERNELS),
      f"all: {gpu['kernels']['count']} kernels")
check("graph_replays" not in gpu, f"all: replays recorded whole {gpu.get('graph_replays')}")
opt = [k for k in gpu["top_kernels"] if k["name"] == "sim_opt_kernel"]
check(opt and opt[0]["count"] == STEPS * OPT_KERNELS, f"all: optimizer kernels {opt}")

# In the steps: the replay is compute work on its stream, counted once per step, and the number
# of launches is the same whichever way the graph was recorded.
measured = len(light_steps["steps"])
check(measured >= 1 and measured == len(full_steps["steps"]),
      f"measured steps: light {measured}, all {len(full_steps['steps'])}")
streams = [s for s in light_steps["streams"] if s.get("graph_replays")]
check(len(streams) == 1 and streams[0]["graph_replays"] == measured
      and streams[0]["role"] == "compute", f"light: streams {light_steps['streams']}")
check([s["launches"] for s in light_steps["steps"]] == [s["launches"] for s in full_steps["steps"]],
      f"launches per step: light {[s['launches'] for s in light_steps['steps']]}, "
      f"all {[s['launches'] for s in full_steps['steps']]}")
# Each step's compute time holds the optimizer's graph whole in both captures.
for name, steps in (("light", light_steps), ("all", full_steps)):
    for step in steps["steps"]:
        check(step["times"]["compute_ns"] >= (2 * LAYERS * 1000 + OPT_KERNELS * OPT_US) * 1000,
              f"{name}: step compute {step['times']['compute_ns']} ns")
# A libcupti that predates whole-graph records refuses GRAPH_TRACE: the light default then records
# each node, silently, and the rest of the capture runs as before.
old, _, _, _ = rank_of("", FAKE_CUPTI_NO_GRAPH_TRACE="1")
gpu = old["gpu"]
check(gpu["capture"]["state"] == "active" and gpu["capture"]["mode"] == "light",
      f"without GRAPH_TRACE: capture {gpu['capture']}")
check(gpu["kernels"]["count"] == STEPS * (2 * LAYERS + OPT_KERNELS) and "graph_replays" not in gpu,
      f"without GRAPH_TRACE: {gpu['kernels']['count']} kernels, replays {gpu.get('graph_replays')}")

# A whole step as one graph, replayed back to back after 2 eager warm-up steps: 10 forward and 10
# backward kernels, then the fused optimizer's, with no NVTX range. Each replay is one step, found
# from the optimizer kernels in the graph's node list; the light default leaves the eager steps
# out (the replays are the steady state) and its Summary describes the replays' steps, not a
# sliver of the run. 'all' records the nodes and finds every step from its kernels.
G_STEPS, G_LAYERS, G_US, G_EAGER = 6, 10, 500, 2
GRAPH_STEP = [os.path.join(STANDINS, "sim_launch"), "-n", "1", os.path.join(STANDINS, "sim_train"),
              "--steps", str(G_STEPS), "--layers", str(G_LAYERS), "--fwd-us", str(G_US),
              "--bwd-us", str(G_US), "--opt-kernels", str(OPT_KERNELS), "--opt-us", str(G_US),
              "--graph-step"]
node_ns = (2 * G_LAYERS + OPT_KERNELS) * G_US * 1000
for kinds in ("", "all"):
    name = kinds or "light"
    rank, steps, rep, trace_dir = rank_of(kinds, sim=GRAPH_STEP)
    summary = rep["steps"]
    check(summary["source"] == "inferred_optimizer_kernels"
          and summary["steps_found"] == G_EAGER + G_STEPS,
          f"{name} graph steps: source {summary['source']}, {summary['steps_found']} found")
    check(summary["before_graph_replays_excluded"] == (not kinds)
          and (f"steps 1-{G_EAGER}, eager, before the first CUDA-graph replay's step"
               in summary["window"]) == (not kinds),
          f"{name}: eager steps left out {summary['before_graph_replays_excluded']}: "
          f"{summary['window']}")
    # The eager steps, when left out, come before the warmup step.
    first = (G_EAGER if not kinds else 0) + 1
    check(summary["first_measured"] == first and len(steps["steps"]) == G_EAGER + G_STEPS - first,
          f"{name}: measured from {summary['first_measured']}: {summary['window']}")
    # Each step holds one replay whole: its nodes' time at least (a loaded machine stretches the
    # stand-in's kernels), never two replays' worth.
    for step in steps["steps"]:
        compute = step["times"]["compute_ns"]
        check(node_ns <= compute < 2 * node_ns, f"{name} graph step compute {compute} ns")
    labels = [line["label"] for line in rep["summary"]["lines"]]
    check("Outside the steps" not in labels, f"{name}: the Summary describes part of the run")
    if not kinds:
        replays = rank["gpu"]["graph_replays"]
        # Each step's graph: its kernels and the fill that zeroes the gradients first.
        check(replays["kernels"] == G_STEPS * (2 * G_LAYERS + OPT_KERNELS)
              and replays["memsets"] == G_STEPS and replays["memcpys"] == 0,
              f"light: whole-step replays ran {replays}")
        check(summary.get("graph_replays_recorded_whole") == G_STEPS,
              f"light: {summary.get('graph_replays_recorded_whole')} replays recorded whole")
        check(all(step["launches"] == 1 for step in steps["steps"]),
              f"light: launches {[step['launches'] for step in steps['steps']]}")
        # The timeline labels each replay with the kernels and fills its graph's node list holds.
        timeline = os.path.join(trace_dir, "timeline.json")
        exported = run([VPROF, "export", "--format", "chrome", "-o", timeline, trace_dir])
        check(exported.returncode == 0, f"light: export failed: {exported.stderr}")
        with open(timeline) as f:
            drawn = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "graph_replay"]
        check(len(drawn) == G_STEPS
              and all(e["args"].get("kernels") == 2 * G_LAYERS + OPT_KERNELS
                      and e["args"].get("memsets") == 1 for e in drawn),
              f"light: timeline replays {[e['args'] for e in drawn]}")
        top = rep["steps"]["ledger"]["lines"][0]
        check(top["cause"] == "compute" and top["phase"] == "cuda graph replay",
              f"light: first ledger line {top}")
print(f"ok: {STEPS} graph replays recorded whole by the light default, node by node by 'all'; "
      f"{G_STEPS} steps found inside whole-step graphs from their node lists")
