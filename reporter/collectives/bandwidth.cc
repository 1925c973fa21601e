#include "reporter/collectives/bandwidth.h"

#include <limits>

namespace vprof::reporter {
namespace {

// The ops whose count is per rank, so S covers every rank's share.
bool SizeScalesWithRanks(NcclFunction op) {
  switch (op) {
    case NcclFunction::kAllGather:
    case NcclFunction::kReduceScatter:
    case NcclFunction::kAlltoAll:
    case NcclFunction::kGather:
    case NcclFunction::kScatter:
      return true;
    default:
      return false;
  }
}

}  // namespace

uint64_t CollectiveSizeBytes(NcclFunction op, uint64_t event_bytes, uint32_t nranks) {
  if (!SizeScalesWithRanks(op) || nranks == 0) return event_bytes;
  if (event_bytes > std::numeric_limits<uint64_t>::max() / nranks) {
    return std::numeric_limits<uint64_t>::max();
  }
  return event_bytes * nranks;
}

double BusFactor(NcclFunction op, uint32_t nranks) {
  if (nranks == 0) return 1.0;
  const double n = nranks;
  if (op == NcclFunction::kAllReduce) return 2.0 * (n - 1.0) / n;
  if (SizeScalesWithRanks(op)) return (n - 1.0) / n;
  return 1.0;
}

std::optional<double> AlgorithmBandwidthGBps(uint64_t size_bytes, int64_t time_ns) {
  if (time_ns <= 0) return std::nullopt;
  return static_cast<double>(size_bytes) / static_cast<double>(time_ns);
}

}  // namespace vprof::reporter
