"""A process whose argv and NCCL_* values hold bytes that are not UTF-8 keeps
its trace: vprof writes them repaired (U+FFFD), the report reads every packet,
and every report format decodes as UTF-8 with Python's own strict decoder."""
import json
import os
import subprocess

from harness import BUILD, LIBVPROF, VPROF, base_env, check, temp_dir, traces

PROGRAM = os.path.join(BUILD, "tests", "integration", "nccl_single_rank")

trace_dir = temp_dir("text-fields")
env = {k.encode(): v.encode() for k, v in base_env(VPROF_OUTPUT_DIR=trace_dir).items()}
env[b"LD_PRELOAD"] = LIBVPROF.encode()
env[b"NCCL_SOCKET_IFNAME"] = b"eth\xff"
# argv[2] is the seconds to sleep: atoi reads 0.
r = subprocess.run([PROGRAM.encode(), b"3", b"0\xff\xc3"], env=env, capture_output=True,
                   timeout=120)
check(r.returncode == 0, f"program failed under vprof: {r.returncode} {r.stderr!r}")
check(len(traces(trace_dir)) == 1, f"traces: {traces(trace_dir)}")

outputs = {}
for fmt in ("text", "json", "markdown", "html"):
    rep = subprocess.run([VPROF, "report", trace_dir, "--format", fmt], capture_output=True,
                         timeout=120)
    check(rep.returncode == 0, f"vprof report --format {fmt}: exit {rep.returncode}: {rep.stderr!r}")
    try:
        outputs[fmt] = rep.stdout.decode("utf-8")
        rep.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"--format {fmt} is not UTF-8: {e}")

report = json.loads(outputs["json"])
proc = report["processes"][0]
check(proc["whole"] and proc["unreadable_packets"] == 0, f"trace not whole: {proc}")
# 3 all-reduce calls, a broadcast, and the communicator's creation and destruction.
check(proc["nccl_events"] >= 4, f"the process lost its events: {proc}")
check("eth\ufffd" in json.dumps(report, ensure_ascii=False),
      "the NCCL_SOCKET_IFNAME value is not in the report, repaired")
print(f"ok: trace whole with {proc['nccl_events']} NCCL events; 4 report formats are UTF-8")
