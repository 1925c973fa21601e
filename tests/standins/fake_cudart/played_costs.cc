#include "played_costs.h"

#include <cstdlib>

namespace fake_cudart {
namespace {

// A positive number in `name`, else 0.
double Positive(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return *end == '\0' && value > 0 ? value : 0;
}

}  // namespace

uint64_t MallocCostNs() {
  static const uint64_t cost = static_cast<uint64_t>(Positive("FAKE_CUDA_MALLOC_US") * 1000);
  return cost;
}

uint64_t CopyFloorNs(uint64_t bytes) {
  static const double bytes_per_ns = Positive("FAKE_CUDA_COPY_GBPS");  // 1 GB/s = 1 byte/ns
  return bytes_per_ns > 0 ? static_cast<uint64_t>(static_cast<double>(bytes) / bytes_per_ns) : 0;
}

}  // namespace fake_cudart
