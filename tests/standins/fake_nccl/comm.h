// The communicator behind ncclComm_t: one rank's view of a group of processes that share a
// SharedRegion. A communicator is used by one thread at a time (as NCCL requires), so it has no
// locks of its own: with FAKE_NCCL_KERNELS=1 that thread is the stream's worker for what the
// collectives do once queued (collective.h), and the caller only queues them in order.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nccl.h"
#include "reduction.h"
#include "shared_region.h"
#include "timing_model.h"

struct ncclComm {
  std::unique_ptr<fake_nccl::SharedRegion> region;
  std::string name;  // the region's name, from the unique id
  int rank = 0;
  int nranks = 0;
  int cuda_device = 0;
  // From ncclCommInitAll with several devices: every rank lives in this one thread, so calls
  // that need all ranks to participate at once cannot be served.
  bool single_thread_clique = false;
  fake_nccl::TimingModel timing;
  // Set when a wait timed out: the shared state is then out of step with the other ranks.
  // Atomic because with FAKE_NCCL_KERNELS=1 the waits run on the stream's worker thread while
  // the caller's thread checks it before queueing more.
  std::atomic<ncclResult_t> async_error{ncclSuccess};
  uint64_t collectives_started = 0;
  uint64_t shrinks = 0;                 // ncclCommShrink calls, equal on the ranks that take part
  std::vector<uint32_t> messages_sent;  // per peer
  std::vector<uint32_t> messages_received;  // per peer
  // ncclRedOpCreatePreMulSum operations; op value ncclNumOps + i. Destroyed ones are reset to
  // a default Reduction with live = false so their value can be reused.
  struct UserOp {
    bool live = false;
    ncclDataType_t type = ncclFloat32;
    fake_nccl::Reduction reduction;
  };
  std::vector<UserOp> user_ops;
  // The profiler plugin (profiler_plugin.h): whether this communicator holds it loaded, the
  // context its init returned, and what NCCL keeps per communicator for its events.
  bool profiler_attached = false;
  void* profiler_context = nullptr;
  uint64_t seq_number[11] = {};  // collectives so far, per ncclFunc_t
  const char* algo = nullptr;    // NCCL's names, e.g. "RING" and "SIMPLE"
  const char* proto = nullptr;
};

namespace fake_nccl {

// ncclCommInitRank: joins the region named by `name` and waits for all ranks.
ncclResult_t InitComm(ncclComm_t* comm, int nranks, const std::string& name, int rank);

// ncclCommInitAll: ndev ranks of a new communicator, all in this process.
ncclResult_t InitSingleThreadClique(ncclComm_t* comms, int ndev, const int* devlist);

// ncclCommSplit: collective over `parent`.
ncclResult_t SplitComm(ncclComm* parent, int color, int key, ncclComm_t* newcomm);

// ncclCommShrink: collective over the ranks of `parent` not in `excluded`, which may be gone.
ncclResult_t ShrinkComm(ncclComm* parent, const std::vector<int>& excluded, ncclComm_t* newcomm);

// Marks the communicator broken after a failed wait and returns the failure.
ncclResult_t Break(ncclComm& comm, ncclResult_t result);

// Waits at the communicator's barrier; a timeout breaks the communicator.
ncclResult_t Barrier(ncclComm& comm, const char* what);

}  // namespace fake_nccl
