#include "comm.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "errors.h"
#include "fake_cudart.h"
#include "monotonic_clock.h"
#include "profiler_events.h"
#include "unique_id.h"

namespace fake_nccl {
namespace {

// A new communicator of `nranks` whose region is joined but not yet complete.
ncclResult_t JoinComm(const std::string& name, int nranks, int rank,
                      std::unique_ptr<ncclComm>* comm) {
  auto joined = std::make_unique<ncclComm>();
  if (const ncclResult_t result = TimingModel::FromEnvironment(&joined->timing)) return result;
  if (const ncclResult_t result = SharedRegion::Join(name, nranks, rank, &joined->region)) {
    return result;
  }
  joined->name = name;
  joined->rank = rank;
  joined->nranks = nranks;
  joined->cuda_device = fake_cudart::CurrentDevice();
  // NCCL_ALGO also decides the order of a reduction's sums (data_movement.cc).
  profiler::ChooseAlgorithm(*joined);
  joined->messages_sent.assign(static_cast<size_t>(nranks), 0);
  joined->messages_received.assign(static_cast<size_t>(nranks), 0);
  *comm = std::move(joined);
  return ncclSuccess;
}

// What each rank contributes to ncclCommSplit, exchanged through the collective slots.
struct SplitEntry {
  int32_t color;
  int32_t key;
  char region_name[64];  // a fresh name; the new communicator uses its first member's
};

}  // namespace

ncclResult_t Break(ncclComm& comm, ncclResult_t result) {
  comm.async_error = result;
  return result;
}

ncclResult_t Barrier(ncclComm& comm, const char* what) {
  if (ArriveAndWait(comm.region->header().barrier, static_cast<uint32_t>(comm.nranks),
                    standins::MonotonicNs() + comm.timing.timeout_ns)) {
    return ncclSuccess;
  }
  return Break(comm, SystemFail(comm.timing.TimeoutText() + " in " + what + ": rank " +
                                std::to_string(comm.rank) + " of " + std::to_string(comm.nranks) +
                                " of communicator " + comm.name +
                                " waited for the other ranks (FAKE_NCCL_TIMEOUT_S)"));
}

ncclResult_t InitComm(ncclComm_t* comm, int nranks, const std::string& name, int rank) {
  std::unique_ptr<ncclComm> joined;
  if (const ncclResult_t result = JoinComm(name, nranks, rank, &joined)) return result;
  const uint64_t timeout_ns = joined->timing.timeout_ns;
  if (!joined->region->WaitForAllRanks(standins::MonotonicNs() + timeout_ns)) {
    return SystemFail(joined->timing.TimeoutText() + " in ncclCommInitRank: rank " +
                      std::to_string(rank) + " waited for all " + std::to_string(nranks) +
                      " ranks to join communicator " + name + " (FAKE_NCCL_TIMEOUT_S)");
  }
  *comm = joined.release();
  return ncclSuccess;
}

ncclResult_t InitSingleThreadClique(ncclComm_t* comms, int ndev, const int* devlist) {
  const std::string name = NewRegionName();
  std::vector<std::unique_ptr<ncclComm>> joined(static_cast<size_t>(ndev));
  for (int rank = 0; rank < ndev; ++rank) {
    // All ranks join from this thread, so the last join completes the region.
    if (const ncclResult_t result = JoinComm(name, ndev, rank, &joined[rank])) {
      if (rank > 0) joined[0]->region->RemoveName();
      return result;
    }
    joined[rank]->cuda_device = devlist != nullptr ? devlist[rank] : rank;
    joined[rank]->single_thread_clique = ndev > 1;
  }
  for (int rank = 0; rank < ndev; ++rank) comms[rank] = joined[rank].release();
  return ncclSuccess;
}

ncclResult_t SplitComm(ncclComm* parent, int color, int key, ncclComm_t* newcomm) {
  // The first barrier makes sure no rank still reads our slot from the previous collective.
  if (const ncclResult_t result = Barrier(*parent, "ncclCommSplit")) return result;
  SplitEntry mine{color, key, {}};
  const std::string candidate_name = NewRegionName();
  std::memcpy(mine.region_name, candidate_name.c_str(), candidate_name.size() + 1);
  std::memcpy(parent->region->slot(parent->rank, 0), &mine, sizeof mine);
  if (const ncclResult_t result = Barrier(*parent, "ncclCommSplit")) return result;

  *newcomm = nullptr;
  if (color == NCCL_SPLIT_NOCOLOR) return ncclSuccess;
  // Members ordered by (key, parent rank).
  std::vector<std::pair<int32_t, int>> members;
  for (int rank = 0; rank < parent->nranks; ++rank) {
    SplitEntry entry;
    std::memcpy(&entry, parent->region->slot(rank, 0), sizeof entry);
    if (entry.color == color) members.emplace_back(entry.key, rank);
  }
  std::sort(members.begin(), members.end());
  const auto me = std::find(members.begin(), members.end(), std::pair{key, parent->rank});
  SplitEntry leader;
  std::memcpy(&leader, parent->region->slot(members.front().second, 0), sizeof leader);
  return InitComm(newcomm, static_cast<int>(members.size()), leader.region_name,
                  static_cast<int>(me - members.begin()));
}

ncclResult_t ShrinkComm(ncclComm* parent, const std::vector<int>& excluded, ncclComm_t* newcomm) {
  // The excluded ranks may be dead, so the parent's barrier cannot be used: the remaining ranks
  // agree on the child's name by computing it, and meet when they join it.
  const int below_me = static_cast<int>(
      std::count_if(excluded.begin(), excluded.end(), [&](int r) { return r < parent->rank; }));
  return InitComm(newcomm, parent->nranks - static_cast<int>(excluded.size()),
                  DerivedRegionName(parent->name, parent->shrinks++), parent->rank - below_me);
}

}  // namespace fake_nccl
