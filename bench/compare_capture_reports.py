"""Holds the report of a light-capture run against the report of a full-capture run of the
same workload (`vprof report DIR --format json`, one file each). Two runs differ in their times,
ids and anything ranked by time, so what is compared is what capture decides and the run does
not: per rank, the GPU work counted (kernels, copies, memsets, each kernel name and class with
its count), NCCL calls linked to kernels, the stream/event plan (records, waits, matched waits,
edges) where both reports have it (the light default does not record it and says so: null),
and the steps found and measured; for the run, the phases each rank has, and which
fast-path candidates are raised with their strict tag and rule. Prints each difference and the
number of values compared; exits 1 on any difference.

    python3 bench/compare_capture_reports.py LIGHT.json ALL.json
"""
import json
import sys

NOT_RECORDED = "not recorded"


def facts(report):
    out = {}
    for p in report["processes"]:
        gpu = p.get("gpu")
        if not p.get("is_rank") or not gpu:
            continue
        who = f"rank {p['rank']}"
        for kind in ("kernels", "memcpy", "memset", "peer_copies"):
            for key in ("count", "bytes"):
                if key in gpu[kind]:
                    out[f"{who} {kind} {key}"] = gpu[kind][key]
        for k in gpu["kernel_classes"]:
            out[f"{who} kernel class {k['class']}"] = k["count"]
        for k in gpu["top_kernels"]:
            out[f"{who} kernel {k['name']}"] = k["count"]
        for key in ("calls", "grouped_calls", "linked_calls", "linked_kernels", "nccl_kernels",
                    "unlinked_nccl_kernels"):
            out[f"{who} nccl_linkage {key}"] = gpu["nccl_linkage"][key]
        waits = gpu["stream_waits"]
        if waits is None:
            out[f"{who} stream_waits"] = NOT_RECORDED
            continue
        for key in ("event_records", "waits", "matched_waits"):
            out[f"{who} stream_waits {key}"] = waits[key]
        out[f"{who} stream_waits edges"] = sorted(
            (e["count"],) + tuple(v for k, v in sorted(e.items()) if "stream" in k)
            for e in waits["edges"])
    steps = report.get("steps") or {}
    for key in ("source", "window", "steps_found", "warmup_steps", "first_measured",
                "last_measured", "before_profiler_start_excluded"):
        out[f"steps {key}"] = steps.get(key)
    for r in steps.get("ranks", []):
        out[f"rank {r['rank']} steps_found"] = r["steps_found"]
        out[f"rank {r['rank']} unlaunched_records"] = r["unlaunched_records"]
        out[f"rank {r['rank']} late_records"] = r["late_records"]
    for ph in report.get("phases", []):
        out[f"rank {ph['rank']} phases"] = sorted((x["phase"], x["source"], x["count"])
                                                  for x in ph["phases"])
    out["candidates"] = sorted((c["change"], c["strict"], c["rule_id"])
                               for c in report.get("candidates", []))
    return out


def main():
    light, full = facts(json.load(open(sys.argv[1]))), facts(json.load(open(sys.argv[2])))
    # What one report says it did not record (the light default's stream waits) is compared
    # in neither.
    unrecorded = [k for k, v in list(light.items()) + list(full.items()) if v == NOT_RECORDED]
    for facts_of in (light, full):
        for key in [k for k in facts_of if any(k.startswith(u) for u in unrecorded)]:
            del facts_of[key]
    differ = 0
    for key in sorted(set(light) | set(full)):
        if light.get(key) != full.get(key):
            differ += 1
            print(f"differs {key}: light {light.get(key)!r}, all {full.get(key)!r}")
    print(f"compared {len(set(light) | set(full))} values: {differ} differ; "
          f"{len(set(unrecorded))} sections not recorded by one of them left out")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
