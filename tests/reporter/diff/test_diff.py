#!/usr/bin/env python3
"""`vprof diff` end to end: two runs made from text traces, compared.

test_diff.py --txt2vtrace EXE --vprof EXE --cases DIR --slower DIR

A is the late_rank case (tests/reporter/cases/late_rank/README.md): four
1 MiB all-reduces on two ranks, each 1000 ns, rank 1 late by 100, 300, 200,
400 ns. B (slower_late_rank/) is the same run with each all-reduce 1500 ns and
rank 1 late by 200, 600, 400, 800 ns, on another comm id and other pids.
Expected changes, by hand:
  mean time 1000 → 1500: +500 ns, relative +0.5
  arrival skew mean (100+300+200+400)/4 = 250 → (200+600+400+800)/4 = 500: +250, +1.0
  arrival skew max 400 → 800: +400, +1.0
  busbw (bus factor 1 for 2 ranks) 4194304 B / 4000 ns = 1048.576 GB/s
    → 4194304 / 6000 = 699.0506… GB/s: relative 4000/6000 − 1 = −1/3
  count 4 → 4: change 0, relative 0
  rank 1's mean lateness 250 → 500: +1.0; rank 0's 0 → 0: relative none (A is 0)
"""

import argparse
import json
import pathlib
import resource
import subprocess
import sys
import tempfile
import unittest

OPTIONS = None
ALLREDUCE_ROW = "size 2: ncclAllReduce [1MiB,2MiB)"


def vprof(*args):
    return subprocess.run([OPTIONS.vprof] + [str(arg) for arg in args], capture_output=True,
                          text=True)


def section(diff, key):
    return next(s for s in diff["sections"] if s["section"] == key)


def metrics_of(diff, section_key, item_name):
    item = next(i for i in section(diff, section_key)["items"] if i["item"] == item_name)
    return {m["metric"]: m for m in item["metrics"]}


def write_json(path, value):
    pathlib.Path(path).write_text(json.dumps(value))
    return path


class DiffTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, OPTIONS.cases)
        from run_case import convert_case  # the cases' own converter loop
        cls.scratch = tempfile.TemporaryDirectory(prefix="vprof-diff-test-")
        root = pathlib.Path(cls.scratch.name)
        cls.a = root / "a"
        cls.b = root / "b"
        cls.cut = root / "cut"
        cls.ddp = root / "ddp"
        for folder, source in ((cls.a, pathlib.Path(OPTIONS.cases) / "late_rank"),
                               (cls.b, pathlib.Path(OPTIONS.slower)),
                               (cls.cut, pathlib.Path(OPTIONS.cases) / "cut_trace"),
                               (cls.ddp, pathlib.Path(OPTIONS.cases) / "ddp_step")):
            folder.mkdir()
            convert_case(OPTIONS.txt2vtrace, source, folder)
        cls.root = root

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def diff_json(self, a, b, status=0, *more):
        result = vprof("diff", a, b, "--format", "json", *more)
        self.assertEqual(result.returncode, status, result.stderr)
        return json.loads(result.stdout)

    def report_json(self, folder):
        result = vprof("report", folder, "--format", "json")
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def test_communication_changes(self):
        diff = self.diff_json(self.a, self.b)
        self.assertEqual(diff["a"], {"input": str(self.a), "kind": "trace_directory",
                                     "all_inputs_whole": True})
        row = metrics_of(diff, "communication", ALLREDUCE_ROW)
        self.assertEqual(row["count"]["a"], 4)
        self.assertEqual(row["count"]["change"], 0)
        self.assertEqual(row["count"]["relative"], 0)
        self.assertEqual(row["communicators"]["b"], 1)
        self.assertEqual((row["mean_time_ns"]["a"], row["mean_time_ns"]["b"]), (1000, 1500))
        self.assertEqual(row["mean_time_ns"]["change"], 500)
        self.assertEqual(row["mean_time_ns"]["relative"], 0.5)
        self.assertEqual(row["arrival_skew_mean_ns"]["change"], 250)
        self.assertEqual(row["arrival_skew_mean_ns"]["relative"], 1.0)
        self.assertEqual(row["arrival_skew_max_ns"]["b"], 800)
        self.assertAlmostEqual(row["busbw_gbps"]["a"], 1048.576, places=9)
        self.assertAlmostEqual(row["busbw_gbps"]["b"], 4194304 / 6000, places=9)
        self.assertAlmostEqual(row["busbw_gbps"]["relative"], -1 / 3, places=12)
        self.assertEqual(row["most_often_last"]["a"], "rank 1 (4×)")
        self.assertEqual(row["most_often_last"]["change"], "same")

    def test_lateness_per_rank(self):
        diff = self.diff_json(self.a, self.b)
        late = metrics_of(diff, "lateness", "rank 1")["mean_lateness_ns"]
        self.assertEqual((late["a"], late["b"], late["relative"]), (250, 500, 1.0))
        on_time = metrics_of(diff, "lateness", "rank 0")["mean_lateness_ns"]
        self.assertEqual((on_time["change"], on_time["relative"]), (0, None))

    def test_json_report_input_compares_like_its_directory(self):
        a_json = write_json(self.root / "a.json", self.report_json(self.a))
        from_dirs = self.diff_json(self.a, self.b)
        from_file = self.diff_json(a_json, self.b)
        self.assertEqual(from_file["a"]["kind"], "json_report")
        self.assertEqual(from_file["sections"], from_dirs["sections"])

    def test_section_missing_on_one_side(self):
        report = self.report_json(self.a)
        del report["phases"]
        del report["ranks"]
        a_json = write_json(self.root / "a-without-phases.json", report)
        diff = self.diff_json(a_json, self.b)
        self.assertEqual(section(diff, "phases")["presence"], "only_in_b")
        lateness = section(diff, "lateness")
        self.assertEqual(lateness["presence"], "only_in_b")
        self.assertEqual([i["presence"] for i in lateness["items"]], ["only_in_b"] * 2)
        text = vprof("diff", a_json, self.b)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("only in B (the other report has no such section)", text.stdout)

    def test_large_section_lists_what_changed_most(self):
        # 30 ranks: in B, rank 20's lateness triples, rank 5's rises by half,
        # rank 12's by a tenth; the other 27 are unchanged. More than 16
        # items: the text lists the 3 that changed, the largest change first.
        report = self.report_json(self.a)
        report["ranks"] = [{"rank": r, "file": f"node.{r}.vtrace", "collectives": 10,
                            "last_arrivals": 0, "mean_lateness_ns": 1000} for r in range(30)]
        a_json = write_json(self.root / "a-30-ranks.json", report)
        for rank, lateness in ((20, 3000), (5, 1500), (12, 1100)):
            report["ranks"][rank]["mean_lateness_ns"] = lateness
        b_json = write_json(self.root / "b-30-ranks.json", report)
        text = vprof("diff", a_json, b_json)
        self.assertEqual(text.returncode, 0, text.stderr)
        lateness = text.stdout.split("\nArrival per rank")[1].split("\n\n")[0]
        self.assertIn("30 items, 3 changed; listed: the 3 that changed most", lateness)
        rows = [line.split()[1] for line in lateness.splitlines() if line.startswith("  rank ")]
        self.assertEqual(rows, ["20", "5", "12"])
        # The JSON diff keeps all 30.
        self.assertEqual(len(section(self.diff_json(a_json, b_json), "lateness")["items"]), 30)

    def test_steps_and_candidates_from_reports(self):
        # Reports as the step and candidate analyses write them (their keys
        # are the fields of step_report.h and candidate_report.h).
        base = {"report_version": 1, "all_inputs_whole": True}
        a = dict(base, steps={"window": "steps 1-9 of 10", "median_step_ns": 100000,
                              "ranks": [{"rank": 0, "total": {"compute_ns": 800000,
                                                              "exposed_comm_ns": 100000}}]},
                 candidates=[{"kind": "tp_communication", "change": "overlap",
                              "exposed_ns": 20000, "strict": "eligible"},
                             {"kind": "host_idle", "exposed_ns": 5000}])
        b = dict(base, steps={"window": "steps 1-9 of 10", "median_step_ns": 150000,
                              "ranks": [{"rank": 0, "total": {"compute_ns": 800000,
                                                              "exposed_comm_ns": 160000}}]},
                 candidates=[{"kind": "tp_communication", "change": "overlap",
                              "exposed_ns": 30000, "strict": "needs_contract"},
                             {"kind": "copies", "exposed_ns": 1000}])
        diff = self.diff_json(write_json(self.root / "sa.json", a),
                              write_json(self.root / "sb.json", b))
        steps = metrics_of(diff, "steps", "all ranks")
        self.assertEqual(steps["median_step_ns"]["relative"], 0.5)  # 150000 / 100000 − 1
        self.assertEqual(steps["window"]["change"], "same")
        exposed = metrics_of(diff, "steps", "rank 0")["exposed_comm_ns"]
        self.assertEqual((exposed["change"], exposed["relative"]), (60000, 0.6))
        tp = metrics_of(diff, "candidates", "tp_communication (overlap)")
        self.assertEqual(tp["exposed_ns"]["relative"], 0.5)  # 30000 / 20000 − 1
        self.assertEqual(tp["strict"]["change"], "differs")
        presence = {i["item"]: i["presence"] for i in section(diff, "candidates")["items"]}
        self.assertEqual(presence, {"tp_communication (overlap)": "both",
                                    "host_idle": "only_in_a", "copies": "only_in_b"})
        # Nothing else in these reports: every other section is in neither.
        self.assertEqual(section(diff, "communication")["presence"], "neither")

    def test_verdict_names_the_slower_run_the_cause_and_the_rank(self):
        # Step ledgers as steps_json.cc writes them: B's mean step is 50 µs longer, 45 µs of it
        # in the wait for rank 3; rank 0's measured steps grew most.
        def report(mean, wait, window0, window3):
            lines = [{"name": "compute in backward", "per_step_ns": 60000},
                     {"name": "waiting for rank 3 at gradient buckets in backward",
                      "per_step_ns": wait}]
            return {"report_version": 1, "all_inputs_whole": True,
                    "steps": {"median_step_ns": mean, "ledger": {"mean_step_ns": mean,
                                                                  "lines": lines},
                              "ranks": [{"rank": 0, "total": {"window_ns": window0}},
                                        {"rank": 3, "total": {"window_ns": window3}}]}}
        a = write_json(self.root / "va.json", report(100000, 20000, 800000, 800000))
        b = write_json(self.root / "vb.json", report(150000, 65000, 1200000, 1000000))
        verdict = ("B is slower per step by 50.0 µs (+50.0%, 100 µs in A, 150 µs in B); most of "
                   "it: waiting for rank 3 at gradient buckets in backward, +45.0 µs per step "
                   "(step ledger); of the ranks, rank 0's steps changed most (steps)")
        self.assertEqual(self.diff_json(a, b)["verdict"], verdict)
        text = vprof("diff", a, b)
        self.assertEqual(text.returncode, 0, text.stderr)
        first = " ".join(text.stdout.split("\nvprof diff\n")[0].split())
        self.assertEqual(first, "Verdict: " + verdict)
        # A faster B: A is the slower one; the same runs the other way round.
        self.assertTrue(self.diff_json(b, a)["verdict"].startswith("A is slower per step by 50.0"))
        # Words for people: no JSON key (a word with an underscore) in the text. The input
        # paths are the test's (a random temporary folder name may hold an underscore).
        words = text.stdout.replace(str(a), "A.json").replace(str(b), "B.json")
        self.assertNotRegex(words, r"\b[a-z]+_[a-z_]+\b")

    def test_memory_from_reports(self):
        # GPU memory as steps_json.cc writes it: NVML's samples per rank, the allocation
        # calls, and per step the MEMORY2 figures (the most held is the max over the steps).
        gib = 1 << 30
        base = {"report_version": 1, "all_inputs_whole": True}

        def rank(number, peak_gib, calls, call_ns, held, unavailable=""):
            device = None if peak_gib is None else {
                "peak_used_bytes": peak_gib * gib, "low_used_bytes": 30 * gib,
                "headroom_bytes": (140 - peak_gib) * gib}
            return {"rank": number, "device_memory": device, "memory_unavailable": unavailable,
                    "allocation_calls": calls, "allocation_call_ns": call_ns,
                    "steps": [{"memory": None if h is None else {"peak_bytes": h}} for h in held]}

        a = dict(base, steps={"ranks": [rank(0, 40, 10, 5000, [1000, 3000]),
                                        rank(1, 40, 0, 0, [None])]})
        b = dict(base, steps={"ranks": [rank(0, 50, 40, 20000, [2000, 6000]),
                                        rank(1, None, 0, 0, [None], "nvmlInit_v2: failed")]})
        # Memory moved out and back, summed over the steps: 3 GiB to host in A, 1 GiB in B.
        for report, to_host in ((a, [gib, 2 * gib]), (b, [gib, 0])):
            for step, out in zip(report["steps"]["ranks"][0]["steps"], to_host):
                step["transfers"] = {"to_host_bytes": out, "to_device_bytes": gib}
        # Memory per phase: forward in both (held peak 3000 then 6000 B), the inferred
        # optimizer only in B.
        a["steps"]["ranks"][0]["phase_memory"] = [
            {"phase": "forward", "from_nvtx": True, "steps": 2,
             "held": {"peak_bytes": 3000, "peak_step": 1, "low_bytes": 1000},
             "device_memory": {"samples": 1, "peak_used_bytes": 40 * gib}}]
        b["steps"]["ranks"][0]["phase_memory"] = [
            {"phase": "forward", "from_nvtx": True, "steps": 2,
             "held": {"peak_bytes": 6000, "peak_step": 2, "low_bytes": 1000},
             "device_memory": None},
            {"phase": "optimizer", "from_nvtx": False, "steps": 2,
             "held": {"peak_bytes": 2000, "peak_step": 1, "low_bytes": 2000},
             "device_memory": None}]
        diff = self.diff_json(write_json(self.root / "ma.json", a),
                              write_json(self.root / "mb.json", b))
        forward = metrics_of(diff, "memory", "rank 0: forward")
        self.assertEqual((forward["peak_bytes"]["a"], forward["peak_bytes"]["b"]), (3000, 6000))
        self.assertEqual(forward["low_bytes"]["change"], 0)
        self.assertEqual(forward["peak_used_bytes"]["a"], 40 * gib)
        presence = {i["item"]: i["presence"] for i in section(diff, "memory")["items"]}
        self.assertEqual(presence["rank 0: optimizer (inferred)"], "only_in_b")
        zero = metrics_of(diff, "memory", "rank 0")
        self.assertEqual(zero["peak_used_bytes"]["relative"], 0.25)  # 50 / 40 − 1
        self.assertEqual(zero["headroom_bytes"]["change"], -10 * gib)
        self.assertEqual(zero["allocation_calls"]["change"], 30)
        self.assertEqual(zero["allocation_call_ns"]["relative"], 3.0)
        self.assertEqual((zero["peak_held_bytes"]["a"], zero["peak_held_bytes"]["b"]),
                         (3000, 6000))
        self.assertEqual((zero["to_host_bytes"]["a"], zero["to_host_bytes"]["b"]), (3 * gib, gib))
        self.assertEqual(zero["to_device_bytes"]["change"], 0)
        one = metrics_of(diff, "memory", "rank 1")
        self.assertEqual(one["memory_unavailable"]["b"], "nvmlInit_v2: failed")
        self.assertNotIn("peak_held_bytes", one)
        self.assertNotIn("to_host_bytes", one)

    def test_step_options_reach_directory_reports(self):
        # ddp_step (tests/reporter/cases/ddp_step/README.md) has one step: with
        # the default warmup of 1 none is measured, with --warmup 0 it is, and
        # rank 1's exposed communication is 1500 ns on both sides.
        default = metrics_of(self.diff_json(self.ddp, self.ddp), "steps", "all ranks")
        self.assertEqual(default["window"]["a"], "no measured steps")
        diff = self.diff_json(self.ddp, self.ddp, 0, "--warmup", "0")
        exposed = metrics_of(diff, "steps", "rank 1")["exposed_comm_ns"]
        self.assertEqual((exposed["a"], exposed["b"], exposed["change"]), (1500, 1500, 0))
        self.assertEqual(metrics_of(diff, "steps", "all ranks")["median_step_ns"]["a"], 8500)
        gemm = metrics_of(diff, "kernel_classes", "rank 0: gemm")
        self.assertEqual((gemm["count"]["a"], gemm["total_ns"]["a"]), (2, 6000))

    def test_text_fits_100_columns(self):
        result = vprof("diff", self.a, self.b)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(ALLREDUCE_ROW, result.stdout)
        self.assertIn("+50.0%", result.stdout)  # the mean time
        for line in result.stdout.splitlines():
            self.assertLessEqual(len(line), 100, line)

    def test_cut_input_is_compared_and_exits_3(self):
        diff = self.diff_json(self.a, self.cut, status=3)
        self.assertFalse(diff["b"]["all_inputs_whole"])

    def test_bad_inputs(self):
        not_json = self.root / "notes.txt"
        not_json.write_text("hello")
        newer = write_json(self.root / "newer.json", {"report_version": 4})
        no_version = write_json(self.root / "list.json", [1, 2])
        missing = self.root / "missing"
        cases = [(missing, "no such file or directory"), (not_json, "not JSON"),
                 (newer, "report_version 4 is newer than this vprof reads (3)"),
                 (no_version, "not a vprof JSON report")]
        for path, what in cases:
            result = vprof("diff", self.a, path)
            self.assertEqual(result.returncode, 2, result.stderr)
            lines = result.stderr.splitlines()
            self.assertEqual(len(lines), 1, result.stderr)
            self.assertIn(str(path), lines[0])
            self.assertIn(what, lines[0])
        self.assertEqual(vprof("diff", self.a).returncode, 2)
        self.assertEqual(vprof("diff", self.a, self.b, "--format", "xml").returncode, 2)

    def test_report_too_large_for_the_address_limit_is_refused_before_reading(self):
        # A 3 GB report (sparse: nothing on disk) under a 2 GiB address-space limit.
        huge = self.root / "huge.json"
        with open(huge, "wb") as f:
            f.truncate(3 * 10**9)
        limit = 2 << 30

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        # A sanitizer's build reserves more address space than that just to start.
        if subprocess.run([OPTIONS.vprof, "diff"], capture_output=True,
                          preexec_fn=limited).returncode != 2:
            self.skipTest("vprof cannot start under a 2 GiB address-space limit (a sanitizer?)")
        result = subprocess.run([OPTIONS.vprof, "diff", str(self.a), str(huge)], text=True,
                                capture_output=True, preexec_fn=limited)
        self.assertEqual(result.returncode, 2, result.stderr)
        # Nothing of it was read: the refusal comes first (a is a folder, not counted).
        self.assertEqual(result.stderr,
                         f"vprof: diff: {huge} (2.79 GiB): JSON reports take about 44.8 GiB of "
                         "memory to compare, more than this process's address-space limit "
                         "(ulimit -v) of 2.00 GiB; not read\n")


def main():
    global OPTIONS
    parser = argparse.ArgumentParser()
    for option in ("--txt2vtrace", "--vprof", "--cases", "--slower"):
        parser.add_argument(option, required=True)
    OPTIONS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
