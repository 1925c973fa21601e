#!/usr/bin/env python3
"""Runs one data-driven report case (README.md in this folder).

run_case.py --txt2vtrace EXE --vprof EXE CASE_DIR

Every CASE_DIR/*.txtpb is converted into a scratch directory as *.vtrace (a
line '# txt2vtrace: ARGS' in it passes ARGS to the converter), then
'vprof report SCRATCH --format json' runs with the words of CASE_DIR/args.
The report must hold every key and value of CASE_DIR/expected.json (a subset
match: objects by key, arrays of the same length element by element, numbers exactly unless the
expected value is {"$approx": X, "$tolerance": T}), and vprof must exit with
the number in CASE_DIR/exit_status (0 without that file). Exit status 0 when
the case passes, 1 with a list of the differences when it does not.
"""

import argparse
import json
import pathlib
import shlex
import subprocess
import sys
import tempfile

CONVERTER_ARGS = "# txt2vtrace:"


def convert_case(txt2vtrace, case_dir, out_dir):
    """Writes OUT_DIR/<name>.vtrace for every CASE_DIR/<name>.txtpb."""
    sources = sorted(pathlib.Path(case_dir).glob("*.txtpb"))
    if not sources:
        raise SystemExit(f"{case_dir}: no *.txtpb traces")
    for source in sources:
        extra = []
        for line in source.read_text().splitlines():
            if line.startswith(CONVERTER_ARGS):
                extra += shlex.split(line[len(CONVERTER_ARGS):])
        target = pathlib.Path(out_dir) / (source.stem + ".vtrace")
        subprocess.run([txt2vtrace, str(source), str(target)] + extra, check=True)


def is_approx(expected):
    return isinstance(expected, dict) and "$approx" in expected


def compare(expected, actual, path, differences):
    """Appends 'path: expected X, got Y' for every part of EXPECTED not in ACTUAL."""
    if is_approx(expected):
        tolerance = expected.get("$tolerance", 0)
        if (not isinstance(actual, (int, float)) or isinstance(actual, bool)
                or abs(actual - expected["$approx"]) > tolerance):
            differences.append(
                f"{path}: expected {expected['$approx']} ± {tolerance}, got {json.dumps(actual)}")
    elif isinstance(expected, dict):
        if not isinstance(actual, dict):
            differences.append(f"{path}: expected an object, got {json.dumps(actual)}")
            return
        for key, value in expected.items():
            if key not in actual:
                differences.append(f"{path}.{key}: missing (expected {json.dumps(value)})")
            else:
                compare(value, actual[key], f"{path}.{key}", differences)
    elif isinstance(expected, list):
        if not isinstance(actual, list):
            differences.append(f"{path}: expected an array, got {json.dumps(actual)}")
            return
        if len(actual) != len(expected):
            differences.append(f"{path}: expected {len(expected)} elements, got {len(actual)}")
        for index, (want, got) in enumerate(zip(expected, actual)):
            compare(want, got, f"{path}[{index}]", differences)
    elif type(expected) is not type(actual) and not (
            isinstance(expected, (int, float)) and isinstance(actual, (int, float))
            and not isinstance(expected, bool) and not isinstance(actual, bool)):
        differences.append(f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}")
    elif expected != actual:
        differences.append(f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}")


def run_case(txt2vtrace, vprof, case_dir):
    case = pathlib.Path(case_dir)
    args_file = case / "args"
    args = shlex.split(args_file.read_text()) if args_file.exists() else []
    status_file = case / "exit_status"
    want_status = int(status_file.read_text()) if status_file.exists() else 0
    expected = json.loads((case / "expected.json").read_text())
    with tempfile.TemporaryDirectory(prefix=f"vprof-case-{case.name}-") as scratch:
        convert_case(txt2vtrace, case, scratch)
        result = subprocess.run([vprof, "report", scratch, "--format", "json"] + args,
                                capture_output=True, text=True)
    differences = []
    if result.returncode != want_status:
        differences.append(f"exit status: expected {want_status}, got {result.returncode}")
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        differences.append(f"the report is not JSON: {error}")
        report = None
    if report is not None:
        compare(expected, report, "report", differences)
    if differences:
        print(f"case {case.name}: {len(differences)} difference(s)")
        for difference in differences:
            print("  " + difference)
        print("vprof's standard error:\n" + result.stderr)
        if report is not None:
            print("the report:\n" + json.dumps(report, indent=2))
        return 1
    print(f"case {case.name}: passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--txt2vtrace", required=True)
    parser.add_argument("--vprof", required=True)
    parser.add_argument("case_dir")
    options = parser.parse_args()
    return run_case(options.txt2vtrace, options.vprof, options.case_dir)


if __name__ == "__main__":
    sys.exit(main())
