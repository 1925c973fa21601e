"""A real Slurm (one node on this machine, see slurm_cluster.py): a 4-task
simulated job profiled with `srun vprof-slurm` from an sbatch script and
reported with `vprof-slurm --report` (a step of one task per node writing a
node summary, then the merge). The merged report must equal `vprof report` of
the whole folder and agree with the simulator's own logs. Also: another job's
folder is refused, a failing task's exit code comes back through srun.
Skipped (exit 77) when Slurm cannot be installed."""
import json
import os
import re
import subprocess
import sys
import time

from harness import BUILD, base_env, check, temp_dir
from launch_harness import (VPROF, VPROF_SLURM, check_against_simulator, manifest, report_of,
                            without_per_record_analyses,
                            sim_env, sim_train_args)
from slurm_cluster import Cluster, install

SKIP = 77
RANKS = 4

why_not = install()
if why_not:
    print(f"SKIP: no Slurm: {why_not}")
    sys.exit(SKIP)

started = time.time()
root, work, logs = temp_dir("slurm-cluster"), temp_dir("slurm-work"), temp_dir("slurm-logs")
os.chmod(root, 0o700)
script = os.path.join(work, "job.sh")
# The sbatch example of docs/slurm-and-launchers.md, with the simulated trainer as the program.
with open(script, "w") as f:
    f.write(f"""#!/bin/bash
#SBATCH --nodes=1 --ntasks-per-node={RANKS} --output=job.out
set -e
srun vprof-slurm --flush-ms 50 -- {' '.join(sim_train_args(5, logs))}
srun --ntasks=1 vprof-slurm -- true   # a second step of the same job, into the same folder
vprof-slurm --report --report-format json --warmup 2
""")

with Cluster(root) as cluster:
    env = cluster.env(sim_env(VPROF_BIN=VPROF, VPROF_SIM_RDZV=temp_dir("slurm-rdzv"),
                              PATH=os.path.dirname(VPROF_SLURM) + ":" + os.environ["PATH"]))
    r = subprocess.run(["sbatch", "--wait", script], cwd=work, env=env, capture_output=True,
                       text=True, timeout=120)
    job_out = open(os.path.join(work, "job.out")).read() if os.path.exists(
        os.path.join(work, "job.out")) else ""
    check(r.returncode == 0, f"job failed: {r.returncode} {r.stderr}\n{job_out}\n{cluster.logs()}")
    job_id = re.search(r"Submitted batch job (\d+)", r.stdout).group(1)
    folder = os.path.join(work, f"vprof-{job_id}")

    # Node by node, merged: exactly the report of the whole folder, with the
    # --warmup the report step was given (passed on to each node's summary).
    with open(os.path.join(folder, "report.json")) as f:
        merged = json.load(f)
    check(merged == without_per_record_analyses(report_of(folder, "--warmup", "2")),
          "the merged report differs from `vprof report --warmup 2` of DIR")
    check(merged["steps"]["warmup_steps"] == 2, f"steps {merged['steps'].get('window')}")
    check(os.path.exists(os.path.join(folder, "summaries", f"{cluster.node}.vsummary")),
          "no node summary")
    check(merged["all_inputs_whole"], "a trace is not whole")
    check_against_simulator(merged, logs, RANKS)
    ranks = [p for p in merged["processes"] if p["is_rank"]]
    check(all(p["rank_source"] == "header" for p in ranks), "ranks not from SLURM_PROCID")

    m = manifest(folder)
    check(m["run_id"] == f"slurm-{job_id}" and m["launcher"] == "vprof slurm", m["run_id"])
    slurm = m["slurm"]
    check((slurm["job_id"], slurm["step_id"], slurm["node_list"], slurm["tasks_per_node"],
           slurm["tasks"]) == (job_id, "0", cluster.node, str(RANKS), RANKS), f"slurm {slurm}")
    check(m["command"][0].endswith("sim_train"), "the first step's command")
    records = sorted(os.listdir(os.path.join(folder, "tasks")))
    check(records == [f"0.{t}.json" for t in range(RANKS)] + ["1.0.json"], f"tasks {records}")
    for t in range(RANKS):
        task = manifest(os.path.join(folder, "tasks"), f"0.{t}.json")
        check(task["exit_status"] == 0 and task["slurm"]["proc_id"] == t and
              task["hosts"] == [cluster.node], f"task {t}: {task}")

    # Another job may not write into this job's folder.
    other = subprocess.run(["srun", "-n", "1", "vprof-slurm", "--output", folder, "--", "true"],
                           cwd=work, env=env, capture_output=True, text=True, timeout=60)
    check(other.returncode != 0 and folder in other.stderr and f"Slurm job {job_id}" in other.stderr,
          f"another job's folder: {other.returncode} {other.stderr}")

    # A failing command's exit code comes back through vprof-slurm and srun.
    failing = subprocess.run(["srun", "-n", "2", "vprof-slurm", "--", "sh", "-c", "exit 3"],
                             cwd=work, env=env, capture_output=True, text=True, timeout=60)
    check(failing.returncode == 3, f"failing task: {failing.returncode} {failing.stderr}")

print(f"ok: Slurm job {job_id}: {RANKS} tasks profiled, node summary merged into the whole "
      f"report; refusals and exit codes right ({time.time() - started:.1f} s)")
