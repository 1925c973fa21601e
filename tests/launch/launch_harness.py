"""What the launcher tests share: the vprof command, the simulated training
job, and what the simulator's own logs say it did (the ground truth a report
is checked against)."""
import collections
import json
import os
import subprocess

from harness import BUILD, STANDINS, base_env, check

VPROF = os.path.join(BUILD, "reporter", "vprof")
VPROF_SLURM = os.path.join(os.environ["VPROF_SOURCE_ROOT"], "scripts", "vprof-slurm")
LAUNCH_BUILD = os.path.join(BUILD, "tests", "launch")
SIM_TRAIN = os.path.join(STANDINS, "sim_train")
SIM_LAUNCH = os.path.join(STANDINS, "sim_launch")
SLOW_RANK = 3


def vprof(args, env=None, cwd=None, timeout=120):
    return subprocess.run([VPROF] + args, env=env or base_env(), cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def manifest(folder, name="manifest.json"):
    with open(os.path.join(folder, name)) as f:
        return json.load(f)


def sim_train_args(steps, log_dir):
    """sim_train with a slow link (so transfer time dominates on 2 cores) and a slow rank."""
    return [SIM_TRAIN, "--steps", str(steps), "--bucket-elems", "65536", "--slow-rank",
            str(SLOW_RANK), "--slow-ms", "2", "--log-dir", log_dir]


def sim_env(**extra):
    return base_env(FAKE_NCCL_BUSBW_GBPS=2, **extra)


def report_of(folder, *options):
    r = vprof(["report", folder, "--format", "json", *options])
    check(r.returncode in (0, 3), f"vprof report {folder}: {r.returncode} {r.stderr}")
    return json.loads(r.stdout)


def without_per_record_analyses(report):
    """The report less what node summaries do not carry: collectives'
    cross-rank GPU time and the collective clock check need every rank's
    records in one reader (reporter/README.md, "Node by node"). Steps and
    candidates they carry."""
    report = dict(report)
    for comm in report["communicators"]:
        for op in comm["ops"]:
            op.update(collective_gpu_calls=0, collective_gpu_mean_ns=None,
                      collective_gpu_median_ns=None, collective_busbw_gbps=None)
    report["time_source"] = dict(report["time_source"], collective_reference="", processes=[])
    return report


def check_against_simulator(report, log_dir, ranks):
    """The report's ranks, collective counts per communicator and op, and slowest
    rank, against the simulator's logs of every call it made."""
    calls = {}
    for r in range(ranks):
        with open(os.path.join(log_dir, f"sim.rank{r}.jsonl")) as f:
            calls[r] = [json.loads(line) for line in f]
    got_ranks = sorted(p["rank"] for p in report["processes"] if p["is_rank"])
    check(got_ranks == list(range(ranks)), f"ranks {got_ranks}")

    want = collections.Counter((c["comm"], c["op"]) for c in calls[0])
    label = {"ncclCommInitRank": "world", "ncclCommSplit": "wsync"}
    got = collections.Counter()
    for comm in report["communicators"]:
        check(not comm["incomplete"], f"incomplete collectives in {comm['comm_id']}")
        for op in comm["ops"]:
            got[(label[comm["created_by"]], op["op"])] += op["count"]
    check(got == want, f"collectives {dict(got)} != simulator's {dict(want)}")

    enters = collections.defaultdict(dict)  # all-reduce seq -> rank -> enter
    for r, rows in calls.items():
        for c in rows:
            if c["comm"] == "world" and c["op"] == "ncclAllReduce":
                enters[c["seq"]][r] = c["enter_ns"]
    last = collections.Counter(max(by_rank, key=by_rank.get) for by_rank in enters.values())
    slowest = last.most_common(1)[0][0]
    check(slowest == SLOW_RANK, f"the simulator's own slowest rank is {slowest}")
    world = next(c for c in report["communicators"] if c["created_by"] == "ncclCommInitRank")
    all_reduce = next(o for o in world["ops"] if o["op"] == "ncclAllReduce")
    check(all_reduce["most_often_last"]["rank"] == slowest,
          f"report names rank {all_reduce['most_often_last']} last, simulator {slowest}")
