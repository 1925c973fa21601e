"""Roles that survive Ray: a stand-in Ray worker (retitle_worker.cc) starts as
`python .../default_worker.py --node-ip-address=...`, a command line no role
rule matches, and renames itself the way Ray does through setproctitle. Under
the preload, over the CPU stand-ins with GPU capture, the trace records the
new title and `vprof report` gives the worker the role its title names. A
worker that keeps its command line stays "unknown" (what every Ray worker was
before the title was read again); one whose names tell nothing is told by its
optimizer kernel. One that loaded vLLM's extension module (a stand-in library
copied to site-packages/vllm/_C.abi3.so) is told by it: the writer lists the
loader's objects once a second and at the end."""
import json
import os
import re
import shutil
import subprocess

from harness import (BUILD, LIBVPROF, base_env, check, report_json, run, temp_dir,
                     traces)

WORKER = os.path.join(BUILD, "tests", "integration", "retitle_worker")
TRACE_DUMP = os.path.join(BUILD, "tests", "integration", "trace_dump")
# How Ray starts every worker process (argv[0] is the interpreter's name).
RAY_WORKER_ARGV = ["python", "/venv/lib/python3.12/site-packages/ray/_private/workers/default_worker.py",
                   "--node-ip-address=10.0.0.7"]
TITLE = "ray::MegatronTrainRayActor.train"
EXTENSION = os.path.join(BUILD, "tests", "integration", "librole_extension.so")


def extension_at(name, package_path):
    """The stand-in extension module copied to site-packages/<package_path>; its path."""
    path = os.path.join(temp_dir(f"site-{name}"), "lib", "python3.12", "site-packages",
                        package_path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copy(EXTENSION, path)
    return path


def loaded(trace_dir):
    """The paths the trace lists as loaded, each with when it was read, in order."""
    return [(x["path"], x["observed_ns"]) for x in dump(trace_dir) if x["kind"] == "loaded_library"]


def run_worker(name, **settings):
    """The worker under libvprof with GPU capture; its trace folder."""
    trace_dir = temp_dir(f"title-{name}")
    env = base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_GPU=1, **settings)
    r = run(RAY_WORKER_ARGV, preload=[LIBVPROF], env=env, executable=WORKER)
    return trace_dir, r


def dump(trace_dir):
    files = traces(trace_dir)
    check(len(files) == 1, f"{trace_dir}: traces {files}")
    r = subprocess.run([TRACE_DUMP, os.path.join(trace_dir, files[0])], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, f"trace_dump: {r.returncode} {r.stderr}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def role(trace_dir):
    phases = report_json(trace_dir)["phases"]
    check(len(phases) == 1, f"{trace_dir}: phases {phases}")
    return phases[0]["role"], phases[0]["role_rule"]


# Unrenamed: the command line names no role.
trace_dir, r = run_worker("unrenamed")
check(r.returncode == 0, f"unrenamed worker: {r.returncode} {r.stderr}")
check("vprof" not in r.stderr, f"vprof printed something: {r.stderr}")
check(role(trace_dir) == ("unknown", ""), f"unrenamed worker: {role(trace_dir)}")
check(not [x for x in dump(trace_dir) if x["kind"] == "process_title"],
      "a title recorded for a worker that kept its command line")

# Renamed, then it exits: the title is read as the trace ends (or on the writer's periodic
# reading, if one came between the rename and the exit).
trace_dir, r = run_worker("renamed", RETITLE_TO=TITLE)
check(r.returncode == 0, f"renamed worker: {r.returncode} {r.stderr}")
titles = [x for x in dump(trace_dir) if x["kind"] == "process_title"]
check(len(titles) == 1 and titles[0]["argv"] == TITLE and titles[0]["unrecorded_changes"] == 0,
      f"renamed worker: titles {titles}")
got_role, rule = role(trace_dir)
check(got_role == "train" and re.fullmatch(r"title at (end|\d+\.\d s): argv\[0\] contains 'megatron'",
                                           rule),
      f"renamed worker: role {got_role} ({rule})")
print(f"renamed worker: {got_role} ({rule})")

# Renamed 300 ms after start, past the writer's first reading, then killed by SIGKILL: no end to
# read the title at, so the writer's periodic reading (once a second) must have caught it.
trace_dir, r = run_worker("killed", RETITLE_TO=TITLE, RETITLE_KILL_AFTER_MS=2500,
                          VPROF_FLUSH_MS=100)
check(r.returncode == -9, f"killed worker: exit {r.returncode} {r.stderr}")
titles = [x for x in dump(trace_dir) if x["kind"] == "process_title"]
check(len(titles) == 1 and titles[0]["argv"] == TITLE and not titles[0]["at_end"],
      f"killed worker: titles {titles}")
header = next(x for x in dump(trace_dir) if x["kind"] == "header")
after_start_s = (titles[0]["observed_ns"] - header["start_ns"]) / 1e9
check(0.3 <= after_start_s < 2.5, f"killed worker: title read {after_start_s:.2f} s after start")

# No telling name, an optimizer's kernel: train, by the kernel rule.
trace_dir, r = run_worker("optimizer", RETITLE_KERNEL="optimizer")
check(r.returncode == 0, f"optimizer worker: {r.returncode} {r.stderr}")
check(role(trace_dir) == ("train", "kernel 'multi_tensor_apply_kernel' is of class optimizer"),
      f"optimizer worker: {role(trace_dir)}")
# A Ray worker not yet renamed that loaded vLLM's extension module: rollout, by the library.
vllm_c = extension_at("vllm", "vllm/_C.abi3.so")
trace_dir, r = run_worker("vllm", RETITLE_LOAD=vllm_c)
check(r.returncode == 0, f"vllm worker: {r.returncode} {r.stderr}")
listed = [path for path, _ in loaded(trace_dir)]
check(listed.count(vllm_c) == 1, f"vllm worker: {vllm_c} listed {listed.count(vllm_c)} times")
libc = [p for p in listed if os.path.basename(p).startswith("libc.so")]
check(len(libc) == 1 and len(set(listed)) == len(listed), f"vllm worker: listed {listed}")
got_role, rule = role(trace_dir)
check(got_role == "rollout" and rule.startswith("loaded '") and
      rule.endswith("/vllm/_C.abi3.so' (path contains '/vllm/')"),
      f"vllm worker: role {got_role} ({rule})")
print(f"vllm worker: {got_role} ({rule})")

# Training's libraries first: one that loaded Megatron's helpers and vLLM is train.
helpers = extension_at("megatron", "megatron/core/datasets/helpers_cpp.cpython-312.so")
trace_dir, r = run_worker("both", RETITLE_LOAD=f"{vllm_c}:{helpers}")
check(r.returncode == 0, f"both worker: {r.returncode} {r.stderr}")
got_role, rule = role(trace_dir)
check(got_role == "train" and "(path contains '/megatron/')" in rule,
      f"both worker: role {got_role} ({rule})")

# Loaded 300 ms after start, then killed by SIGKILL: the writer's periodic look listed it.
trace_dir, r = run_worker("vllm-killed", RETITLE_LOAD=vllm_c, RETITLE_KILL_AFTER_MS=2500,
                          VPROF_FLUSH_MS=100)
check(r.returncode == -9, f"killed vllm worker: exit {r.returncode} {r.stderr}")
start_ns = next(x for x in dump(trace_dir) if x["kind"] == "header")["start_ns"]
seen = [(observed - start_ns) / 1e9 for path, observed in loaded(trace_dir) if path == vllm_c]
check(len(seen) == 1 and 0.3 <= seen[0] < 2.5, f"killed vllm worker: listed at {seen} s")
print("PASS")
