#!/usr/bin/env python3
"""Prints the device-memory figures of a `vprof report --format json` (read on
stdin) next to what the workload printed (its log, the argument): per process
with steps, the peak of memory held over the measured steps (MEMORY2 records)
against PyTorch's max_memory_reserved, and the allocations, releases and
allocation-call time per step; and the GPU's memory in use as NVML sampled
it (the whole device: the CUDA context's and libraries' memory beyond
PyTorch's reserve). Used by bench/device_memory.sh.

Usage: vprof report DIR --format json | memory_figures.py WORKLOAD.log
"""
import json
import statistics
import sys


def printed(log_path, key):
    for line in open(log_path):
        if line.startswith(key + " "):
            return int(float(line.split()[1]))
    return None


def main():
    report = json.load(sys.stdin)
    reserved = printed(sys.argv[1], "max_memory_reserved_bytes")
    steps = report.get("steps") or {}
    for rank in steps.get("ranks", []):
        device = rank.get("device_memory")
        if device:
            line = (f"{rank['file']}: GPU {device['device']} in use (NVML, every "
                    f"{device['interval_ns'] / 1e6:.0f} ms, {device['samples']} samples in the "
                    f"measured steps): peak {device['peak_used_bytes'] / 2**20:.1f} MiB, low "
                    f"{device['low_used_bytes'] / 2**20:.1f} MiB of "
                    f"{device['total_bytes'] / 2**30:.1f} GiB (headroom "
                    f"{device['headroom_bytes'] / 2**30:.1f} GiB)")
            if reserved is not None:
                line += (f"; beyond PyTorch's max_memory_reserved "
                         f"{(device['peak_used_bytes'] - reserved) / 2**20:+.1f} MiB")
            print(line)
        else:
            print(f"{rank['file']}: no NVML samples ({rank.get('memory_unavailable') or 'none in steps'})")
        moved = [s.get("transfers") or {} for s in rank["steps"]]
        if any(moved):
            n = len(moved)
            total = {k: sum(m.get(k, 0) for m in moved) for k in (
                "to_host_bytes", "to_host_ns", "to_device_bytes", "to_device_ns", "unmaps", "maps",
                "map_call_ns")}
            line = (f"{rank['file']}: moved per step over {n} steps: to host "
                    f"{total['to_host_bytes'] / n:.0f} B in {total['to_host_ns'] / n / 1e6:.3f} ms, "
                    f"to device {total['to_device_bytes'] / n:.0f} B in "
                    f"{total['to_device_ns'] / n / 1e6:.3f} ms; {total['unmaps'] / n:.2f} unmaps, "
                    f"{total['maps'] / n:.2f} maps, {total['map_call_ns'] / n / 1e6:.3f} ms in them")
            offloaded = printed(sys.argv[1], "offload_bytes_per_step")
            if offloaded is not None:
                line += f"; the workload moved {offloaded} B each way per step"
            print(line)
        memory = [s["memory"] for s in rank["steps"] if s.get("memory")]
        if not memory:
            print(f"{rank['file']}: no MEMORY2 figures")
            continue
        peak = max(m["peak_bytes"] for m in memory)
        line = (f"{rank['file']}: {len(memory)} steps; peak held {peak} B "
                f"({peak / 2**20:.1f} MiB)")
        if reserved is not None:
            error = (peak - reserved) / reserved * 100 if reserved else float("nan")
            line += f"; PyTorch max_memory_reserved {reserved} B ({error:+.2f}%)"
        line += (f"; per step: allocations {statistics.mean(m['allocations'] for m in memory):.2f}"
                 f" ({statistics.mean(m['allocated_bytes'] for m in memory) / 2**20:.1f} MiB), "
                 f"releases {statistics.mean(m['releases'] for m in memory):.2f}, "
                 f"allocation calls {statistics.median(m['api_ns'] for m in memory) / 1e6:.3f} ms "
                 f"(median)")
        print(line)


if __name__ == "__main__":
    main()
