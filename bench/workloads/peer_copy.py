"""Copies between two GPUs of one process (2 GPUs): the data movement NCCL
never sees, which the report counts as peer copies (CUPTI copy kind PtoP).
COPIES copies of 64 MiB from cuda:0 to cuda:1 and back; prints the bytes
moved each way so the report's peer-copy bytes can be held against them.
"""
import torch

COPIES, ELEMS = 10, 16 * 1024 * 1024  # float32: 64 MiB


def main():
    a = torch.ones(ELEMS, device="cuda:0")
    b = torch.empty(ELEMS, device="cuda:1")
    for _ in range(COPIES):
        b.copy_(a)
        a.copy_(b)
    torch.cuda.synchronize("cuda:0")
    torch.cuda.synchronize("cuda:1")
    print(f"peer_copy copies {2 * COPIES} bytes_each {ELEMS * 4} total {2 * COPIES * ELEMS * 4}")


if __name__ == "__main__":
    main()
