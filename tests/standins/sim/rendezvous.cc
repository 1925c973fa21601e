#include "rendezvous.h"

#include <cstdio>
#include <fstream>

#include "monotonic_clock.h"

namespace sim {
namespace {

constexpr uint64_t kTimeoutNs = 60 * standins::kNsPerSecond;
constexpr uint64_t kPollNs = 1'000'000;

}  // namespace

bool ShareUniqueId(const std::string& rendezvous_dir, int rank, ncclUniqueId* id,
                   std::string* error) {
  const std::string path = rendezvous_dir + "/nccl_world.id";
  if (rank == 0) {
    if (const ncclResult_t result = ncclGetUniqueId(id)) {
      *error = std::string("ncclGetUniqueId: ") + ncclGetErrorString(result);
      return false;
    }
    // Written aside and renamed into place, so a reader never sees a partial id.
    const std::string draft = path + ".draft";
    std::ofstream out(draft, std::ios::binary);
    if (!out.write(id->internal, sizeof id->internal) || (out.close(), !out) ||
        std::rename(draft.c_str(), path.c_str()) != 0) {
      *error = "cannot publish " + path;
      return false;
    }
    return true;
  }
  const uint64_t deadline_ns = standins::MonotonicNs() + kTimeoutNs;
  while (standins::MonotonicNs() < deadline_ns) {
    std::ifstream published(path, std::ios::binary);
    if (published.read(id->internal, sizeof id->internal)) return true;
    standins::SleepUntilNs(standins::MonotonicNs() + kPollNs);
  }
  *error = "timed out waiting for rank 0 to publish " + path;
  return false;
}

}  // namespace sim
