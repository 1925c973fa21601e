"""NCCL reached the way vLLM's PyNccl reaches it (torchrun, 2 GPUs).

libnccl is opened with ctypes (dlopen, RTLD_LOCAL) and every call goes
through a symbol looked up on that handle, so no preload wrapper sees it;
torch.distributed runs on gloo and only carries the unique id. NCCL's
profiler plugin and CUPTI still see the collectives: vprof's coverage table
must show them as calls that bypassed the preload. Prints, on rank 0, how many
collectives each rank issued and a checksum.
"""
import ctypes
import glob
import os

import torch
import torch.distributed as dist

ALL_REDUCES, ALL_GATHERS, ELEMS = 30, 10, 1 << 20
NCCL_FLOAT32, NCCL_SUM = 7, 0


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 128)]


def load_nccl():
    import nvidia.nccl
    path = glob.glob(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so*"))[0]
    lib = ctypes.CDLL(path)  # the copy torch already loaded: same handle, no wrappers
    lib.ncclGetErrorString.restype = ctypes.c_char_p
    return lib


def check(lib, rc):
    if rc != 0:
        raise RuntimeError(lib.ncclGetErrorString(rc).decode())


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("gloo")
    lib = load_nccl()
    uid = UniqueId()
    if rank == 0:
        check(lib, lib.ncclGetUniqueId(ctypes.byref(uid)))
    box = [bytes(uid.internal)]
    dist.broadcast_object_list(box, src=0)
    ctypes.memmove(ctypes.byref(uid), box[0], 128)
    comm = ctypes.c_void_p()
    check(lib, lib.ncclCommInitRank(ctypes.byref(comm), world, uid, rank))
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    x = torch.full((ELEMS,), float(rank + 1), device="cuda")
    gathered = torch.empty(ELEMS * world, device="cuda")
    for _ in range(ALL_REDUCES):
        check(lib, lib.ncclAllReduce(ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(x.data_ptr()),
                                     ctypes.c_size_t(ELEMS), NCCL_FLOAT32, NCCL_SUM, comm, stream))
        x.mul_(1.0 / world)
    for _ in range(ALL_GATHERS):
        check(lib, lib.ncclAllGather(ctypes.c_void_p(x.data_ptr()),
                                     ctypes.c_void_p(gathered.data_ptr()), ctypes.c_size_t(ELEMS),
                                     NCCL_FLOAT32, comm, stream))
    torch.cuda.synchronize()
    check(lib, lib.ncclCommDestroy(comm))
    if rank == 0:
        print(f"ctypes_nccl collectives_per_rank {ALL_REDUCES + ALL_GATHERS} "
              f"checksum {gathered.sum().item():.6e}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
