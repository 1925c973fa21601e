"""Collective fingerprints on a real GPU (VPROF_AUDIT=fingerprint), one process, a one-rank NCCL
process group (NCCL still runs every collective). Modes:
  exact OUT.json   collectives over tensors of known bytes; writes, per call in order, the
                   reference fingerprint (tests/integration/fingerprint_reference.py) of the
                   bytes before and after, for bench/fingerprint_compare.py to check against
                   the trace.
  train [--perturb] [--tf32]   a DDP training step of an MLP, fixed seeds and deterministic
                   algorithms, 6 steps; --perturb changes one weight by one ulp before the first
                   step, --tf32 lets matmuls use TF32.
                   --bf16-grads all-reduces the gradients in bf16 (DDP's bf16_compress_hook):
                   the same arithmetic, another representation on the wire.
  cost             ms per all-reduce of 1 MiB and 256 MiB (median of 7 blocks of 20).
  step-cost        ms per step of that training (median of 40 steps after 5 warm-up steps)."""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "integration"))
from fingerprint_reference import fingerprint, probe_bytes  # noqa: E402


def init():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))


def host_bytes(t):
    return t.contiguous().cpu().view(torch.uint8).numpy().tobytes()


def exact(out):
    calls = []

    def record(name, t, op):
        before = fingerprint(host_bytes(t))
        op(t)
        torch.cuda.synchronize()
        calls.append({"func": name, "input": before, "output": fingerprint(host_bytes(t)),
                      "bytes": t.numel() * t.element_size()})

    big = torch.tensor(list(probe_bytes(8192)), dtype=torch.uint8, device="cuda")
    record("ncclAllReduce", big[:4096], dist.all_reduce)
    record("ncclAllReduce", big[3:1004], dist.all_reduce)  # misaligned, a partial last word
    torch.manual_seed(0)
    record("ncclAllReduce", torch.randn(262144, device="cuda"), dist.all_reduce)  # 1 MiB fp32
    record("ncclAllReduce", torch.randn(4099, device="cuda", dtype=torch.bfloat16), dist.all_reduce)
    # PyTorch broadcasts in place with ncclBcast (seen on an H200: bench/RESULTS.md, 2026-12-03 (f67e2b3)).
    record("ncclBcast", torch.randn(1000, device="cuda"), lambda t: dist.broadcast(t, 0))
    json.dump(calls, open(out, "w"))


def train(perturb, tf32, bf16_grads=False, timed_steps=0):
    torch.manual_seed(1234)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                torch.nn.Linear(4096, 1024)).cuda()
    if perturb:
        with torch.no_grad():
            w = model[2].weight
            w[0, 0] = torch.nextafter(w[0, 0], torch.tensor(1.0, device="cuda"))
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=4)
    if bf16_grads:
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        ddp.register_comm_hook(None, default_hooks.bf16_compress_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(64, 1024, device="cuda")
    y = torch.randn(64, 1024, device="cuda")

    def step():
        opt.zero_grad()
        torch.nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()

    if timed_steps:
        for _ in range(5):
            step()
        times = []
        for _ in range(timed_steps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
        print(f"train_step_ms {statistics.median(times):.4f}")
        return
    for _ in range(6):
        step()
    torch.cuda.synchronize()
    print("train: loss", float(torch.nn.functional.mse_loss(ddp(x), y)))


def cost():
    for mib in (1, 256):
        t = torch.randn(mib * 262144, device="cuda")
        for _ in range(5):
            dist.all_reduce(t)
        blocks = []
        for _ in range(7):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(20):
                dist.all_reduce(t)
            torch.cuda.synchronize()
            blocks.append((time.perf_counter() - t0) * 1e3 / 20)
        print(f"allreduce_{mib}MiB_ms {statistics.median(blocks):.4f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["exact", "train", "cost", "step-cost"])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--perturb", action="store_true")
    ap.add_argument("--tf32", action="store_true")
    ap.add_argument("--bf16-grads", action="store_true")
    args = ap.parse_args()
    init()
    if args.mode == "exact":
        exact(args.out)
    elif args.mode == "train":
        train(args.perturb, args.tf32, args.bf16_grads)
    elif args.mode == "step-cost":
        train(False, False, timed_steps=40)
    else:
        cost()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
