"""Ground truth for what fixing a cause buys: pairs of runs of the simulated 4-rank job
(sim_train over the CPU stand-ins), the first with a cause, the second without it or with it
scaled. The projection vprof makes from the first run alone (a candidate's, or `vprof whatif`'s)
must predict the second run's measured median step within 10% (its mean step, the mean the
candidates' times are of, where the pair's steps are unlike one another). Each pair also checks that the
projection moved the step by at least half of what the second run measured, so that a
projection of "no change" cannot pass by the two runs being close."""
import json
import statistics
import subprocess

from harness import VPROF, check, report_json, traced_sim_job

RANKS, STEPS, LAYERS = 4, 20, 8
MIB = 1 << 20
QUIET = ["--slow-rank", "-1", "--sync-every", "0"]
BASE = ["--layers", str(LAYERS), "--bucket-elems", "16384"]

# name: (first run's options and environment, second run's, the projection: a candidate kind,
# or `vprof whatif` arguments).
PAIRS = {
    "late rank and none": (
        (["--bucket-layers", str(LAYERS), "--slow-rank", "1", "--slow-ms", "0",
          "--late-start-ms", "10", "--sync-every", "0"], {}),
        (["--bucket-layers", str(LAYERS), *QUIET], {}),
        {"candidate": "straggler"}),
    "buckets held back and overlapped": (
        # Four buckets of 256 KiB at 1/4 GB/s (1.6 ms each) behind 2 ms backward layers: held
        # until backward ends, all four are exposed; as each is ready, only the last is. Small
        # buckets at a low bandwidth, so that the modelled time, not moving the bytes on the
        # CPU, sets how long each takes.
        (["--bwd-us", "2000", "--bucket-elems", str(MIB // 16), "--late-buckets", *QUIET],
         {"FAKE_NCCL_BUSBW_GBPS": 0.25}),
        (["--bwd-us", "2000", "--bucket-elems", str(MIB // 16), *QUIET],
         {"FAKE_NCCL_BUSBW_GBPS": 0.25}),
        {"candidate": "gradient_buckets"}),
    "weight sync every step and never": (
        (["--slow-rank", "-1", "--sync-every", "1", "--sync-elems", str(MIB // 16)],
         {"FAKE_NCCL_BUSBW_GBPS": 1 / 16}),
        (QUIET, {"FAKE_NCCL_BUSBW_GBPS": 1 / 16}),
        {"candidate": "weight_sync"}),
    "backward at full and half cost": (
        (["--fwd-us", "2000", "--bwd-us", "4000", *QUIET], {}),
        (["--fwd-us", "2000", "--bwd-us", "2000", *QUIET], {}),
        {"whatif": ["--faster", "sim_bwd*=2x"]}),
    # Kernels of 500 µs, each launched 5 ms after the one before; without the gap the step is
    # the GPU's, long enough that the stand-ins' own host noise is a small part of it.
    "host-bound launches and launches at the GPU's pace": (
        (["--fwd-us", "500", "--bwd-us", "500", "--launch-gap-us", "5000", "--bucket-layers",
          str(LAYERS), *QUIET], {}),
        (["--fwd-us", "500", "--bwd-us", "500", "--bucket-layers", str(LAYERS), *QUIET], {}),
        {"candidate": "host_idle", "whatif": ["--no-host-gaps"]}),
    # The same gaps in the first 5 steps only, as a program whose first steps compile: the
    # replay keeps measured steps 2-9, four of them with gaps, the mean is over steps 2-20,
    # four of 19. The saving on the replayed steps, about 36 ms, is more than the mean step;
    # carried to the measured steps by the idle on each, about 15 ms.
    "host-bound first steps and none": (
        (["--fwd-us", "500", "--bwd-us", "500", "--launch-gap-us", "5000", "--launch-gap-steps",
          "5", "--bucket-layers", str(LAYERS), *QUIET], {}),
        (["--fwd-us", "500", "--bwd-us", "500", "--bucket-layers", str(LAYERS), *QUIET], {}),
        {"candidate": "host_idle", "compare": "mean"}),
}


def traced_run(options, env):
    return traced_sim_job("pair", RANKS, ["--steps", str(STEPS), *BASE, *options], env)


def typical_step(report, how):
    """The median full step: the simulated job shares two cores with the test, and a step it
    was descheduled in would move a mean by more than the projection's error. With
    how["compare"] == "mean", the mean full step, which the candidates' times are of."""
    if how.get("compare") == "mean":
        return report["steps"]["ledger"]["mean_step_ns"]
    return report["steps"]["median_step_ns"]


def whatif(name, trace_dir, args):
    r = subprocess.run([VPROF, "whatif", trace_dir, *args, "--format", "json"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{name}: vprof whatif {args} exit {r.returncode}: {r.stderr}")
    answer = json.loads(r.stdout)
    check(answer["projection"] is not None, f"{name}: whatif withheld: {answer['withheld']}")
    return answer["projection"]["saving_ns"]


def projections(name, first_dir, how):
    """What the first run projects, by what asked: {what: (its median step, projected step)}."""
    first = report_json(first_dir)
    replay = first["steps"]["replay"]
    check(replay and not replay["withheld"], f"{name}: the replay's check: {replay}")
    savings = {}
    if "candidate" in how:
        found = [c for c in first["candidates"] if c["kind"] == how["candidate"]]
        check(found, f"{name}: no {how['candidate']} candidate: "
                     f"{[c['kind'] for c in first['candidates']]}")
        check(found[0]["projected_saving_ns"] is not None,
              f"{name}: {how['candidate']} withheld: {found[0]['projection_withheld']}")
        savings[how["candidate"]] = found[0]["projected_saving_ns"]
    if "whatif" in how:
        savings["whatif " + " ".join(how["whatif"])] = whatif(name, first_dir, how["whatif"])
    measured = typical_step(first, how)
    return {what: (measured, measured - saving) for what, saving in savings.items()}


# Each pair in ROUNDS rounds, the two runs in turn, compared by the medians over the rounds: the
# simulated job shares two cores with whatever else the machine runs, and one run in a burst of
# load moves its step by more than the projection's error.
ROUNDS = 3
for name, ((options1, env1), (options2, env2), how) in PAIRS.items():
    rounds, seconds = [], []
    for _ in range(ROUNDS):
        rounds.append(projections(name, traced_run(options1, env1), how))
        seconds.append(typical_step(report_json(traced_run(options2, env2)), how))
    second = statistics.median(seconds)
    for what in rounds[0]:
        measured = statistics.median(r[what][0] for r in rounds)
        projected = statistics.median(r[what][1] for r in rounds)
        print(f"{name}: {what}: first run {measured / 1e6:.2f} ms, projected "
              f"{projected / 1e6:.2f} ms, second run {second / 1e6:.2f} ms (medians of "
              f"{ROUNDS} rounds; second runs {[round(x / 1e6, 2) for x in seconds]})")
        check(abs(projected - second) <= 0.10 * second,
              f"{name}: {what} projects {projected / 1e6:.3f} ms per step, the second run "
              f"measured {second / 1e6:.3f} ms")
        check(measured - projected >= 0.5 * (measured - second),
              f"{name}: {what} saves {(measured - projected) / 1e6:.3f} ms, the runs differ by "
              f"{(measured - second) / 1e6:.3f} ms")
print("ok")
