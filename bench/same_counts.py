#!/usr/bin/env python3
"""Whether two JSON reports of the same workload count the same things.

  same_counts.py A.json B.json

Every integer under a key that counts (calls, kernels, records, ranges,
events, steps, ...) is compared by its path; times are left aside (two runs
never agree on them). Prints the differing paths and exits 1 when any
differ, else prints how many counts agreed.
"""
import json
import sys

COUNTING = ("count", "calls", "kernels", "records", "ranges", "events", "steps", "launches",
            "copies", "memsets", "ranks", "processes", "communicators")


def counts(value, path=""):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from counts(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from counts(inner, f"{path}[{index}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        last = path.rsplit(".", 1)[-1].split("[")[0]
        if any(last == word or last.endswith("_" + word) or last.startswith(word + "_")
               for word in COUNTING) and not last.endswith("_ns"):
            yield path, value


def main():
    a, b = (dict(counts(json.load(open(p)))) for p in sys.argv[1:3])
    differ = sorted(p for p in a.keys() | b.keys() if a.get(p) != b.get(p))
    for path in differ:
        print(f"{path}: {a.get(path)} against {b.get(path)}")
    agree = sum(1 for p in a.keys() & b.keys() if a[p] == b[p])
    print(f"{agree} counts agree, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
