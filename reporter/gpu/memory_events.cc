#include "reporter/gpu/memory_events.h"

#include <array>

#include "vprof_trace.pb.h"

namespace vprof::reporter {

namespace {

// GpuMemoryOp.operation and .memory_kind values (CUPTI's enums).
constexpr uint32_t kMemoryOperationAllocation = 1;
constexpr uint32_t kMemoryOperationRelease = 2;
constexpr uint32_t kMemoryKindDevice = 3;

}  // namespace

std::optional<int64_t> DeviceMemoryDelta(const vprof::trace::GpuMemoryOp& op) {
  if (op.memory_kind() != kMemoryKindDevice) return std::nullopt;
  const auto bytes = static_cast<int64_t>(op.bytes());
  if (op.operation() == kMemoryOperationAllocation) return bytes;
  if (op.operation() == kMemoryOperationRelease) return -bytes;
  return std::nullopt;
}

bool IsDeviceMemoryApi(std::string_view api_name) {
  if (api_name.find("Host") != std::string_view::npos) return false;
  constexpr std::array<std::string_view, 8> kFragments = {
      "cudaMalloc",  "cudaFree",     "cuMemAlloc", "cuMemFree",
      "cuMemCreate", "cuMemRelease", "cuMemMap",   "cuMemUnmap"};
  for (const std::string_view fragment : kFragments) {
    if (api_name.find(fragment) != std::string_view::npos) return true;
  }
  return false;
}

MemoryCall MemoryCallOf(std::string_view api_name) {
  if (!IsDeviceMemoryApi(api_name)) return MemoryCall::kNone;
  if (api_name.find("cuMemUnmap") != std::string_view::npos) return MemoryCall::kUnmap;
  if (api_name.find("cuMemMap") != std::string_view::npos) return MemoryCall::kMap;
  return MemoryCall::kAllocateOrFree;
}

}  // namespace vprof::reporter
