# Sourced by every bench/device_*.sh: the environment each run on the GPU
# machine needs, and the libvprof.so to test ($1, default .device/libvprof.so).
# NVLink multicast stays off for every program there (the device tool's rule).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
lib="$(realpath "${1:-.device/libvprof.so}")"

# For the scripts that also report there: `vprof` is the reporter to run ($1 of the call,
# default .device/vprof), which finds the carried libprotobuf beside libvprof.so.
use_reporter() {
  vprof="$(realpath "${1:-.device/vprof}")"
  export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
