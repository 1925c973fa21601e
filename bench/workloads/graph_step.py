"""A CUDA-graph training step, the way PyTorch's docs capture a whole network: an 8-layer bf16
MLP's forward, backward and a capturable Adam step captured once into a graph, then replayed
(the shape of a rollout engine's decode loop: many small kernels per replay, no Python per
kernel). Prints the median time of one replay over 7 blocks of --replays replays.
--torch-profiler, --torch-profiler-out F and --measured: the timed replays inside torch.profiler,
or counted by it, or marked for vprof's counts (torch_profiler_option.py)."""
import argparse
import statistics
import time

import torch

import torch_profiler_option

LAYERS, WIDTH, BATCH, BLOCKS = 8, 1024, 256, 7


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replays", type=int, default=200)
    torch_profiler_option.add_arguments(ap)
    args = ap.parse_args()
    torch.manual_seed(0)
    layers = []
    for _ in range(LAYERS):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).cuda().to(torch.bfloat16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, capturable=True)
    x = torch.randn(BATCH, WIDTH, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(BATCH, WIDTH, device="cuda", dtype=torch.bfloat16)

    def step():
        opt.zero_grad(set_to_none=False)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # warm-up on a side stream, as capture requires
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.cuda.graph(graph):  # capture, then instantiate on leaving
        step()
    torch.cuda.synchronize()
    capture_ms = (time.perf_counter() - t0) * 1e3

    def timed():
        times = []
        for _ in range(BLOCKS):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.replays):
                graph.replay()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3 / args.replays)
        return statistics.median(times)

    for _ in range(20):
        graph.replay()
    ms = torch_profiler_option.run_with(args, timed)
    print(f"graph_step_ms {ms:.3f}")
    print(f"graph_capture_ms {capture_ms:.3f}")


if __name__ == "__main__":
    main()
