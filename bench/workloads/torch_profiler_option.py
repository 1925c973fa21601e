"""The workloads' profiler options, for the timed part:
  --torch-profiler        inside torch.profiler (CPU + CUDA activities, as a user of it would);
  --torch-profiler-out F  inside torch.profiler (CUDA activities) and an NVTX range "measured",
                          with the count and time of the GPU activities it saw, by kind, written
                          to F (profiler_counts.run_profiled);
  --measured              inside the NVTX range "measured" alone, so that a vprof run's records
                          can be cut to the window a --torch-profiler-out run counted;
or bare."""


def add_arguments(parser):
    parser.add_argument("--torch-profiler", action="store_true")
    parser.add_argument("--torch-profiler-out")
    parser.add_argument("--measured", action="store_true")


def run_with(args, timed):
    """Runs `timed` as the options in `args` (add_arguments's) say; returns what it returns."""
    if args.torch_profiler_out or args.measured:
        import torch
        from profiler_counts import measured, run_profiled
        # Work queued before the window would start on the GPU inside it: wait for it first.
        torch.cuda.synchronize()
        if args.torch_profiler_out:
            return run_profiled(timed, args.torch_profiler_out)
        return measured(timed)
    return run(args.torch_profiler, timed)


def run(profiled, timed):
    if not profiled:
        return timed()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        return timed()
