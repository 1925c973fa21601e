#!/usr/bin/env python3
"""Prints the ninja targets that the tests `meson test -C DIR ARGS...` would run
need built: each selected test's declared dependencies (its executable, the
programs and libraries it is handed), one path per line, relative to DIR.
scripts/build.sh --tests uses it so that a sanitizer tree builds only what its
suite runs.

usage: scripts/test_targets.py DIR [MESON_TEST_ARG...]   (e.g. --suite unit)"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build_dir = sys.argv[1]
    selection = sys.argv[2:]
    listed = subprocess.run(["meson", "test", "-C", build_dir, "--list", "--no-rebuild", *selection],
                            capture_output=True, text=True, check=True).stdout
    # "project:suite+suite / name" per test; names alone are not unique (a unit and an
    # integration test may share one).
    selected = set()
    for line in listed.splitlines():
        if " / " in line:
            suites, name = line.split(" / ", 1)
            project, _, suite_list = suites.partition(":")
            selected.add((name, frozenset(f"{project}:{s}" for s in suite_list.split("+"))))
    if not selected:
        sys.exit(f"test_targets.py: `meson test {' '.join(selection)}` selects no test in {build_dir}")

    def introspect(what):
        return json.loads(subprocess.run(["meson", "introspect", build_dir, what],
                                         capture_output=True, text=True, check=True).stdout)

    files_of = {t["id"]: t["filename"] for t in introspect("--targets")}
    root = os.path.abspath(build_dir)
    targets = set()
    for test in introspect("--tests"):
        if (test["name"], frozenset(test["suite"])) not in selected:
            continue
        for dep in test["depends"]:
            targets.update(os.path.relpath(f, root) for f in files_of[dep])
    print("\n".join(sorted(targets)))


if __name__ == "__main__":
    main()
