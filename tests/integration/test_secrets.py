"""What vprof keeps out of what it writes: `vprof run` of an NCCL program given a secret option
in both spellings, a URL with a password in argv and in a kept variable, and a secret-named
variable in lower case. No secret appears in any byte of the run's folder (traces, manifest,
report); the recorded command and variables keep everything else; every file is 0600."""
import json
import os
import subprocess

from harness import BUILD, VPROF, base_env, check, temp_dir

PROGRAM = os.path.join(BUILD, "tests", "integration", "nccl_single_rank")
SECRETS = ["sk-live-4242", "hf_tokenvalue", "pg-pass-9", "lower-case-secret", "url-env-pass"]

out = os.path.join(temp_dir("secrets"), "run")
env = base_env(VIME_db_password=SECRETS[3], VIME_STORE=f"s3://keyid:{SECRETS[4]}@bucket/ckpt")
# nccl_single_rank reads argv[1] (calls) and argv[2] (seconds to sleep); atoi stops at the rest.
cmd = [VPROF, "run", "--output", out, "--", PROGRAM, "3", "0",
       f"--api-key={SECRETS[0]}", "--hf-token", SECRETS[1], f"postgres://trainer:{SECRETS[2]}@db/x"]
r = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
check(r.returncode == 0, f"vprof run failed: {r.returncode} {r.stderr!r}")

files = sorted(os.path.join(out, f) for f in os.listdir(out))
check(any(f.endswith(".vtrace") for f in files) and os.path.join(out, "manifest.json") in files,
      f"files written: {files}")
for path in files:
    data = open(path, "rb").read()
    for secret in SECRETS:
        check(secret.encode() not in data, f"{path} holds the secret {secret!r}")

manifest = json.load(open(os.path.join(out, "manifest.json")))
check(manifest["command"][-5:] == ["0", "--api-key=<redacted>", "--hf-token", "<redacted>",
                                   "postgres://trainer:<redacted>@db/x"],
      f"manifest command: {manifest['command']}")
trace = b"".join(open(f, "rb").read() for f in files if f.endswith(".vtrace"))
check(b"s3://keyid:<redacted>@bucket/ckpt" in trace, "the kept variable lost more than its password")
check(b"--api-key=<redacted>" in trace and b"postgres://trainer:<redacted>@db/x" in trace,
      "the trace's argv is not the redacted command line")
for path in files:
    if path.endswith(".vtrace"):
        mode = os.stat(path).st_mode & 0o777
        check(mode == 0o600, f"{path} has mode {oct(mode)}")
print(f"ok: {len(SECRETS)} secrets absent from {len(files)} files; traces 0600")
