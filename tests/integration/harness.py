"""Shared pieces of the integration tests: where the build is, running a
command with and without the preloaded library, and reading the report."""
import json
import os
import signal
import subprocess
import sys
import tempfile

BUILD = os.environ["VPROF_BUILD_ROOT"]
LIBVPROF = os.path.join(BUILD, "interpose", "libvprof.so")
STANDINS = os.path.join(BUILD, "tests", "standins")
VPROF = os.path.join(BUILD, "reporter", "vprof")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def base_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VPROF_") or k == "VPROF_BUILD_ROOT"}
    env.pop("LD_PRELOAD", None)
    env["LD_LIBRARY_PATH"] = STANDINS
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(cmd, preload=None, env=None, timeout=120, **kw):
    """Runs cmd; preload is a list of libraries for LD_PRELOAD (or None). In a session of its
    own, so that when it outlasts the timeout every process it started is killed with it (a
    hung forked child would otherwise outlive the test), and TimeoutExpired is raised."""
    env = dict(env or base_env())
    if preload:
        env["LD_PRELOAD"] = ":".join(preload)
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True, **kw) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def report_json(trace_dir, expect_rc=0):
    r = subprocess.run([VPROF, "report", trace_dir, "--format", "json"], capture_output=True,
                       text=True, timeout=120)
    check(r.returncode == expect_rc,
          f"vprof report exit {r.returncode}, expected {expect_rc}: {r.stderr}")
    return json.loads(r.stdout)


def temp_dir(name):
    return tempfile.mkdtemp(prefix=f"vprof-{name}-")


def traces(trace_dir):
    return sorted(f for f in os.listdir(trace_dir) if f.endswith(".vtrace"))


def traced_sim_job(name, ranks, sim_args, env):
    """Runs `sim_launch -n ranks sim_train sim_args` under the preload, collectives as kernels on
    the fake GPU, with `env` added; returns its trace directory. meson's MALLOC_PERTURB_ is
    taken out: it has glibc fill every block handed out or taken back, milliseconds of host work
    a step in the stand-ins' allocations that no setting of a test accounts for."""
    trace_dir = temp_dir(name)
    cmd = [os.path.join(STANDINS, "sim_launch"), "-n", str(ranks),
           os.path.join(STANDINS, "sim_train"), *sim_args]
    job_env = base_env(VPROF_OUTPUT_DIR=trace_dir, FAKE_NCCL_KERNELS=1, **env)
    job_env.pop("MALLOC_PERTURB_", None)
    traced = run(cmd, preload=[LIBVPROF], env=job_env)
    check(traced.returncode == 0, f"{name}: the simulated job failed: {traced.stderr}")
    return trace_dir
