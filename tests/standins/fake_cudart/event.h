// A fake CUDA event and its recordings. Each cudaEventRecord creates a new EventRecord that the
// stream worker completes when it reaches the marker. cudaStreamWaitEvent keeps the record that
// was most recent at the time of the call, so re-recording the event later does not change what
// the waiting stream waits for (CUDA semantics).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

namespace fake_cudart {

class EventRecord {
 public:
  // event_id names the event and sync_id this recording of it, for activity records
  // (activity_hooks.h).
  EventRecord(uint32_t event_id, uint64_t sync_id) : event_id_(event_id), sync_id_(sync_id) {}

  uint32_t event_id() const { return event_id_; }
  uint64_t sync_id() const { return sync_id_; }
  void Complete(uint64_t completion_ns);
  void Wait();
  bool IsComplete();
  // CLOCK_MONOTONIC instant the worker reached the marker; meaningful once complete.
  uint64_t CompletionNs();

 private:
  const uint32_t event_id_;
  const uint64_t sync_id_;
  std::mutex mutex_;
  std::condition_variable completed_;
  bool complete_ = false;
  uint64_t completion_ns_ = 0;
};

class Event {
 public:
  explicit Event(bool timing_enabled);

  bool timing_enabled() const { return timing_enabled_; }
  // The most recent record, or null if the event was never recorded.
  std::shared_ptr<EventRecord> Latest();
  // Starts a new recording and makes it the most recent one.
  std::shared_ptr<EventRecord> NewRecord();

 private:
  const bool timing_enabled_;
  const uint32_t id_;
  std::mutex mutex_;
  std::shared_ptr<EventRecord> latest_;
};

}  // namespace fake_cudart
