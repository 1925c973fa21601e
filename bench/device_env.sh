# Sourced by every bench/device_*.sh: the environment each run on the GPU
# machine needs, and the libvprof.so to test ($1, default .device/libvprof.so).
# NVLink multicast stays off for every program there (the device tool's rule).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
lib="$(realpath "${1:-.device/libvprof.so}")"
