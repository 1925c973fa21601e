// The communication thread of data-parallel training, as in PyTorch DDP: while backward runs on
// the compute stream, each gradient bucket that becomes ready is all-reduced on a separate
// communication stream, then checked.
#pragma once

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collective_log.h"
#include "nccl.h"

namespace sim {

class GradientSync {
 public:
  struct Config {
    ncclComm_t world;
    int rank;
    int nranks;
    int buckets;
    size_t bucket_elems;
    // The straggler sleeps this long on the communication thread before each of its bucket
    // all-reduces; 0 for the other ranks.
    uint64_t delay_ms;
    CollectiveLog* log;
    // Reduce-scatter each bucket (sharded data parallel) instead of all-reducing it.
    bool reduce_scatter = false;
  };

  // Allocates the buckets, filled with rank+1, and starts the communication thread.
  static std::unique_ptr<GradientSync> Start(const Config& config, std::string* error);
  ~GradientSync();

  // Main thread, after the bucket's last backward kernel was queued on `compute`: marks the
  // gradients ready with an event and hands the bucket to the communication thread.
  bool BucketReady(int bucket, cudaStream_t compute, std::string* error);
  // Waits until every bucket handed over so far has been reduced and checked.
  bool Drain(std::string* error);

 private:
  explicit GradientSync(const Config& config) : config_(config) {}
  void Run();
  // All-reduces (or reduce-scatters) one bucket, checks that every element it gave this rank
  // is the sum of rank+1 over all ranks and refills the bucket with rank+1 for the next step.
  // Returns what went wrong, or "".
  std::string ReduceBucket(int bucket);

  const Config config_;
  cudaStream_t stream_ = nullptr;
  std::vector<float*> grads_;
  float* shard_ = nullptr;  // reduce_scatter: this rank's reduced share of a bucket
  std::vector<cudaEvent_t> ready_;
  std::thread thread_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<int> pending_;
  int unfinished_ = 0;  // handed over, not yet reduced
  bool stopping_ = false;
  std::string error_;  // the first failure
};

}  // namespace sim
