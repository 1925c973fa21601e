"""A step that offloads its weights and loads them back, as colocated training
and rollout do between phases: each NVTX range "step" runs matmuls over
--tensors weight tensors of --mib MiB each ("train"), copies every weight to
pinned host memory and releases its device storage ("offload"), then
allocates the storage again and copies the weights back ("onload"). With
--vmm each step also releases and restores as many bytes through CUDA's
virtual-memory calls (cuMemCreate, cuMemMap, cuMemUnmap, cuMemRelease, through
ctypes), as torch_memory_saver does. Prints the step median
and the bytes each direction moves per step (bench/device_memory.sh compares
vprof's figures with them)."""
import argparse
import ctypes
import statistics
import time

import torch


class MemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class MemAllocationProp(ctypes.Structure):  # CUmemAllocationProp, as cuda.h lays it out
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", MemLocation), ("win32HandleMetaData", ctypes.c_void_p),
                ("allocFlags", AllocFlags)]


def vmm_cycle(nbytes, device):
    """Releases and restores `nbytes` of physical memory behind a reserved address range through
    the driver's virtual-memory calls: create and map (onload's half), unmap and release
    (offload's half). The CUDA context is PyTorch's, already current."""
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            raise SystemExit(f"offload_step: {what} failed with CUresult {result}")

    prop = MemAllocationProp()
    prop.type = 1           # CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = 1  # CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = device
    gran = ctypes.c_size_t()
    check(cuda.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop), 0),
          "cuMemGetAllocationGranularity")
    size = (nbytes + gran.value - 1) // gran.value * gran.value
    va = ctypes.c_uint64()
    check(cuda.cuMemAddressReserve(ctypes.byref(va), ctypes.c_size_t(size), ctypes.c_size_t(0),
                                   ctypes.c_uint64(0), ctypes.c_uint64(0)), "cuMemAddressReserve")
    handle = ctypes.c_uint64()
    check(cuda.cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(prop),
                           ctypes.c_uint64(0)), "cuMemCreate")
    check(cuda.cuMemMap(va, ctypes.c_size_t(size), ctypes.c_size_t(0), handle, ctypes.c_uint64(0)),
          "cuMemMap")
    check(cuda.cuMemUnmap(va, ctypes.c_size_t(size)), "cuMemUnmap")
    check(cuda.cuMemRelease(handle), "cuMemRelease")
    check(cuda.cuMemAddressFree(va, ctypes.c_size_t(size)), "cuMemAddressFree")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--tensors", type=int, default=8)
    ap.add_argument("--mib", type=int, default=128)
    ap.add_argument("--vmm", action="store_true")
    args = ap.parse_args()
    side = int((args.mib * (1 << 20) // 2) ** 0.5)  # bf16 square matrices of about --mib MiB
    weights = [torch.randn(side, side, device="cuda", dtype=torch.bfloat16)
               for _ in range(args.tensors)]
    host = [torch.empty(w.shape, dtype=w.dtype, pin_memory=True) for w in weights]
    nbytes = [w.untyped_storage().nbytes() for w in weights]
    x = torch.randn(side, side, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("step")
        torch.cuda.nvtx.range_push("train")
        for w in weights:
            x = torch.tanh(x @ w)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("offload")
        for w, h in zip(weights, host):
            h.copy_(w, non_blocking=True)
        torch.cuda.synchronize()
        for w in weights:
            w.untyped_storage().resize_(0)
        if args.vmm:
            vmm_cycle(sum(nbytes), torch.cuda.current_device())
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("onload")
        for w, h, n in zip(weights, host, nbytes):
            w.untyped_storage().resize_(n)
            w.copy_(h, non_blocking=True)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"offload_step_ms {statistics.median(times):.2f}")
    print(f"offload_bytes_per_step {sum(nbytes)}")
    print(f"onload_bytes_per_step {sum(nbytes)}")
    print(f"max_memory_reserved_bytes {torch.cuda.max_memory_reserved()}")


if __name__ == "__main__":
    main()
