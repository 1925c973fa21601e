"""Another NCCL interposer preloaded before vprof: the call goes
application -> foreign -> vprof -> NCCL, once each, with no recursion."""
import os

from harness import BUILD, LIBVPROF, base_env, check, report_json, run, temp_dir

trace_dir = temp_dir("foreign")
foreign = os.path.join(BUILD, "tests", "integration", "libforeign_nccl.so")
prog = os.path.join(BUILD, "tests", "integration", "nccl_single_rank")
r = run([prog, "5"], preload=[foreign, LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=trace_dir))
check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
check("nccl_single_rank: 5 all-reduce, value 1.0" in r.stdout, r.stdout)
check("foreign interposer: 5 ncclAllReduce calls" in r.stderr, r.stderr)
rep = report_json(trace_dir)
ops = {o["op"]: o["count"] for c in rep["communicators"] for o in c["ops"]}
check(ops.get("ncclAllReduce") == 5, f"vprof saw {ops}")
check(ops.get("ncclBroadcast") == 1, f"vprof saw {ops}")
print("ok: foreign interposer and vprof both saw 5 all-reduces; NCCL ran them once")
