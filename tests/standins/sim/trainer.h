// The simulated training loop of one rank. Each step:
//   forward:  with `input_bytes`, the batch's copy to the device (from pageable or, with
//             `pinned_input`, pinned memory), then `layers` kernels on the compute stream;
//   backward: `layers` kernels in reverse; after every `bucket_layers` of them the bucket's
//             gradients are handed to the GradientSync communication thread;
//   then:     wait for the step's buckets, all-gather 1024 floats of metrics on the world
//             communicator, `opt_kernels` optimizer kernels (with `graph_opt`, one replay of
//             a CUDA graph holding them, captured once before the first step), and every
//             `sync_every` steps a broadcast of `sync_elems` floats from rank 0 on the
//             weight-sync communicator;
//   last:     with `peer_copy_bytes`, a copy of that many bytes to the next device.
// The ground-truth options add a tensor-parallel all-reduce after every layer (`tp_elems`), a
// sharded parameter all-gather before every forward layer with reduce-scattered buckets
// (`shard_elems`), host sleeps before launches (`launch_gap_us`), allocations each step
// (`alloc_per_step`) and a slow rank that starts each step late (`late_start_ms`).
// NVTX ranges mark each step ("train_step N") and its forward, backward and optimizer parts,
// with the names a PyTorch training loop would use, so a report finds steps and phases.
#pragma once

#include <string>

#include "collective_log.h"
#include "nccl.h"
#include "sim_options.h"

namespace sim {

struct Communicators {
  ncclComm_t world;
  ncclComm_t weight_sync;
  ncclComm_t tensor_parallel;  // with --tp-elems only; else null
  int rank;
  int nranks;
};

// Returns false with *error set if a call fails or a collective returns wrong data.
bool Train(const SimOptions& options, const Communicators& comms, CollectiveLog* log,
           std::string* error);

}  // namespace sim
