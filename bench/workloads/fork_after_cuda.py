"""Forks children once CUDA runs, as a data loader's fork-started workers do, and lets each
leave through sys.exit (so exit's handlers run in it, vprof's and libcupti's copies among
them) while the parent keeps launching. Prints "fork_after_cuda children=N failed=F kernels=K";
exits non-zero when a child did not exit 0."""
import argparse
import os
import sys

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--children", type=int, default=8)
    args = parser.parse_args()
    x = torch.ones(1 << 16, device="cuda")
    launched = 0
    failed = 0
    for _ in range(args.children):
        for _ in range(500):
            x.add_(1.0)
            launched += 1
        pid = os.fork()
        if pid == 0:
            sys.exit(0)
        for _ in range(500):
            x.add_(1.0)
            launched += 1
        _, status = os.waitpid(pid, 0)
        failed += status != 0
    torch.cuda.synchronize()
    print(f"fork_after_cuda children={args.children} failed={failed} kernels={launched}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
