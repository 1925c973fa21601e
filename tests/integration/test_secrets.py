"""What vprof keeps out of what it writes: `vprof run` of an NCCL program given a secret option
in both spellings and with a value that begins with '-', URLs with passwords (one holding '/',
'#' and '?') in argv and in kept variables (NCCL_* too), positional key=value arguments with
secret keys, and a secret-named variable in lower case. No secret appears in any byte of the run's folder (traces, manifest,
report); the recorded command and variables keep everything else; every file is 0600."""
import json
import os
import subprocess

from harness import BUILD, VPROF, base_env, check, temp_dir

PROGRAM = os.path.join(BUILD, "tests", "integration", "nccl_single_rank")
SECRETS = ["sk-live-4242", "hf_tokenvalue", "pg-pass-9", "lower-case-secret", "url-env-pass",
           "-dashpass", "wandbkey7", "hfpositional8", "dbpass9", "sl/as#h?q", "nccl/pw#x?y"]

out = os.path.join(temp_dir("secrets"), "run")
env = base_env(VIME_db_password=SECRETS[3], VIME_STORE=f"s3://keyid:{SECRETS[4]}@bucket/ckpt",
               NCCL_STORE_URL=f"redis://u:{SECRETS[10]}@kv:6379/0")
# nccl_single_rank reads argv[1] (calls) and argv[2] (seconds to sleep); atoi stops at the rest.
cmd = [VPROF, "run", "--output", out, "--", PROGRAM, "3", "0",
       f"--api-key={SECRETS[0]}", "--hf-token", SECRETS[1], f"postgres://trainer:{SECRETS[2]}@db/x",
       "--password", SECRETS[5], f"wandb.api_key={SECRETS[6]}", f"HF_TOKEN={SECRETS[7]}",
       f"db.password={SECRETS[8]}", f"postgres://u:{SECRETS[9]}@host/db"]
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
check(manifest["command"][-11:] == ["0", "--api-key=<redacted>", "--hf-token", "<redacted>",
                                    "postgres://trainer:<redacted>@db/x", "--password",
                                    "<redacted>", "wandb.api_key=<redacted>",
                                    "HF_TOKEN=<redacted>", "db.password=<redacted>",
                                    "postgres://u:<redacted>@host/db"],
      f"manifest command: {manifest['command']}")
trace = b"".join(open(f, "rb").read() for f in files if f.endswith(".vtrace"))
check(b"s3://keyid:<redacted>@bucket/ckpt" in trace, "the kept variable lost more than its password")
check(b"redis://u:<redacted>@kv:6379/0" in trace, "the NCCL_* variable lost more than its password")
check(b"--api-key=<redacted>" in trace and b"postgres://trainer:<redacted>@db/x" in trace,
      "the trace's argv is not the redacted command line")
for path in files:
    if path.endswith(".vtrace"):
        mode = os.stat(path).st_mode & 0o777
        check(mode == 0o600, f"{path} has mode {oct(mode)}")
print(f"ok: {len(SECRETS)} secrets absent from {len(files)} files; traces 0600")
