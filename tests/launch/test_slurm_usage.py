"""vprof-slurm outside a Slurm job, and misused: clear errors, non-zero exits,
naming the variables it expects. Needs no Slurm installed."""
import os
import subprocess

from harness import base_env, check, temp_dir
from launch_harness import VPROF, VPROF_SLURM


def vprof_slurm(args, **env):
    return subprocess.run([VPROF_SLURM] + args, env=base_env(VPROF_BIN=VPROF, **env),
                          capture_output=True, text=True, timeout=60, cwd=temp_dir("slurm-usage"))


r = vprof_slurm(["--", "true"])
check(r.returncode == 2, f"outside a job: exit {r.returncode}")
for name in ("SLURM_JOB_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID"):
    check(name in r.stderr, f"the error does not name {name}: {r.stderr}")

r = vprof_slurm(["--", "true"], SLURM_JOB_ID="7", SLURM_PROCID="0")
check(r.returncode == 2 and "SLURM_LOCALID, SLURM_NODEID are not" in r.stderr, r.stderr)

r = vprof_slurm(["--report"])
check(r.returncode == 2 and "SLURM_JOB_ID" in r.stderr, f"--report outside a job: {r.stderr}")

r = vprof_slurm(["--report", "--", "true"], SLURM_JOB_ID="7")
check(r.returncode == 2 and "after the srun step" in r.stderr, f"--report with a command: {r.stderr}")

r = vprof_slurm(["--help"])
check(r.returncode == 0 and "#SBATCH" in r.stdout and "vprof-slurm --report" in r.stdout,
      "--help lacks the sbatch example")

r = subprocess.run([VPROF_SLURM, "--help"], env=base_env(VPROF_BIN="/nonexistent/vprof"),
                   capture_output=True, text=True)
check(r.returncode == 1 and "VPROF_BIN=/nonexistent/vprof" in r.stderr, r.stderr)
print("ok: vprof-slurm refuses to run outside a job, names what it needs")
