"""A process whose argv and NCCL_* values hold bytes that are not UTF-8 keeps
its trace: vprof writes them repaired (U+FFFD), the report reads every packet,
and every report format decodes as UTF-8 with Python's own strict decoder.
A process given a 1 MiB command line and 10,000 NCCL_* variables is profiled
too: its RunHeader holds them up to vprof's caps, and the report says what
the caps left out."""
import json
import os
import subprocess

from harness import (BUILD, LIBVPROF, VPROF, base_env, check, report_json, run, temp_dir,
                     traces)

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

# 16 arguments of 64 KiB (Linux takes at most 128 KiB an argument) and 10,000 variables of 53
# bytes each (530,000 bytes): both past their caps (64 KiB of argv, 256 KiB of names and values).
big_dir = temp_dir("header-caps")
big_env = base_env(VPROF_OUTPUT_DIR=big_dir)
big_env.update({f"NCCL_ZZ_{i:05d}": "v" * 40 for i in range(10000)})
big = run([PROGRAM, "3", "0"] + ["a" * 65536] * 16, preload=[LIBVPROF], env=big_env)
check(big.returncode == 0, f"program failed under vprof: {big.returncode} {big.stderr[-500:]!r}")
check("profiling is off" not in big.stderr, f"vprof switched itself off: {big.stderr[-500:]!r}")
check(len(traces(big_dir)) == 1, f"traces: {traces(big_dir)}")
big_proc = report_json(big_dir)["processes"][0]
check(big_proc["whole"] and big_proc["nccl_events"] >= 4, f"not profiled: {big_proc}")
# The program's path and "3", "0" fit: the first 64 KiB argument is cut, the other 15 left out.
check("16 arguments cut or left out past the first 64.0 KiB of argv" in big_proc["problem"],
      f"argv's cut not stated: {big_proc['problem']}")
check(" variables left out past the first 256 KiB of the environment" in big_proc["problem"],
      f"the environment's cut not stated: {big_proc['problem']}")
left_out = int(big_proc["problem"].split(" variables left out")[0].split()[-1].replace(",", ""))
# At least the NCCL_ZZ_* variables past 256 KiB of theirs; at most those and every kept
# variable sorting after them (SLURM_, TORCH_, VIME_, VPROF_ ...).
kept_after = sum(1 for k in big_env if k > "NCCL_ZZ_" and k.split("_")[0] + "_" in
                 ("SLURM_", "TORCH_", "TORCHELASTIC_", "VIME_", "VPROF_", "OMPI_"))
check(10000 - (256 * 1024) // 53 <= left_out <= 10000 + kept_after,
      f"{left_out} variables left out")
print(f"ok: trace whole with {proc['nccl_events']} NCCL events; 4 report formats are UTF-8; "
      f"a 1 MiB argv and 10,000 variables profiled, {left_out} variables left out")
