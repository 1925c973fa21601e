"""Collective fingerprints (VPROF_AUDIT=fingerprint) through the real capture path over the
stand-ins: the fake runtime loads the fake libcuda.so.1, which runs vprof's kernel on the host.
Each value in the trace is checked against fingerprint_reference.py, the hash written again from
its description, over the bytes fingerprint_probe put in its buffers; across two ranks, every
collective's output must agree, as NCCL leaves the same bytes on every rank."""
import collections
import json
import os
import subprocess

from fingerprint_reference import fingerprint, probe_bytes
from harness import (BUILD, LIBVPROF, STANDINS, base_env, check, report_json, run, temp_dir,
                     traces)

PROGRAMS = os.path.join(BUILD, "tests", "integration")
DUMP = os.path.join(PROGRAMS, "trace_dump")
PROBE = os.path.join(PROGRAMS, "fingerprint_probe")
# fingerprint_probe's calls in order: function, bytes of its input (one rank: output = input).
PROBE_CALLS = [("ncclAllReduce", 4096), ("ncclAllReduce", 1001), ("ncclAllGather", 777),
               ("ncclBroadcast", 64)]


def dump(path):
    r = subprocess.run([DUMP, path], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"trace_dump {path}: {r.returncode} {r.stderr}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def run_probe(*args, env=None, ld_path=STANDINS, gpu=False):
    """fingerprint_probe ARGS under the preload with auditing on (GPU capture only when `gpu`);
    its result and trace folder."""
    trace_dir = temp_dir("fingerprints")
    e = base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_AUDIT="fingerprint", **(env or {}))
    if not gpu:
        e["VPROF_GPU"] = "0"
    e["LD_LIBRARY_PATH"] = ld_path
    r = run([PROBE, *args], preload=[LIBVPROF], env=e)
    check(r.returncode == 0, f"probe {args} failed ({r.returncode}): {r.stderr}")
    return r, trace_dir


def probe(*args, env=None, ld_path=STANDINS):
    """run_probe, for a run that leaves one trace: its result and the trace's records."""
    r, trace_dir = run_probe(*args, env=env, ld_path=ld_path)
    files = traces(trace_dir)
    check(len(files) == 1, f"expected one trace, got {files}")
    return r, dump(os.path.join(trace_dir, files[0]))


def of_kind(rows, kind):
    return [row for row in rows if row["kind"] == kind]


# 1. Every value equals the reference over the probe's bytes; the program runs as without vprof.
bare = run([PROBE], env=base_env())
check(bare.returncode == 0, f"bare probe failed: {bare.stderr}")
traced, rows = probe()
check(traced.stdout == bare.stdout, f"output differs: {traced.stdout!r} vs {bare.stdout!r}")
check("vprof" not in traced.stderr, f"vprof printed something: {traced.stderr}")
status = of_kind(rows, "fingerprint_status")
check([s["state"] for s in status] == ["FINGERPRINT_STATUS_ACTIVE"], f"status {status}")
check(status[0]["version"] == 1, f"version {status[0]}")
got = sorted(of_kind(rows, "fingerprint"), key=lambda f: f["seq"])
check(len(got) == len(PROBE_CALLS), f"{len(got)} fingerprints: {got}")
for (func, size), f in zip(PROBE_CALLS, got):
    want = fingerprint(probe_bytes(size))
    check(f["func"] == func and f["state"] == "FINGERPRINTED", f"{func}: {f}")
    check(f["input"] == want, f"{func} {size} B input {f['input']:#x}, reference {want:#x}")
    check(f["output"] == want, f"{func} {size} B output {f['output']:#x}, reference {want:#x}")
# The values differ between the calls (different lengths of the same pattern).
check(len({f["input"] for f in got}) == len(got), "two calls with different bytes agree")
print(f"probe: {len(got)} calls, every input and output equal to the reference")

# 2. Sampling: every 2nd collective of the communicator; only buffers of 1000 bytes or more.
_, rows = probe(env={"VPROF_AUDIT_EVERY": 2})
check(sorted(f["seq"] for f in of_kind(rows, "fingerprint")) == [2, 4],
      f"VPROF_AUDIT_EVERY=2: {of_kind(rows, 'fingerprint')}")
_, rows = probe(env={"VPROF_AUDIT_MIN_BYTES": 1000})
check(sorted(f["seq"] for f in of_kind(rows, "fingerprint")) == [1, 2],
      f"VPROF_AUDIT_MIN_BYTES=1000: {of_kind(rows, 'fingerprint')}")
print("sampling: every 2nd and at least 1000 bytes select the right calls")

# A collective on a stream that is capturing a CUDA graph is not fingerprinted, and says so.
_, rows = probe("--capture")
got = sorted(of_kind(rows, "fingerprint"), key=lambda f: f["seq"])
check([f["state"] for f in got] == ["FINGERPRINTED"] * 4 + ["FINGERPRINT_SKIPPED_GRAPH_CAPTURE"],
      f"capture states: {got}")
check(got[4]["input"] == -1 and got[4]["output"] == -1, f"a value for a captured call: {got[4]}")
print("graph capture: the captured call skipped and marked, the others fingerprinted")

# vprof's kernels are in the GPU records (the fake CUPTI reports them by name) but in no figure
# of the program's: the report counts them apart. The probe itself runs no kernel.
_, trace_dir = run_probe(gpu=True)
gpu = [p["gpu"] for p in report_json(trace_dir)["processes"] if p.get("gpu")]
check(len(gpu) == 1, f"GPU sections: {gpu}")
check(gpu[0]["kernels"]["count"] == 0, f"the program's kernels: {gpu[0]['kernels']}")
check(gpu[0]["vprof_kernels"]["count"] == 2 * len(PROBE_CALLS), f"vprof's: {gpu[0].get('vprof_kernels')}")
print(f"GPU capture: {2 * len(PROBE_CALLS)} fingerprint kernels counted apart, none among the program's")

# A forked child fingerprints nothing (CUDA and the slots' pinned memory are the parent's) and
# says why; the parent's fingerprints are as they were.
_, trace_dir = run_probe("--fork")
by_file = {name: dump(os.path.join(trace_dir, name)) for name in traces(trace_dir)}
check(len(by_file) == 2, f"traces: {sorted(by_file)}")
states = sorted(sorted(f["state"] for f in of_kind(rows, "fingerprint")) for rows in by_file.values())
check(states == [["FINGERPRINTED"] * 4, ["FINGERPRINT_FAILED"]], f"fork states: {states}")
child = [rows for rows in by_file.values() if len(of_kind(rows, "fingerprint")) == 1][0]
status = of_kind(child, "fingerprint_status")
check(len(status) == 1 and status[0]["state"] == "FINGERPRINT_STATUS_UNAVAILABLE"
      and "forked child" in status[0]["detail"], f"child status: {status}")
print("fork: the child's call marked FAILED, its status says why; the parent's 4 fingerprinted")

# 3. No libcuda in the process: the collectives run, the trace says why nothing was fingerprinted.
no_driver = temp_dir("no-driver")
for lib in ("libcudart.so.13", "libnccl.so.2"):
    os.symlink(os.path.join(STANDINS, lib), os.path.join(no_driver, lib))
traced, rows = probe(ld_path=no_driver)
check(traced.stdout == bare.stdout, f"output differs without a driver: {traced.stdout!r}")
status = of_kind(rows, "fingerprint_status")
check(len(status) == 1 and status[0]["state"] == "FINGERPRINT_STATUS_UNAVAILABLE"
      and "libcuda.so.1" in status[0]["detail"], f"status without a driver: {status}")
states = collections.Counter(f["state"] for f in of_kind(rows, "fingerprint"))
check(states == {"FINGERPRINT_FAILED": len(PROBE_CALLS)}, f"states without a driver: {states}")
check(all(f["input"] == -1 and f["output"] == -1 for f in of_kind(rows, "fingerprint")),
      "a value without a driver")
print("no driver: every call marked FINGERPRINT_FAILED, the reason in the status")

# 4. Two ranks of the simulated trainer, twice: each collective's output agrees across ranks (NCCL
# leaves the same bytes on every rank) and each rank's fingerprints agree across the two runs.
def sim_run():
    trace_dir = temp_dir("fingerprints-sim")
    r = run([os.path.join(STANDINS, "sim_launch"), "-n", "2", os.path.join(STANDINS, "sim_train"),
             "--steps", "3"], preload=[LIBVPROF],
            env=base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_GPU=0, VPROF_AUDIT="fingerprint"))
    check(r.returncode == 0, f"sim_train failed: {r.stderr}")
    per_rank = {}
    for name in traces(trace_dir):
        rows = dump(os.path.join(trace_dir, name))
        fps = of_kind(rows, "fingerprint")
        comms = {c["comm_id"]: c["rank"] for c in of_kind(rows, "communicator")}
        if fps:
            per_rank[comms[fps[0]["comm_id"]]] = fps
    check(sorted(per_rank) == [0, 1], f"ranks with fingerprints: {sorted(per_rank)}")
    return per_rank


first, second = sim_run(), sim_run()
for rank, fps in first.items():
    check(all(f["state"] == "FINGERPRINTED" for f in fps), f"rank {rank}: {fps}")
    check(len(fps) == 15, f"rank {rank}: {len(fps)} fingerprints, expected 12 all-reduce + 3 all-gather")
outputs = collections.defaultdict(set)
for fps in first.values():
    for f in fps:
        outputs[(f["comm_id"], f["func"], f["seq"])].add(f["output"])
check(all(len(v) == 1 for v in outputs.values()), f"outputs differ across ranks: {dict(outputs)}")
key = lambda fps: sorted((f["func"], f["seq"], f["input"], f["output"]) for f in fps)
for rank in (0, 1):
    check(key(first[rank]) == key(second[rank]), f"rank {rank}: two identical runs disagree")
check(key(first[0]) != key(first[1]), "the ranks' inputs should differ")
print("two ranks: 15 collectives each, outputs agree across ranks and across two runs")
