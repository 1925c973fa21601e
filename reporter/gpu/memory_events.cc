#include "reporter/gpu/memory_events.h"

#include <array>

namespace vprof::reporter {

bool IsDeviceMemoryApi(std::string_view api_name) {
  if (api_name.find("Host") != std::string_view::npos) return false;
  constexpr std::array<std::string_view, 8> kFragments = {
      "cudaMalloc", "cudaFree", "cuMemAlloc", "cuMemFree",
      "cuMemCreate", "cuMemRelease", "cuMemMap", "cuMemUnmap"};
  for (const std::string_view fragment : kFragments) {
    if (api_name.find(fragment) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace vprof::reporter
