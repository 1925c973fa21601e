#!/usr/bin/env python3
"""Whether two vprof binaries write the same bytes: every output of every
command that reads traces, on the report cases (tests/reporter/cases) and on
the scale benchmark's `small` shape (bench/scale/run_scale.py), compared byte
for byte. For changes that must not change behaviour (a move of source files,
a refactoring): build the old tree once, keep its vprof, and compare.

  bench/same_outputs.py --build build --baseline OLD_VPROF [--work DIR] [--keep]
  bench/same_outputs.py --build build --record OUT.json [--vprof VPROF]
  bench/same_outputs.py --build build --against OUT.json [--vprof VPROF]

The inputs (the cases' traces, converted by BUILD's txt2vtrace, and the small
shape, written by BUILD's gen_scale_traces) go to --work (default: a new /tmp
folder) and are read by both binaries from the same paths, so paths in
messages and reports agree. --vprof defaults to BUILD/reporter/vprof.

What is compared, per trace folder: `vprof report` in every --format (with
the case's args), with --output, `vprof export` chrome and hta (each rank's
file), a node summary and its merge (text and json); `vprof diff` of every
case against late_rank (text and json); the help texts and usage errors. For each: the
exit status, standard output, standard error and every file written. Nothing
is masked: no output of these commands holds a time of its own making (the
launchers, which record start and end times, are not run). Exit status 0 when
everything is the same; 1 with the names of what differs.
"""
import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "tests", "reporter", "cases")
sys.dont_write_bytecode = True
sys.path[:0] = [CASES, os.path.join(HERE, "scale")]
import run_case  # noqa: E402  (the cases' converter)
import run_scale  # noqa: E402  (the shapes)
# The help texts, and usage errors (each refused before anything is read or run).
COMMAND_LINE = [["help"], ["--help"], ["help", "report"], ["help", "export"], ["help", "run"],
                ["help", "slurm"], ["diff", "--help"], ["trigger", "--help"],
                [], ["bogus"], ["report"], ["report", "a", "b"], ["report", "--bogus", "a"],
                ["report", "--format", "pdf", "a"], ["export", "--format", "chrome", "a", "b"],
                ["export", "--format", "chrome", "--bogus", "a"], ["export", "a"],
                ["report", "--node-summary", "x", "a", "b"],
                ["report", "--node-summary", "x", "--bogus", "a"], ["diff", "a"], ["run"],
                ["trigger"]]


def make_inputs(build, work):
    """By name, one per case and small: (trace folder, args for report, the folder
    with the traces named by host, that host)."""
    folders = {}
    converter = os.path.join(build, "tests", "reporter", "cases", "txt2vtrace")
    for case in sorted(os.listdir(CASES)):
        source = os.path.join(CASES, case)
        if not os.path.isdir(source) or case.startswith((".", "_")):
            continue
        target = os.path.join(work, "traces", case)
        if not os.path.isdir(target):
            os.makedirs(target)
            run_case.convert_case(converter, source, target)
        # A node summary takes the files named <host>.<pid>.vtrace, as the
        # capture side names them; the cases' hosts are all node1.
        by_host = target + "-by-host"
        if not os.path.isdir(by_host):
            os.makedirs(by_host)
            for index, name in enumerate(sorted(os.listdir(target))):
                shutil.copy(os.path.join(target, name),
                            os.path.join(by_host, f"node1.{index + 1}.vtrace"))
        args_file = os.path.join(source, "args")
        args = shlex.split(open(args_file).read()) if os.path.exists(args_file) else []
        folders[case] = (target, args, by_host, "node1")
    small = os.path.join(work, "traces", "small")
    if not os.path.isdir(small):
        ranks, per_rank = run_scale.SHAPES["small"]
        subprocess.run([os.path.join(build, "bench", "gen_scale_traces"), "--ranks", str(ranks),
                        "--events-per-rank", str(per_rank), small],
                       check=True, stdout=subprocess.DEVNULL)
    folders["small"] = (small, [], small, "node0")
    return folders


def digest(data):
    return hashlib.sha256(data).hexdigest()


def run(vprof, args, scratch):
    """Runs vprof; returns its exit status, output, errors and the files it wrote in scratch."""
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    result = subprocess.run([vprof] + args, capture_output=True, cwd=scratch)
    files = {}
    for folder, _, names in os.walk(scratch):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as data:
                files[os.path.relpath(path, scratch)] = digest(data.read())
    return {"status": result.returncode, "stdout": digest(result.stdout),
            "stdout_bytes": len(result.stdout), "stderr": result.stderr.decode(errors="replace"),
            "files": files}


def record(vprof, folders, work):
    """Every output, by a name that says what ran."""
    scratch = os.path.join(work, "scratch")
    outputs = {}
    for command in COMMAND_LINE:
        outputs["vprof " + " ".join(command)] = run(vprof, command, scratch)
    for name, (folder, args, by_host, host) in folders.items():
        step_args = [a for a in args if a != "--strict"]  # what --node-summary takes of them
        for form in ("text", "json", "markdown", "html"):
            outputs[f"{name}: report {form}"] = run(
                vprof, ["report", folder, "--format", form] + args, scratch)
        outputs[f"{name}: report --output"] = run(
            vprof, ["report", folder, "--format", "json", "--output", "report.json"] + args,
            scratch)
        outputs[f"{name}: export chrome"] = run(vprof, ["export", "--format", "chrome", folder],
                                                scratch)
        outputs[f"{name}: export hta"] = run(
            vprof, ["export", "--format", "hta", "-o", "hta", folder], scratch)
        outputs[f"{name}: node summary"] = run(
            vprof, ["report", "--node-summary", "node.vsummary", "--host", host] + step_args +
            [by_host], scratch)
        summary = os.path.join(work, "node.vsummary")
        shutil.copy(os.path.join(scratch, "node.vsummary"), summary)
        for form in ("text", "json"):
            outputs[f"{name}: merge-summaries {form}"] = run(
                vprof, ["report", "--merge-summaries", "--format", form] +
                (["--strict"] if "--strict" in args else []) + [summary], scratch)
        if name != "small":
            for form in ("text", "json"):
                outputs[f"{name}: diff late_rank {form}"] = run(
                    vprof, ["diff", folders["late_rank"][0], folder, "--format", form] + step_args,
                    scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    return outputs


def compare(want, got):
    """Lines naming what differs."""
    differences = []
    for name in sorted(set(want) | set(got)):
        if name not in got or name not in want:
            differences.append(f"{name}: run by one side only")
            continue
        for key in ("status", "stdout", "stderr", "files"):
            if want[name][key] != got[name][key]:
                differences.append(f"{name}: {key} differs")
    return differences


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="meson build directory")
    parser.add_argument("--vprof", help="the binary under test (default BUILD/reporter/vprof)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--baseline", help="another vprof binary, run on the same inputs")
    which.add_argument("--record", help="write the outputs' digests to this JSON file")
    which.add_argument("--against", help="compare with digests written by --record")
    parser.add_argument("--work", help="where the inputs go (default: a new /tmp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the inputs")
    options = parser.parse_args()
    if (options.record or options.against) and not options.work:
        parser.error("--record and --against need --work: both runs must read the same paths")

    vprof = os.path.abspath(options.vprof or os.path.join(options.build, "reporter", "vprof"))
    work = os.path.abspath(options.work or tempfile.mkdtemp(prefix="vprof-same-outputs-"))
    try:
        folders = make_inputs(options.build, work)
        got = record(vprof, folders, work)
        if options.record:
            with open(options.record, "w") as out:
                json.dump(got, out, indent=1, sort_keys=True)
            print(f"recorded {len(got)} outputs of {vprof} in {options.record}")
            return 0
        if options.baseline:
            want = record(os.path.abspath(options.baseline), folders, work)
        else:
            with open(options.against) as recorded:
                want = json.load(recorded)
        differences = compare(want, got)
        for line in differences:
            print(line)
        files = sum(len(output["files"]) for output in got.values())
        print(f"{len(got)} commands ({files} files written, stdout and stderr of each): "
              + ("all the same" if not differences else f"{len(differences)} differences"))
        return 1 if differences else 0
    finally:
        if not options.keep and not options.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
