#!/usr/bin/env python3
"""The dating check (CONTRIBUTING.md): no tracked file dates a figure or a
remark by the order of the work that produced it: an ordinal, or this / last /
previous / same, before the word "session", and the like (PATTERNS; the
self-test shows them). A figure names its date and commit, as
bench/RESULTS.md's headings give them ("2026-12-03 (c92ba36)"); a remark says
what the thing is now.

Usage: check_no_session_dating.py ROOT         check the tracked files of ROOT
       check_no_session_dating.py --self-test  check the checker on a tree with
                                               a dated line and a clean one
The files are those `git ls-files` lists (every file under ROOT when ROOT is
not a git checkout), less node_modules/ and binary files.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIPPED_DIRS = {"node_modules", ".git"}

_UNITS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
_ORDINAL = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ]?(?:" + _UNITS +
            r")|" + _UNITS + r"|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|"
            r"sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth|"
            r"fiftieth|\d+(?:st|nd|rd|th))")
# Between two words: spaces, or a line break with the next line's comment marker.
_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*(?:#+|//+|/?\*+|--|;+)?[ \t]*)"
_WORD = "sess" + "ion"  # spelled apart so that this file does not match itself
PATTERNS = [
    # an ordinal before the word, in words or in digits, either case, across a line break
    re.compile(r"\b" + _ORDINAL + _GAP + _WORD + r"s?\b", re.IGNORECASE),
    # this, last, same, ... before the word
    re.compile(r"\b(?:this|last|previous|next|same|that|earlier|later|prior|current)" + _GAP +
               _WORD + r"\b", re.IGNORECASE),
    # the word's possessive after "the", "the ... before/after", "between ...s", the word and a number
    re.compile(r"\bthe" + _GAP + _WORD + r"(?:'s\b|" + _GAP + r"(?:before|after)\b)",
               re.IGNORECASE),
    re.compile(r"\b(?:between|across|from)" + _GAP + _WORD + r"s\b", re.IGNORECASE),
    re.compile(r"\b" + _WORD + _GAP + r"#?\d+\b", re.IGNORECASE),
]


def tracked_files(root):
    """Paths relative to root: git's tracked files, or every file when root is
    not a git checkout (a release tarball)."""
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                                check=True).stdout
        paths = [p.decode("utf-8", "replace") for p in listed.split(b"\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            paths += [os.path.relpath(os.path.join(folder, f), root) for f in sorted(files)]
    return [p for p in paths if not SKIPPED_DIRS.intersection(p.split("/"))]


def findings_in(text):
    """(line number, line, matched words) of each dated remark in text."""
    found = []
    for pattern in PATTERNS:
        for match in pattern.finditer(text):
            line_no = text.count("\n", 0, match.start()) + 1
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.start())
            line = text[start:end if end >= 0 else len(text)]
            found.append((line_no, line.strip(), " ".join(match.group(0).split())))
    return sorted(set(found))


def findings(root):
    result = []
    for path in tracked_files(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full) or os.path.islink(full):
            continue
        with open(full, "rb") as f:
            data = f.read()
        if b"\0" in data[:8192]:
            continue  # binary: an image, a trace, a fuzz input
        text = data.decode("utf-8", "replace")
        if _WORD not in text.lower():
            continue
        for line_no, line, words in findings_in(text):
            result.append((path, line_no, line, words))
    return result


# What the check must find, and what it must let pass.
DATED = ["the seventeenth " + _WORD, "Ninth " + _WORD + " (2026-12-01)",
         "the twenty-seventh\n// " + _WORD, "as in the 4th " + _WORD + "s",
         "built from this " + _WORD + "'s tree", "as on two ranks last " + _WORD,
         "the baseline, the " + _WORD + "'s first commit", "44.1 minutes the " + _WORD + " before",
         "the speed varies by two between " + _WORD + "s", "measured in " + _WORD + " 17"]
CLEAN = ["bench/RESULTS.md, 2026-12-03 (c92ba36)", "in a " + _WORD + " of its own (setsid)",
         "Popen(cmd, start_new_" + _WORD + "=True)", "a Ray " + _WORD + " folder",
         "the first run; a " + _WORD + " token"]


def self_test():
    for text in DATED:
        if not findings_in(text):
            print(f"self-test: not found: {text!r}", file=sys.stderr)
            return 1
    for text in CLEAN:
        if findings_in(text):
            print(f"self-test: reported: {text!r}", file=sys.stderr)
            return 1
    dated = "seventeenth " + _WORD
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "bench"))
        os.makedirs(os.path.join(root, "node_modules", "x"))
        with open(os.path.join(root, "bench", "clean.md"), "w") as f:
            f.write("Overhead on one H200 (bench/RESULTS.md, 2026-12-03 (c92ba36)).\n"
                    "A child started in a " + _WORD + " of its own (setsid).\n"
                    "subprocess.Popen(cmd, start_new_" + _WORD + "=True)\n")
        with open(os.path.join(root, "node_modules", "x", "skipped.md"), "w") as f:
            f.write("the " + dated + "\n")
        if shutil.which("git"):
            subprocess.run(["git", "init", "-q", root], check=True)
            subprocess.run(["git", "-C", root, "add", "-A"], check=True)
        if findings(root):
            print(f"self-test: a clean tree was reported: {findings(root)}", file=sys.stderr)
            return 1
        with open(os.path.join(root, "capture.h"), "w") as f:
            f.write("// Cost x1.35 on one H200 (bench/RESULTS.md,\n// twenty-seventh\n// " + _WORD +
                    ").\nint x;\n")
        with open(os.path.join(root, "bench", "dated.md"), "w") as f:
            f.write("Measured in the " + dated + ", built from this " + _WORD + "'s tree.\n")
        if shutil.which("git"):
            subprocess.run(["git", "-C", root, "add", "-A"], check=True)
        got = sorted({(path, line_no) for path, line_no, _, _ in findings(root)})
        want = [("bench/dated.md", 1), ("capture.h", 2)]
        if got != want:
            print(f"self-test: expected findings at {want}, got {got}", file=sys.stderr)
            return 1
    return 0


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "--self-test":
        return self_test()
    found = findings(sys.argv[1])
    for path, line_no, line, words in found:
        print(f"{path}:{line_no}: dated by the order of the work ('{words}'): {line}",
              file=sys.stderr)
    if found:
        print("Name the date and commit instead (bench/RESULTS.md's headings: 'DATE (COMMIT)'), "
              "or say what the thing is now.", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
