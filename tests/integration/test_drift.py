"""`vprof diff --bitwise` on pairs of simulated runs that differ in one known way (drift_ranks,
4 ranks, 6 steps; each step an all-reduce, seq 2s+1, then an all-gather, seq 2s+2): the same run
twice agrees everywhere; NCCL_ALGO=TREE (the fake NCCL then sums the ranks in another order)
first differs at the first all-reduce, class reduction, naming NCCL_ALGO; one ulp added on rank 2
at step 3 is upstream drift at that step's all-reduce, after the all-gather before it agreed; a
bf16 all-reduce is a representation change. Bad inputs get exit 2 (or 3 for a cut trace)."""
import json
import os
import shutil
import subprocess

from harness import BUILD, LIBVPROF, STANDINS, VPROF, base_env, check, run, temp_dir, traces

DRIFT = os.path.join(BUILD, "tests", "integration", "drift_ranks")
RANKS, STEPS = 4, 6


def drift_run(*args, ranks=RANKS, audit=True, **env):
    trace_dir = temp_dir("drift")
    extra = {"VPROF_AUDIT": "fingerprint"} if audit else {}
    r = run([os.path.join(STANDINS, "sim_launch"), "-n", str(ranks), DRIFT, str(STEPS), *args],
            preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_GPU=0, **extra, **env))
    check(r.returncode == 0, f"drift_ranks {args} failed: {r.stderr}")
    return trace_dir


def bitwise(a, b, expect_rc=0):
    r = subprocess.run([VPROF, "diff", "--bitwise", a, b, "--format", "json"], capture_output=True,
                       text=True, timeout=120)
    check(r.returncode == expect_rc, f"diff --bitwise exit {r.returncode}, expected {expect_rc}: {r.stderr}")
    return json.loads(r.stdout) if r.stdout else r.stderr


def first(d):
    f = d["first_difference"]
    return (f["function"], f["seq"]) if f else None


base = drift_run()
same = bitwise(base, drift_run())
check(same["identical"] and same["drift"] == "none", f"the same run twice: {same}")
check(same["compared"] == 2 * STEPS and same["agreed"] == 2 * STEPS, f"counts: {same}")
check(same["settings_differing"] == [], f"settings: {same['settings_differing']}")
check(same["profile"] == "A0" and same["axes"] == [], f"profile: {same}")
print(f"same run twice: {same['compared']} calls agree")

tree = bitwise(base, drift_run(NCCL_ALGO="TREE"))
check(first(tree) == ("ncclAllReduce", 1) and tree["drift"] == "reduction", f"TREE: {tree}")
check(tree["last_agreeing"] is None, f"TREE last agreeing: {tree['last_agreeing']}")
# Later inputs differ only because the first outputs did: the profile is reduction only.
check(tree["axes"] == ["reduction"] and tree["profile"] == "A2", f"TREE profile: {tree}")
check({"name": "NCCL_ALGO", "a": "", "b": "TREE"} in tree["settings_differing"],
      f"TREE settings: {tree['settings_differing']}")
print("NCCL_ALGO=TREE: reduction at the first all-reduce, NCCL_ALGO named")

ulp = bitwise(base, drift_run("--perturb-rank", "2", "--perturb-step", "3"))
check(first(ulp) == ("ncclAllReduce", 2 * 3 + 1) and ulp["drift"] == "upstream", f"ulp: {ulp}")
check(ulp["ranks_differing"] == [2], f"ulp ranks: {ulp['ranks_differing']}")
check((ulp["last_agreeing"]["function"], ulp["last_agreeing"]["seq"]) == ("ncclAllGather", 2 * 3),
      f"ulp last agreeing: {ulp['last_agreeing']}")
check(ulp["agreed"] == 2 * 3, f"ulp agreed: {ulp['agreed']}")
check(ulp["axes"] == ["upstream"] and ulp["profile"] == "A1", f"ulp profile: {ulp}")
print("one ulp on rank 2 at step 3: upstream at seq 7, after seq 6 agreed")

bf16 = bitwise(base, drift_run("--bf16"))
check(first(bf16) == ("ncclAllReduce", 1) and bf16["drift"] == "representation", f"bf16: {bf16}")
check("ncclBfloat16" in bf16["detail"], f"bf16 detail: {bf16['detail']}")
check(bf16["axes"] == ["representation"] and bf16["profile"] == "A3", f"bf16 profile: {bf16}")
print("bf16 all-reduce: representation at the first all-reduce")

# Text for people says the same.
r = subprocess.run([VPROF, "diff", "--bitwise", base, drift_run(NCCL_ALGO="TREE")],
                   capture_output=True, text=True, timeout=120)
check(r.returncode == 0 and "class: reduction" in r.stdout and "NCCL_ALGO: (unset) in A, TREE in B"
      in r.stdout, f"text: {r.stdout}")

# A run contract that declares the pair's profile: `vprof report --strict` holds the run to it.
def declared(profile, run_dir):
    contract = os.path.join(temp_dir("contract"), "contract.json")
    with open(contract, "w") as f:
        json.dump({"version": 1, "consistency": "strict",
                   "alignment": {"profile": profile, "reference": base}}, f)
    r = subprocess.run([VPROF, "report", run_dir, "--contract", contract], capture_output=True,
                       text=True, timeout=120)
    return r.returncode, [l for l in r.stderr.splitlines() if "is declared" in l]


tree_run, ulp_run = drift_run(NCCL_ALGO="TREE"), drift_run("--perturb-rank", "2", "--perturb-step", "3")
rc, lines = declared("A1", tree_run)
check(rc == 4 and len(lines) == 1 and "differ by reduction (the pair is A2)" in lines[0]
      and "first at ncclAllReduce seq 1" in lines[0], f"TREE declared A1: {rc} {lines}")
rc, lines = declared("A1", ulp_run)
check(lines == [], f"one ulp declared A1 (arithmetic only) must keep to it: {lines}")
rc, lines = declared("A0", ulp_run)
check(rc == 4 and len(lines) == 1 and "differ by upstream" in lines[0]
      and "first at ncclAllReduce seq 7" in lines[0], f"one ulp declared A0: {rc} {lines}")
rc, lines = declared("A2", drift_run(audit=False))
check(rc == 4 and len(lines) == 1 and "cannot be compared" in lines[0], f"no evidence: {lines}")
bad = os.path.join(temp_dir("contract"), "bad.json")
with open(bad, "w") as f:
    json.dump({"version": 1, "alignment": {"profile": "A9", "reference": base}}, f)
r = subprocess.run([VPROF, "report", base, "--contract", bad], capture_output=True, text=True)
check(r.returncode == 2 and "alignment.profile" in r.stderr and "A9" in r.stderr, r.stderr)
print("contract alignment: A1 with a reduction change and A0 with drift fail --strict naming the "
      "class and the call; A1 with drift keeps; no evidence fails; a bad profile is named")

# Bad inputs: a run without fingerprints, another number of ranks, other sampling, a cut trace.
msg = bitwise(base, drift_run(audit=False), expect_rc=2)
check("B (" in msg and "not fingerprinted" in msg and "VPROF_AUDIT=fingerprint" in msg, msg)
msg = bitwise(base, drift_run(ranks=2), expect_rc=2)
check("ranks 0, 1, 2, 3" in msg and "ranks 0, 1" in msg, msg)
msg = bitwise(base, drift_run(VPROF_AUDIT_EVERY=2), expect_rc=2)
check("VPROF_AUDIT_EVERY" in msg, msg)
cut = temp_dir("drift-cut")
shutil.rmtree(cut)
shutil.copytree(base, cut)
victim = os.path.join(cut, traces(cut)[-1])
with open(victim, "r+b") as f:
    f.truncate(os.path.getsize(victim) - 40)
d = bitwise(base, cut, expect_rc=3)
check(not d["all_inputs_whole"] and d["compared"] > 0, f"cut: {d}")
print("bad inputs: exit 2 naming the run and the problem; a cut trace compared with exit 3")
