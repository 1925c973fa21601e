"""Reads trace_dump lines (stdin) of fingerprint_check.py runs. Modes:
  exact EXPECT.json   every fingerprinted call's input and output equal the reference values the
                      workload computed over the same bytes on the host
  runs A.dump B.dump  the two runs' fingerprints call by call (by function and seq): prints how
                      many agree and the first that differs, input or output"""
import json
import sys


def load(path):
    rows = [json.loads(line) for line in open(path)]
    fps = [r for r in rows if r["kind"] == "fingerprint"]
    status = [r for r in rows if r["kind"] == "fingerprint_status"]
    return sorted(fps, key=lambda f: (f["comm_id"], f["seq"])), status


def exact(dump, expect):
    fps, status = load(dump)
    want = json.load(open(expect))
    print("status:", [(s["state"], s["detail"]) for s in status])
    # The process group's own first collectives (a barrier, ...) come first: match from the end.
    fps = fps[-len(want):]
    ok = 0
    for f, w in zip(fps, want):
        same = f["func"] == w["func"] and f["input"] == w["input"] and f["output"] == w["output"]
        ok += same
        print(f"{w['func']} {w['bytes']} B: trace in {f['input']:#018x} out {f['output']:#018x}; "
              f"reference in {w['input']:#018x} out {w['output']:#018x}: {'equal' if same else 'DIFFERENT'}")
    print(f"exact: {ok} of {len(want)} calls equal to the reference")


def runs(a, b):
    fa, _ = load(a)
    fb, _ = load(b)
    agree = 0
    first = None
    for x, y in zip(fa, fb):
        if (x["func"], x["seq"], x["input"], x["output"]) == (y["func"], y["seq"], y["input"], y["output"]):
            agree += 1
        elif first is None:
            side = "input" if x["input"] != y["input"] else "output"
            first = f"{x['func']} seq {x['seq']}: {side} differs"
    print(f"runs: {len(fa)} and {len(fb)} fingerprinted calls, {agree} agree; first difference: {first}")


if __name__ == "__main__":
    if sys.argv[1] == "exact":
        exact(sys.argv[2], sys.argv[3])
    else:
        runs(sys.argv[2], sys.argv[3])
