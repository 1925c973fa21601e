"""The files `vprof run` and `vprof report` create and read in a run's folder,
which others may write into: report and manifest private (0600); a symbolic
link planted at their names is not written through; a manifest.json that is
a FIFO or a link to /dev/zero is refused at once with a message naming it,
without hanging or exhausting memory."""
import os
import resource
import stat
import subprocess

from harness import check, fail, temp_dir
from launch_harness import VPROF, manifest, vprof

PROMPTLY = 30  # seconds; reading a FIFO without a writer would wait for ever


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def limited_memory():
    # Reading /dev/zero into memory would fail here rather than call the OOM killer.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run_promptly(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=PROMPTLY,
                              preexec_fn=limited_memory)
    except subprocess.TimeoutExpired:
        fail(f"{' '.join(args)} still running after {PROMPTLY} s")


os.umask(0o022)  # the usual one, under which files were 0644
work = temp_dir("run-files")

# Report and manifest are private.
folder = os.path.join(work, "plain")
r = vprof(["run", "--report", "--output", folder, "--", "true"])
check(r.returncode == 0, r.stderr)
for name in ("manifest.json", "report.txt"):
    check(mode_of(os.path.join(folder, name)) == 0o600,
          f"{name} has mode {oct(mode_of(os.path.join(folder, name)))}, not 0600")
check(not [f for f in os.listdir(folder) if f.startswith(".")], f"left behind: {os.listdir(folder)}")

# A link planted at the report's name: its target is untouched, the link is
# named as refused and the run's status is still its command's.
folder = os.path.join(work, "linked-report")
os.makedirs(folder)
victim = os.path.join(work, "victim")
with open(victim, "w") as f:
    f.write("precious")
report = os.path.join(folder, "report.txt")
os.symlink(victim, report)
r = vprof(["run", "--report", "--output", folder, "--", "true"])
check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
with open(victim) as f:
    check(f.read() == "precious", "the link's target was overwritten")
check(f"{report} is a symbolic link, not a regular file" in r.stderr, r.stderr)
check(manifest(folder)["report_exit_status"] == 1, "report_exit_status")

# manifest.json a FIFO, or a link to /dev/zero: vprof run refuses the folder
# at once, naming the file; vprof report, which does not read it, reports.
for kind, make in (("a FIFO", os.mkfifo), ("a symbolic link", lambda p: os.symlink("/dev/zero", p))):
    folder = os.path.join(work, kind.split()[-1])
    os.makedirs(folder)
    manifest_path = os.path.join(folder, "manifest.json")
    make(manifest_path)
    for force in ([], ["--force"]):
        r = run_promptly([VPROF, "run", *force, "--output", folder, "--", "true"])
        check(r.returncode == 1, f"vprof run {force} with {kind} manifest: exit {r.returncode}")
        check(f"{manifest_path} is {kind}, not a regular file" in r.stderr, r.stderr)
    check(os.listdir(folder) == ["manifest.json"], f"wrote into a refused folder: {os.listdir(folder)}")
    r = run_promptly([VPROF, "report", folder])
    check(r.returncode != 0 and "no *.vtrace files" in r.stderr, f"{r.returncode} {r.stderr}")

print("ok: a run's folder files are private, never written through links, FIFOs and devices refused")
