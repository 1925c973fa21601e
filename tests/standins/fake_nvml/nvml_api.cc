// Fake libnvidia-ml.so.1: the NVML functions vprof reads device memory with
// (cupti/nvml_functions.def), over the fake CUDA runtime's devices. A GPU's
// UUID is the one the fake CUPTI gives it ("GPU-fa4ec0de-0000-0000-0000-"
// and the ordinal in 12 hex digits); its memory in use is FAKE_NVML_BASE_MIB
// (the driver's and contexts' share, read at every call) plus what the fake
// runtime's cudaMalloc holds (on any device: the fake CUPTI's kernel records
// name device 0, the device vprof then samples), of 80 GiB. FAKE_NVML_FAIL=init makes
// nvmlInit_v2 fail as without a driver.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cupti/nvml_abi.h"

namespace {

namespace nvml = vprof::nvml;

constexpr unsigned long long kTotalBytes = 80ull << 30;  // the fake CUPTI's globalMemorySize
constexpr nvml::Return kUninitialized = 1;               // NVML_ERROR_UNINITIALIZED
constexpr nvml::Return kInvalidArgument = 2;             // NVML_ERROR_INVALID_ARGUMENT
constexpr nvml::Return kNotFound = 6;                    // NVML_ERROR_NOT_FOUND
constexpr nvml::Return kDriverNotLoaded = 9;             // NVML_ERROR_DRIVER_NOT_LOADED
constexpr char kUuidPrefix[] = "GPU-fa4ec0de-0000-0000-0000-";

bool g_initialized = false;

// A device handle is 1 + its ordinal, never dereferenced.
nvml::Device HandleOf(unsigned ordinal) {
  return reinterpret_cast<nvml::Device>(static_cast<uintptr_t>(ordinal) + 1);
}

// The bytes the fake runtime holds, asked of the loaded libcudart.so.13 (0 when the process has
// not loaded it).
uint64_t RuntimeBytesHeld() {
  void* cudart = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
  if (cudart == nullptr) return 0;
  using BytesHeld = uint64_t (*)();
  const auto held = reinterpret_cast<BytesHeld>(dlsym(cudart, "fake_cudart_bytes_held"));
  const uint64_t bytes = held ? held() : 0;
  dlclose(cudart);  // drops only the reference RTLD_NOLOAD took
  return bytes;
}

int DeviceCount() {
  const char* v = std::getenv("FAKE_CUDA_DEVICES");
  return v ? std::atoi(v) : 8;
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

nvml::Return nvmlInit_v2() {
  const char* fail = std::getenv("FAKE_NVML_FAIL");
  if (fail && std::strcmp(fail, "init") == 0) return kDriverNotLoaded;
  g_initialized = true;
  return nvml::kSuccess;
}

const char* nvmlErrorString(nvml::Return result) {
  switch (result) {
    case nvml::kSuccess:
      return "Success";
    case kUninitialized:
      return "Uninitialized";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotFound:
      return "Not Found";
    case kDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

nvml::Return nvmlDeviceGetHandleByUUID(const char* uuid, nvml::Device* device) {
  if (!g_initialized) return kUninitialized;
  if (uuid == nullptr || device == nullptr) return kInvalidArgument;
  const size_t prefix = sizeof kUuidPrefix - 1;
  if (std::strncmp(uuid, kUuidPrefix, prefix) != 0 || std::strlen(uuid) != prefix + 12) {
    return kNotFound;
  }
  char* end = nullptr;
  const unsigned long ordinal = std::strtoul(uuid + prefix, &end, 16);
  if (*end != '\0' || ordinal >= static_cast<unsigned long>(DeviceCount())) return kNotFound;
  *device = HandleOf(static_cast<unsigned>(ordinal));
  return nvml::kSuccess;
}

nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device device, nvml::Memory* memory) {
  if (!g_initialized) return kUninitialized;
  if (device == nullptr || memory == nullptr) return kInvalidArgument;
  const char* base_mib = std::getenv("FAKE_NVML_BASE_MIB");
  const unsigned long long base = (base_mib ? std::strtoull(base_mib, nullptr, 10) : 512) << 20;
  memory->total = kTotalBytes;
  memory->used = base + RuntimeBytesHeld();
  memory->free = kTotalBytes - memory->used;
  return nvml::kSuccess;
}

}  // extern "C"
#pragma GCC visibility pop
