#!/usr/bin/env python3
"""The format check (CONTRIBUTING.md): every C++ file of the tree is as
clang-format writes it under the root's .clang-format.

Usage: check_format.py CLANG_FORMAT ROOT       check the tree
       check_format.py CLANG_FORMAT --self-test check the checker on a tree made
                                                to pass and one made to fail
Exits 77 (meson's "skipped") when CLANG_FORMAT is empty or not version 14:
other versions write Google style differently.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE_DIRS = ["common", "interpose", "cupti", "reporter", "launch", "tests", "bench", "schema"]
SUFFIXES = (".cc", ".h", ".cu")
VERSION = 14
SKIPPED = 77


def sources(root):
    for top in SOURCE_DIRS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.endswith(SUFFIXES):
                    yield os.path.join(folder, name)


def unformatted(clang_format, root):
    """The files clang-format would change, relative to root: one clang-format
    for the whole tree (one per file took longer than the test's timeout),
    whose diagnostics name each file it would change."""
    paths = [os.path.relpath(p, root) for p in sources(root)]
    if not paths:  # clang-format would read stdin and pass
        raise SystemExit(f"no C++ file under {root} in {', '.join(SOURCE_DIRS)}")
    result = subprocess.run([clang_format, "--dry-run", "--Werror", *paths],
                            cwd=root, capture_output=True, text=True)
    bad = set()
    for line in result.stderr.splitlines():
        path, sep, rest = line.partition(":")
        if sep and path in paths and "-Wclang-format-violations" in rest:
            bad.add(path)
    if result.returncode != 0 and not bad:
        raise SystemExit(f"{clang_format} failed (exit status {result.returncode}): "
                         f"{result.stderr.strip()[:500]}")
    return sorted(bad)


def self_test(clang_format):
    here = os.path.dirname(os.path.abspath(__file__))
    style = os.path.join(here, "..", "..", ".clang-format")
    with tempfile.TemporaryDirectory() as root:
        shutil.copy(style, os.path.join(root, ".clang-format"))
        os.makedirs(os.path.join(root, "interpose"))
        with open(os.path.join(root, "interpose", "good.cc"), "w") as f:
            f.write("int Add(int a, int b) { return a + b; }\n")
        if unformatted(clang_format, root):
            print("self-test: a formatted file was reported", file=sys.stderr)
            return 1
        with open(os.path.join(root, "interpose", "bad.h"), "w") as f:
            f.write("int  Add( int a,int b ) {return a+b;}\n")
        if unformatted(clang_format, root) != [os.path.join("interpose", "bad.h")]:
            print("self-test: interpose/bad.h was not reported", file=sys.stderr)
            return 1
    return 0


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    clang_format = sys.argv[1]
    version = subprocess.run([clang_format, "--version"], capture_output=True,
                             text=True).stdout if clang_format else ""
    major = re.search(r"version (\d+)\.", version)
    if not major or int(major.group(1)) != VERSION:
        print(f"skipped: needs clang-format {VERSION} (scripts/bootstrap.sh), found "
              f"{version.strip() or 'none'}")
        return SKIPPED
    if sys.argv[2] == "--self-test":
        return self_test(clang_format)
    bad = unformatted(clang_format, sys.argv[2])
    for path in bad:
        print(f"{path}: not as clang-format writes it (run clang-format -i {path})",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
