"""A one-node Slurm cluster on this machine for a test: munged, slurmctld and
slurmd started from a private temporary folder (key, state, spool, logs) on
free ports, and stopped again by their process ids."""
import os
import shutil
import socket
import subprocess
import time

DAEMONS = ["munged", "slurmctld", "slurmd", "srun", "sbatch", "sinfo"]
PACKAGES = ["slurm-wlm", "munge"]


def missing_programs():
    return [p for p in DAEMONS if shutil.which(p) is None]


def install():
    """Installs Debian's Slurm and MUNGE when absent; returns why it could not, or ""."""
    if not missing_programs():
        return ""
    if os.geteuid() != 0:
        return f"{', '.join(missing_programs())} missing and not root to install {PACKAGES}"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "--no-install-recommends"] + PACKAGES
    r = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:  # a stale package list: refresh it once
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600)
        r = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    if missing_programs():
        return f"apt-get install {' '.join(PACKAGES)} failed: {r.stderr.strip()[-500:]}"
    return ""


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class Cluster:
    """Use as a context manager: the daemons stop on the way out, also after a failure."""

    def __init__(self, root, cpus=8):
        self.root = root
        self.node = socket.gethostname()
        self.conf = os.path.join(root, "slurm.conf")
        self.socket = os.path.join(root, "munge.socket")
        self.processes = []
        ctld_port, slurmd_port = free_ports(2)
        for sub in ("state", "spool", "munge"):
            os.makedirs(os.path.join(root, sub), mode=0o700)
        key = os.path.join(root, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.key = key
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=vproftest
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self.socket}
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes={self.node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
""")

    def env(self, base):
        return dict(base, SLURM_CONF=self.conf)

    def _start(self, command):
        log = open(os.path.join(self.root, os.path.basename(command[0]) + ".out"), "w")
        self.processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                               env=self.env(os.environ)))

    def __enter__(self):
        r = self.root
        self._start(["munged", "--foreground", "--force", f"--socket={self.socket}",
                     f"--key-file={self.key}", f"--log-file={r}/munge/munged.log",
                     f"--pid-file={r}/munge/munged.pid", f"--seed-file={r}/munge/munged.seed"])
        self._start(["slurmctld", "-D", "-i", "-f", self.conf])
        self._start(["slurmd", "-D", "-f", self.conf, "-N", self.node])
        self._wait_for_node()
        return self

    def _wait_for_node(self, timeout=30):
        deadline = time.time() + timeout
        state = ""
        while time.time() < deadline:
            for p in self.processes:
                if p.poll() is not None:
                    raise RuntimeError(f"{p.args[0]} exited with {p.returncode}: {self.logs()}")
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env(os.environ),
                               capture_output=True, text=True)
            state = r.stdout.strip()
            if state == "idle":
                return
            time.sleep(0.2)
        raise RuntimeError(f"node not idle after {timeout} s (state '{state}'): {self.logs()}")

    def logs(self):
        text = []
        for name in ("slurmctld.out", "slurmd.out", "munged.out"):
            path = os.path.join(self.root, name)
            if os.path.exists(path):
                text.append(f"--- {name}\n" + open(path).read()[-2000:])
        return "\n".join(text)

    def __exit__(self, *exc):
        for p in reversed(self.processes):
            if p.poll() is None:
                p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        return False
