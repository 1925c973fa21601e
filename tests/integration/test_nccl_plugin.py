"""NCCL's profiler plugin inside libvprof.so, over the stand-in NCCL (which loads plugins as NCCL
does), with 2 ranks under sim_launch:
  - a program linked with NCCL: every plugin COLL event matches one intercepted call (func,
    count, NCCL's own sequence number), KernelCh GPU times lie inside the call;
  - the same program calling NCCL only through dlopen(RTLD_LOCAL) + dlsym, as vLLM's PyNccl
    does: its collectives appear as plugin events and not as wrapper events;
  - NCCL_PROFILER_PLUGIN naming another library, VPROF_NCCL_PLUGIN=0, a v4-only NCCL, and
    the plugin named by a bare name (libnccl-profiler-<name>.so).
Traces are read back with libprotobuf (trace_dump). Expected values come from the program's
own calls and NCCL's documented behaviour, not from vprof."""
import collections
import json
import os
import subprocess

from harness import BUILD, LIBVPROF, STANDINS, base_env, check, run, temp_dir, traces

PROGRAMS = os.path.join(BUILD, "tests", "integration")
DUMP = os.path.join(PROGRAMS, "trace_dump")
ITERATIONS = 3
# NCCL's event type bits.
GROUP, COLL, P2P, KERNEL_CH = 1, 2, 4, 64
GROUP_API, COLL_API, P2P_API, KERNEL_LAUNCH = 256, 512, 1024, 2048
V4_MASK = GROUP | COLL | P2P
V5_MASK = V4_MASK | GROUP_API | COLL_API | P2P_API | KERNEL_LAUNCH
# What nccl_ranks calls, in order (count as passed, NCCL datatype).
COLLECTIVES = [("AllReduce", 1024, "ncclFloat32")] * ITERATIONS + [
    ("AllGather", 256, "ncclFloat32"), ("Broadcast", 100, "ncclInt32"),
    ("ReduceScatter", 64, "ncclFloat64")]
TYPE_SIZE = {"ncclFloat32": 4, "ncclInt32": 4, "ncclFloat64": 8}


def run_ranks(program, **env):
    """Runs 2 ranks of `program` under the preload; one dict per rank trace."""
    trace_dir = temp_dir("nccl-plugin")
    cmd = [os.path.join(STANDINS, "sim_launch"), "-n", "2", os.path.join(PROGRAMS, program),
           str(ITERATIONS)]
    r = run(cmd, preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_GPU=0, **env))
    check(r.returncode == 0, f"{program} failed ({r.returncode}): {r.stderr}")
    check(r.stdout == f"nccl_ranks: 2 ranks, {ITERATIONS} all-reduce, ok\n", r.stdout)
    ranks = {}
    for name in traces(trace_dir):
        out = subprocess.run([DUMP, os.path.join(trace_dir, name)], capture_output=True,
                             text=True, timeout=60)
        check(out.returncode == 0, f"{name} is not a whole trace: {out.stderr.strip()}")
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        kinds = collections.defaultdict(list)
        for row in rows:
            kinds[row["kind"]].append(row)
        hooks = [h for h in kinds["injection"] if h["hook"] == 2]
        check(hooks, f"{name}: no InjectionStatus for NCCL_PROFILER_PLUGIN")
        trace = {"nccl": kinds["nccl"], "events": kinds["plugin_event"], "hook": hooks[-1],
                 "dropped": sum(d["dropped"] for d in kinds["plugin_dropped"]),
                 "counts": kinds["footer"][0]["counts"], "name": name}
        comms = {}
        for c in kinds["plugin_comm"]:
            comms[c["context_id"]] = c  # the last record of a context holds
        trace["comms"] = comms
        rank = [c["rank"] for c in kinds["communicator"]] + [c["rank"] for c in comms.values()]
        if rank:
            ranks[rank[0]] = trace
    check(sorted(ranks) == [0, 1], f"expected traces of ranks 0 and 1, got {sorted(ranks)}")
    return ranks


def by_type(trace, type_name):
    return [e for e in trace["events"] if e["type"] == "NCCL_PLUGIN_EVENT_" + type_name]


def check_comm(trace, rank, mask):
    comms = list(trace["comms"].values())
    check(len(comms) == 1, f"rank {rank}: {len(comms)} plugin contexts")
    c = comms[0]
    check(c["name"] == "ranks-world" and c["nranks"] == 2 and c["rank"] == rank and c["nnodes"] == 1,
          f"rank {rank}: plugin context {c}")
    check(c["activation_mask"] == mask, f"rank {rank}: mask {c['activation_mask']}, want {mask}")
    check(0 < c["init_ns"] < c["finalize_ns"], f"rank {rank}: init/finalize times {c}")
    for e in trace["events"]:
        check(e["context_id"] == c["context_id"], f"event of another context: {e}")
        check(c["init_ns"] <= e["start_ns"] <= e["stop_ns"] <= c["finalize_ns"], f"times: {e}")
    check(trace["dropped"] == 0, f"rank {rank}: {trace['dropped']} events dropped")
    check(trace["counts"].get("nccl_plugin") == [len(trace["events"]), 0],
          f"rank {rank}: footer {trace['counts']} vs {len(trace['events'])} events")


def expected_coll_count(func, count, datatype):
    # NCCL's planner reports AllGather and Broadcast in bytes, as ncclInt8.
    if func in ("AllGather", "Broadcast"):
        return count * TYPE_SIZE[datatype], "ncclInt8"
    return count, datatype


# 1. Linked: plugin COLL events match the intercepted calls one to one.
ranks = run_ranks("nccl_ranks", VPROF_NCCL_KERNEL_CH=1)
for rank, t in ranks.items():
    check_comm(t, rank, V5_MASK | KERNEL_CH)
    h = t["hook"]
    check(h["claimed"] and h["attached"] and h["version"] == 6 and h["found"] == "", f"hook {h}")
    ids = {e["event_id"]: e for e in t["events"]}
    check(len(ids) == len(t["events"]), "event ids are not unique")
    wrapped = [c for c in t["nccl"] if c["func"][4:] in {f for f, _, _ in COLLECTIVES}]
    colls = by_type(t, "COLL")
    check(len(wrapped) == len(COLLECTIVES) == len(colls),
          f"rank {rank}: {len(wrapped)} wrapped collectives, {len(colls)} plugin COLL events")
    seen = collections.Counter()
    matched = set()
    for call, (func, count, datatype) in zip(sorted(wrapped, key=lambda c: c["seq"]), COLLECTIVES):
        check(call["func"] == "nccl" + func, f"call order: {call}")
        inside = [e for e in colls if e["tid"] == call["tid"]
                  and call["enter_ns"] <= e["start_ns"] <= e["stop_ns"] <= call["exit_ns"]]
        check(len(inside) == 1, f"rank {rank}: {len(inside)} COLL events inside {call}")
        e = inside[0]
        matched.add(e["event_id"])
        want_count, want_type = expected_coll_count(func, count, datatype)
        check(e["func"] == func and e["count"] == want_count and e["datatype"] == want_type,
              f"rank {rank}: {e} for {func}({count}, {datatype})")
        check(call["count"] == count, f"wrapper count {call}")
        # NCCL numbers collectives per communicator and function, from 0.
        check(e["seq"] == seen[func], f"rank {rank}: {func} seq {e['seq']}, want {seen[func]}")
        seen[func] += 1
        check(e["algo"] == "RING" and e["proto"] == "SIMPLE" and e["channels"] == 2
              and e["warps"] == 16, f"algorithm fields: {e}")
        api = ids.get(e["parent_id"])
        check(api and api["type"] == "NCCL_PLUGIN_EVENT_COLL_API" and api["func"] == func
              and api["count"] == count and api["datatype"] == datatype,
              f"rank {rank}: COLL parent {api}")
        group_api = ids.get(api["parent_id"])
        check(group_api and group_api["type"] == "NCCL_PLUGIN_EVENT_GROUP_API"
              and group_api["group_depth"] == 1, f"CollApi parent {group_api}")
        channels = [k for k in by_type(t, "KERNEL_CH") if k["parent_id"] == e["event_id"]]
        check(sorted(k["channel_id"] for k in channels) == [0, 1], f"KernelCh of {e}: {channels}")
        for k in channels:
            # The stand-in's "GPU timer" is CLOCK_MONOTONIC, vprof's clock: inside the call.
            check(call["enter_ns"] <= k["gpu_start"] <= k["gpu_stop"] <= call["exit_ns"],
                  f"KernelCh GPU times outside the call: {k} {call}")
    check(len(matched) == len(colls), "a COLL event matched no call")
    # The send/receive ring: P2P events inside the ncclGroupEnd call, parents P2P_API.
    group_end = [c for c in t["nccl"] if c["func"] == "ncclGroupEnd"]
    check(len(group_end) == 1, f"ncclGroupEnd calls: {group_end}")
    p2p = by_type(t, "P2P")
    check(sorted((e["func"], e["peer"], e["count"], e["datatype"]) for e in p2p)
          == [("Recv", (rank + 1) % 2, 32, "ncclInt8"), ("Send", (rank + 1) % 2, 32, "ncclInt8")],
          f"rank {rank}: P2P events {p2p}")
    for e in p2p:
        check(group_end[0]["enter_ns"] <= e["start_ns"] <= group_end[0]["exit_ns"], f"{e}")
        check(ids[e["parent_id"]]["type"] == "NCCL_PLUGIN_EVENT_P2P_API", f"P2P parent {e}")
    group_apis = by_type(t, "GROUP_API")
    check(sorted(g["group_depth"] for g in group_apis) == [1] * len(COLLECTIVES) + [2],
          f"GroupApi depths {[g['group_depth'] for g in group_apis]}")

# 2. Through a dlsym handle: the plugin sees what no wrapper does.
ranks = run_ranks("nccl_ranks_dlsym")
for rank, t in ranks.items():
    check_comm(t, rank, V5_MASK)
    check(not t["nccl"], f"rank {rank}: wrappers saw {len(t['nccl'])} calls through dlsym")
    got = [(e["func"], e["seq"]) for e in sorted(by_type(t, "COLL"), key=lambda e: e["start_ns"])]
    want, seen = [], collections.Counter()
    for func, _, _ in COLLECTIVES:
        want.append((func, seen[func]))
        seen[func] += 1
    check(got == want, f"rank {rank}: COLL events {got}, want {want}")
    check(len(by_type(t, "P2P")) == 2, f"rank {rank}: P2P events")
    check(not by_type(t, "KERNEL_CH"), "KernelCh events although VPROF_NCCL_KERNEL_CH is off")
    check(t["hook"]["attached"] and t["hook"]["version"] == 6, f"hook {t['hook']}")

# 3. NCCL_PROFILER_PLUGIN belongs to another tool: left alone, recorded, no plugin events.
other = "/opt/other-tool/libnccl-profiler-other.so"
ranks = run_ranks("nccl_ranks", NCCL_PROFILER_PLUGIN=other)
for rank, t in ranks.items():
    h = t["hook"]
    check(h["found"] == other and not h["claimed"] and not h["attached"], f"hook {h}")
    check(not t["events"] and not t["comms"], f"rank {rank}: plugin events without the plugin")
    check(len(t["nccl"]) > len(COLLECTIVES), "the wrappers still record")

# 4. VPROF_NCCL_PLUGIN=0: the variable is not claimed, NCCL finds no plugin.
ranks = run_ranks("nccl_ranks", VPROF_NCCL_PLUGIN=0)
for rank, t in ranks.items():
    h = t["hook"]
    check(not h["claimed"] and not h["attached"] and h["found"] == "", f"hook {h}")
    check(not t["events"], f"rank {rank}: plugin events with VPROF_NCCL_PLUGIN=0")

# 5. An NCCL that speaks v4 only (2.27): no API events, COLL's parent is its GROUP.
ranks = run_ranks("nccl_ranks", FAKE_NCCL_PROFILER_API=4)
for rank, t in ranks.items():
    check_comm(t, rank, V4_MASK)
    check(t["hook"]["version"] == 4, f"hook {t['hook']}")
    types = {e["type"][len("NCCL_PLUGIN_EVENT_"):] for e in t["events"]}
    check(types == {"GROUP", "COLL", "P2P"}, f"rank {rank}: v4 event types {types}")
    ids = {e["event_id"]: e for e in t["events"]}
    for e in by_type(t, "COLL") + by_type(t, "P2P"):
        check(ids[e["parent_id"]]["type"] == "NCCL_PLUGIN_EVENT_GROUP", f"v4 parent of {e}")
    check([e["func"] for e in sorted(by_type(t, "COLL"), key=lambda e: e["start_ns"])]
          == [f for f, _, _ in COLLECTIVES], f"rank {rank}: v4 COLL events")

# 6. A bare name, as NCCL resolves it: NCCL_PROFILER_PLUGIN=vprof loads libnccl-profiler-vprof.so
# from the library path (here a link to libvprof.so). vprof leaves a value that is not its path
# alone, and still records what NCCL sends it.
link_dir = temp_dir("plugin-name")
os.symlink(LIBVPROF, os.path.join(link_dir, "libnccl-profiler-vprof.so"))
ranks = run_ranks("nccl_ranks", NCCL_PROFILER_PLUGIN="vprof",
                  LD_LIBRARY_PATH=f"{STANDINS}:{link_dir}")
for rank, t in ranks.items():
    h = t["hook"]
    check(h["found"] == "vprof" and not h["claimed"] and h["attached"] and h["version"] == 6,
          f"hook {h}")
    check(len(by_type(t, "COLL")) == len(COLLECTIVES), f"rank {rank}: COLL events by name")

print(f"ok: plugin COLL events matched {len(COLLECTIVES)} intercepted collectives per rank "
      f"(func, count, seq, KernelCh times); dlsym-only calls seen by the plugin alone; another "
      f"tool's NCCL_PROFILER_PLUGIN left alone; VPROF_NCCL_PLUGIN=0 and v4 checked")
