"""A small Llama training step as users write it: a transformers LlamaForCausalLM built from a
config with random weights (6 layers, hidden 1024), bf16 autocast, fused AdamW, batch 4 x 512
tokens. Prints the median step time over --steps timed steps (after 5 warm-up steps), each step
synchronised and timed with host clocks. --torch-profiler, --torch-profiler-out F and --measured:
the timed steps inside torch.profiler, or counted by it, or marked for vprof's counts
(torch_profiler_option.py). --nvtx marks each timed step with an NVTX range
"train_step" (what vprof's step analysis and its deep-capture cost estimate read). --slow-step N
--slow-ms M makes timed step N (from 0) deliberately slow: the host stalls M ms between forward
and backward, as a data loader or a checkpoint write would. --title T renames the process after
the warm-up the way Ray names an actor (setproctitle, when installed). --phase-memory prints,
per phase (forward, backward, optimizer) over the timed steps, the most PyTorch's caching
allocator held from CUDA inside it (torch.cuda.max_memory_reserved after resetting the peak at
the phase's start) and the least (memory_reserved at its start); --nvtx-phases also marks each
phase with an NVTX range of its name; --empty-cache returns the cache to CUDA after every step,
so that each phase allocates anew (vprof's peaks per phase are compared with these).
--compile MODE runs the model through torch.compile in that mode (reduce-overhead replays it
from CUDA graphs).
--spin-ms M injects a slow operator: after each step's forward, one GPU kernel that spins about
M ms (torch.cuda._sleep, ATen's spin_kernel, calibrated once against CUDA events); the pair with
and without it is the ground truth of `vprof whatif --faster '*spin_kernel*=off'`."""
import argparse
import contextlib
import statistics
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

import torch_profiler_option

WARMUP = 5


def spin_cycles_per_ms():
    """The GPU clock cycles torch.cuda._sleep spins per millisecond, by CUDA events."""
    cycles = 10_000_000
    torch.cuda._sleep(cycles)  # the first launch loads the kernel
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return cycles / start.elapsed_time(end)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    torch_profiler_option.add_arguments(ap)
    ap.add_argument("--nvtx", action="store_true")
    ap.add_argument("--slow-step", type=int, default=-1)
    ap.add_argument("--slow-ms", type=float, default=0.0)
    ap.add_argument("--phase-memory", action="store_true")
    ap.add_argument("--nvtx-phases", action="store_true")
    ap.add_argument("--empty-cache", action="store_true")
    ap.add_argument("--spin-ms", type=float, default=0.0)
    ap.add_argument("--compile", metavar="MODE",
                    help="torch.compile the model in this mode (reduce-overhead: CUDA graphs)")
    ap.add_argument("--title")
    ap.add_argument("--started-file", help="created once the warm-up is done and the timed steps "
                    "begin (a deep-capture trigger waits for it)")
    args = ap.parse_args()
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=6,
                         num_attention_heads=16, num_key_value_heads=16, vocab_size=32000,
                         max_position_embeddings=1024)
    model = LlamaForCausalLM(config).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    if args.compile:
        model = torch.compile(model, mode=args.compile)
    tokens = torch.randint(0, config.vocab_size, (4, 512), device="cuda")

    phase_peak = {}  # phase: (most reserved, least reserved) over the timed steps
    measuring = [False]

    @contextlib.contextmanager
    def phase(name):
        if args.nvtx_phases:
            torch.cuda.nvtx.range_push(name)
        if measuring[0]:
            low = torch.cuda.memory_reserved()
            torch.cuda.reset_peak_memory_stats()
        yield
        if measuring[0]:
            high, least = phase_peak.get(name, (0, low))
            phase_peak[name] = (max(high, torch.cuda.max_memory_reserved()), min(least, low))
        if args.nvtx_phases:
            torch.cuda.nvtx.range_pop()

    spin_cycles = spin_cycles_per_ms() * args.spin_ms if args.spin_ms else 0

    def step(stall_ms=0.0):
        with phase("forward"):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=tokens, labels=tokens).loss
            if spin_cycles:
                torch.cuda._sleep(int(spin_cycles))
        if stall_ms:
            time.sleep(stall_ms / 1e3)
        with phase("backward"):
            loss.backward()
        with phase("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        if args.empty_cache:
            torch.cuda.empty_cache()

    def timed():
        times = []
        for i in range(args.steps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if args.nvtx:
                torch.cuda.nvtx.range_push("train_step")
            step(args.slow_ms if i == args.slow_step else 0.0)
            torch.cuda.synchronize()
            if args.nvtx:
                torch.cuda.nvtx.range_pop()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)

    for _ in range(WARMUP):
        step()
    if args.title:
        import setproctitle
        setproctitle.setproctitle(args.title)
    if args.started_file:
        open(args.started_file, "w").close()
    measuring[0] = args.phase_memory
    ms = torch_profiler_option.run_with(args, timed)
    print(f"llama_step_ms {ms:.2f}")
    # What PyTorch's caching allocator held from CUDA at most: vprof's peak of
    # device memory held is compared with it (bench/device_memory.sh).
    # (Under --phase-memory the peak was reset at each phase: the phases' most is the step's.)
    reserved = max((high for high, _ in phase_peak.values()), default=0)
    print(f"max_memory_reserved_bytes {reserved or torch.cuda.max_memory_reserved()}")
    for name, (high, low) in phase_peak.items():
        print(f"phase_reserved_bytes {name} {high} {low}")


if __name__ == "__main__":
    main()
