#include "grad_sync.h"

#include <algorithm>
#include <chrono>

namespace sim {

std::unique_ptr<GradientSync> GradientSync::Start(const Config& config, std::string* error) {
  std::unique_ptr<GradientSync> sync(new GradientSync(config));
  if (cudaStreamCreateWithFlags(&sync->stream_, cudaStreamNonBlocking) != cudaSuccess) {
    *error = "cannot create the communication stream";
    return nullptr;
  }
  if (config.reduce_scatter &&
      (config.bucket_elems % static_cast<size_t>(config.nranks) != 0 ||
       cudaMalloc(reinterpret_cast<void**>(&sync->shard_),
                  config.bucket_elems / config.nranks * sizeof(float)) != cudaSuccess)) {
    *error = "cannot reduce-scatter buckets of " + std::to_string(config.bucket_elems) +
             " elements over " + std::to_string(config.nranks) + " ranks";
    return nullptr;
  }
  for (int bucket = 0; bucket < config.buckets; ++bucket) {
    void* grads = nullptr;
    if (cudaMalloc(&grads, config.bucket_elems * sizeof(float)) != cudaSuccess) {
      *error = "cannot allocate gradient bucket " + std::to_string(bucket);
      return nullptr;
    }
    sync->grads_.push_back(static_cast<float*>(grads));
    std::fill_n(sync->grads_.back(), config.bucket_elems, static_cast<float>(config.rank + 1));
    cudaEvent_t ready = nullptr;
    if (cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) != cudaSuccess) {
      *error = "cannot create the ready event of bucket " + std::to_string(bucket);
      return nullptr;
    }
    sync->ready_.push_back(ready);
  }
  sync->thread_ = std::thread([raw = sync.get()] { raw->Run(); });
  return sync;
}

GradientSync::~GradientSync() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  for (float* grads : grads_) cudaFree(grads);
  cudaFree(shard_);
  for (cudaEvent_t ready : ready_) cudaEventDestroy(ready);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

bool GradientSync::BucketReady(int bucket, cudaStream_t compute, std::string* error) {
  if (cudaEventRecord(ready_[bucket], compute) != cudaSuccess) {
    *error = "cudaEventRecord failed for bucket " + std::to_string(bucket);
    return false;
  }
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(bucket);
    ++unfinished_;
  }
  changed_.notify_all();
  return true;
}

bool GradientSync::Drain(std::string* error) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return unfinished_ == 0; });
  *error = error_;
  return error_.empty();
}

void GradientSync::Run() {
  for (;;) {
    int bucket = 0;
    bool skip = false;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (stopping_) return;
      bucket = pending_.front();
      pending_.pop_front();
      // After a failure the other ranks are out of step: do not start more collectives.
      skip = !error_.empty();
    }
    const std::string failure = skip ? "" : ReduceBucket(bucket);
    {
      std::lock_guard lock(mutex_);
      if (error_.empty()) error_ = failure;
      --unfinished_;
    }
    changed_.notify_all();
  }
}

std::string GradientSync::ReduceBucket(int bucket) {
  if (cudaStreamWaitEvent(stream_, ready_[bucket], 0) != cudaSuccess) {
    return "cudaStreamWaitEvent failed for bucket " + std::to_string(bucket);
  }
  if (config_.delay_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(config_.delay_ms));
  }
  float* grads = grads_[bucket];
  const size_t shard_elems = config_.bucket_elems / config_.nranks;
  const char* op = config_.reduce_scatter ? "ncclReduceScatter" : "ncclAllReduce";
  const ncclResult_t result =
      config_.reduce_scatter
          ? config_.log->Record(op, "world", config_.nranks, shard_elems, sizeof(float),
                                [&] {
                                  return ncclReduceScatter(grads, shard_, shard_elems, ncclFloat32,
                                                           ncclSum, config_.world, stream_);
                                })
          : config_.log->Record(
                op, "world", config_.nranks, config_.bucket_elems, sizeof(float), [&] {
                  return ncclAllReduce(grads, grads, config_.bucket_elems, ncclFloat32, ncclSum,
                                       config_.world, stream_);
                });
  if (result != ncclSuccess) {
    return std::string(op) + " of bucket " + std::to_string(bucket) + ": " +
           ncclGetErrorString(result);
  }
  if (cudaStreamSynchronize(stream_) != cudaSuccess) return "cudaStreamSynchronize failed";
  const float expected = static_cast<float>(config_.nranks * (config_.nranks + 1) / 2);
  const float* reduced = config_.reduce_scatter ? shard_ : grads;
  for (size_t i = 0; i < (config_.reduce_scatter ? shard_elems : config_.bucket_elems); ++i) {
    if (reduced[i] != expected) {
      return "bucket " + std::to_string(bucket) + " element " + std::to_string(i) + " is " +
             std::to_string(reduced[i]) + " after the " + op + ", expected " +
             std::to_string(expected);
    }
  }
  std::fill_n(grads, config_.bucket_elems, static_cast<float>(config_.rank + 1));
  return "";
}

}  // namespace sim
