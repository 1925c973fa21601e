"""Copies between two GPUs of one process (2 GPUs): the data movement NCCL
never sees, which the report counts as peer copies.

- COPIES contiguous copies of 64 MiB from cuda:0 to cuda:1 and back
  (Tensor.copy_, which PyTorch makes a cudaMemcpyAsync between devices; CUPTI
  reports it as a MEMCPY2 record naming both devices);
- STRIDED copies of every other element of a 64 MiB tensor from cuda:0 into
  cuda:1 (not contiguous: PyTorch runs a copy kernel that reads the peer's
  memory, which CUPTI reports as a kernel, with no address to tell it apart).

Prints the bytes moved each way so the report's peer-copy bytes can be held
against them, and the strided copies' count.
"""
import torch

COPIES, STRIDED, ELEMS = 10, 5, 16 * 1024 * 1024  # float32: 64 MiB


def main():
    a = torch.ones(ELEMS, device="cuda:0")
    b = torch.empty(ELEMS, device="cuda:1")
    for _ in range(COPIES):
        b.copy_(a)
        a.copy_(b)
    half = torch.empty(ELEMS // 2, device="cuda:1")
    for _ in range(STRIDED):
        half.copy_(a[::2])
    torch.cuda.synchronize("cuda:0")
    torch.cuda.synchronize("cuda:1")
    print(f"peer_copy copies {2 * COPIES} bytes_each {ELEMS * 4} total {2 * COPIES * ELEMS * 4} "
          f"strided {STRIDED} strided_bytes_each {ELEMS * 2}")


if __name__ == "__main__":
    main()
