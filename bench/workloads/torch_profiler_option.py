"""The workloads' --torch-profiler option: runs the timed part inside torch.profiler (CPU + CUDA
activities, as a user of it would) or bare."""


def run(profiled, timed):
    if not profiled:
        return timed()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        return timed()
