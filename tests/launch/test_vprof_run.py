"""`vprof run`: a 4-rank simulated job profiled with one word in front of its
command (its report checked against the simulator's own logs), the manifest,
the environment the command gets, exit statuses passed through, and the
refusals: another run's folder, bad values, no libvprof.so."""
import json
import os
import re
import shutil
import socket
import subprocess

from harness import LIBVPROF, base_env, check, temp_dir, traces
from launch_harness import (LAUNCH_BUILD, SIM_LAUNCH, VPROF, check_against_simulator, manifest,
                            report_of, sim_env, sim_train_args, vprof)

RANKS = 4
PROBE = os.path.join(LAUNCH_BUILD, "libinjection_probe.so")  # a harmless library to preload

# The simulated job, with a report written into the folder.
work, logs = temp_dir("run"), temp_dir("run-logs")
folder = os.path.join(work, "job")
r = vprof(["run", "--flush-ms", "50", "--report", "--report-format", "json", "--output", folder,
           "--", SIM_LAUNCH, "-n", str(RANKS)] + sim_train_args(5, logs), env=sim_env())
check(r.returncode == 0, f"vprof run failed: {r.returncode} {r.stderr}")
check(r.stdout.startswith("sim_train: 4 ranks, 5 steps"), f"the command's output: {r.stdout}")
with open(os.path.join(folder, "report.json")) as f:
    written = json.load(f)
check(written == report_of(folder), "report.json differs from `vprof report` of the folder")
check(written["all_inputs_whole"], "a trace is not whole")
check_against_simulator(written, logs, RANKS)
# The Summary follows the command's output when the job ends, with the Verdict first.
summary = r.stdout[r.stdout.index("Summary (→ the section behind each line)"):]
check(summary.splitlines()[1].startswith("  Verdict: "), f"the Summary printed: {summary[:300]}")

# --report-format html: report.html, the same page `vprof report --format html` writes.
html_folder = os.path.join(work, "html")
r = vprof(["run", "--report", "--report-format", "html", "--output", html_folder, "--",
           SIM_LAUNCH, "-n", "2"] + sim_train_args(3, temp_dir("run-html-logs")), env=sim_env())
check(r.returncode == 0, f"vprof run --report-format html failed: {r.stderr}")
with open(os.path.join(html_folder, "report.html")) as f:
    page = f.read()
check(page.startswith("<!DOCTYPE html>") and "Fast-path candidates" in page, page[:200])
check(manifest(html_folder)["report_file"] == os.path.join(html_folder, "report.html"),
      manifest(html_folder)["report_file"])

m = manifest(folder)
check(m["command"][0] == SIM_LAUNCH and m["command"][-1] == logs, f"command {m['command']}")
check(m["exit_status"] == 0 and m["signal"] is None, f"end {m['exit_status']} {m['signal']}")
check(m["start_time"] <= m["end_time"], "end before start")
check(m["hosts"] == [socket.gethostname()], f"hosts {m['hosts']}")
check(m["output_directory"] == folder, m["output_directory"])
check(m["settings"]["VPROF_FLUSH_MS"] == "50" and m["settings"]["VPROF_OUTPUT_DIR"] == folder and
      all(name.startswith("VPROF_") for name in m["settings"]), m["settings"])
check(os.path.samefile(m["library"], LIBVPROF), f"library {m['library']}")
check(m["vprof_version"] and m["run_id"], "no version or run id")
check(m["injection"]["LD_PRELOAD"] == {"found": None, "value": m["library"], "set_by_vprof": True},
      m["injection"]["LD_PRELOAD"])
check(m["injection"]["CUDA_INJECTION64_PATH"]["set_by_vprof"], "CUDA_INJECTION64_PATH not set")
check(m["report_exit_status"] == 0 and m["report_file"] == os.path.join(folder, "report.json"),
      f"report {m['report_exit_status']} {m['report_file']}")

# A command that cannot start: exit 127, as a shell's, and no folder left behind.
cwd = temp_dir("run-missing")
r = vprof(["run", "--", "/no/such/command"], cwd=cwd)
check(r.returncode == 127 and "command not found: /no/such/command" in r.stderr,
      f"{r.returncode} {r.stderr}")
r = vprof(["run", "--", "no-such-command-anywhere"], cwd=cwd)
check(r.returncode == 127 and "command not found" in r.stderr, f"{r.returncode} {r.stderr}")
check(os.listdir(cwd) == [], f"left behind: {os.listdir(cwd)}")

# Without --output: ./vprof-<UTC time>-<suffix>/, named by the run id.
cwd = temp_dir("run-cwd")
r = vprof(["run", "--", "true"], cwd=cwd)
check(r.returncode == 0, r.stderr)
made = os.listdir(cwd)
check(len(made) == 1 and re.fullmatch(r"vprof-\d{8}T\d{6}Z-[0-9a-f]{4}", made[0]), f"made {made}")
check(manifest(os.path.join(cwd, made[0]))["run_id"] == made[0][len("vprof-"):], "run id")

# A preload already set stays, behind libvprof; another tool's injection library is kept.
show = ["sh", "-c", 'echo "$LD_PRELOAD|$CUDA_INJECTION64_PATH|${NVTX_INJECTION64_PATH-unset}"']
env = base_env(LD_PRELOAD=PROBE, CUDA_INJECTION64_PATH="/opt/other/libtool.so")
out = os.path.join(work, "env")
r = vprof(["run", "--output", out, "--"] + show, env=env)
check(r.returncode == 0, r.stderr)
lib = manifest(out)["library"]
# NVTX's hook was free, so it names libvprof.
check(r.stdout.strip() == f"{lib}:{PROBE}|/opt/other/libtool.so|{lib}", f"saw {r.stdout}")
injection = manifest(out)["injection"]
check(injection["LD_PRELOAD"]["found"] == PROBE, injection)
check(injection["CUDA_INJECTION64_PATH"] == {"found": "/opt/other/libtool.so",
                                             "value": "/opt/other/libtool.so",
                                             "set_by_vprof": False}, injection)

# Exit statuses pass through unchanged, --report or not; a death by signal is 128+N.
for args, want, signal in [(["sh", "-c", "exit 7"], 7, None),
                           (["--report", "sh", "-c", "exit 7"], 7, None),
                           (["sh", "-c", "kill -KILL $$"], 137, 9)]:
    out = temp_dir("run-status")
    r = vprof(["run", "--output", out] + args)
    check(r.returncode == want, f"{args}: exit {r.returncode}, expected {want}: {r.stderr}")
    m = manifest(out)
    check((m["exit_status"], m["signal"]) == (want, signal), f"{args}: manifest {m}")

# Another run's folder is refused, naming it and that run; --force takes it.
first_id = manifest(folder)["run_id"]
r = vprof(["run", "--output", folder, "--", "true"])
check(r.returncode == 1 and folder in r.stderr and first_id in r.stderr, f"{r.returncode} {r.stderr}")
r = vprof(["run", "--force", "--output", folder, "--", "true"])
check(r.returncode == 0 and manifest(folder)["run_id"] != first_id, f"--force: {r.stderr}")

# Values libvprof would reject, and no command, are usage errors.
for args in (["--flush-ms", "5", "true"], ["--log-level", "loud", "true"], ["--output", out]):
    r = vprof(["run"] + args)
    check(r.returncode == 2 and r.stderr.startswith("vprof: run: "), f"{args}: {r.returncode}")

# A bad VPROF_* variable in the environment is refused before anything starts, named with what
# was expected, as libvprof would refuse it in every process; no folder is made.
refused_out = os.path.join(temp_dir("run-refused"), "t")
for name, value in (("VPROF_CUPTI_KINDS", "kernels"), ("VPROF_LOG_LEVEL", "loud")):
    r = vprof(["run", "--output", refused_out, "true"], env=base_env(**{name: value}))
    check(r.returncode == 1 and r.stderr.startswith(f"vprof: run: {name}='{value}' is invalid: expected"),
          f"{name}={value}: exit {r.returncode}: {r.stderr}")
    check(not os.path.exists(refused_out), f"{name}={value}: {refused_out} was made")
# The option given wins over the environment's value, as it does in the processes.
r = vprof(["run", "--log-level", "warn", "--output", refused_out, "true"],
          env=base_env(VPROF_LOG_LEVEL="loud"))
check(r.returncode == 0, f"--log-level over VPROF_LOG_LEVEL=loud: exit {r.returncode}: {r.stderr}")

# libvprof.so: --library that does not exist; none beside a vprof elsewhere
# (the error names both places); the install layout <prefix>/bin, <prefix>/lib.
r = vprof(["run", "--library", "/nonexistent/libvprof.so", "true"])
check(r.returncode == 1 and "/nonexistent/libvprof.so" in r.stderr, r.stderr)
prefix = temp_dir("run-prefix")
os.makedirs(os.path.join(prefix, "bin"))
shutil.copy(VPROF, os.path.join(prefix, "bin", "vprof"))
moved = [os.path.join(prefix, "bin", "vprof"), "run", "--output", os.path.join(prefix, "t"), "true"]
r = subprocess.run(moved, env=base_env(), capture_output=True, text=True)
check(r.returncode == 1, f"exit {r.returncode}")
for tried in (os.path.join(prefix, "interpose", "libvprof.so"),
              os.path.join(prefix, "lib", "libvprof.so")):
    check(tried in r.stderr, f"error does not name {tried}: {r.stderr}")
os.makedirs(os.path.join(prefix, "lib"))
shutil.copy(LIBVPROF, os.path.join(prefix, "lib", "libvprof.so"))
r = subprocess.run(moved, env=base_env(), capture_output=True, text=True)
check(r.returncode == 0 and len(traces(os.path.join(prefix, "t"))) == 1, r.stderr)
print("ok: vprof run profiles, records, passes exit statuses through and refuses bad input")
