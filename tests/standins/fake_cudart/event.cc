#include "event.h"

#include <atomic>

namespace fake_cudart {
namespace {

// Process-wide, like CUPTI's event ids and sync ids; 0 is never used.
std::atomic<uint32_t> g_last_event_id{0};
std::atomic<uint64_t> g_last_sync_id{0};

}  // namespace

Event::Event(bool timing_enabled)
    : timing_enabled_(timing_enabled), id_(g_last_event_id.fetch_add(1) + 1) {}

void EventRecord::Complete(uint64_t completion_ns) {
  {
    std::lock_guard lock(mutex_);
    complete_ = true;
    completion_ns_ = completion_ns;
  }
  completed_.notify_all();
}

void EventRecord::Wait() {
  std::unique_lock lock(mutex_);
  completed_.wait(lock, [this] { return complete_; });
}

bool EventRecord::IsComplete() {
  std::lock_guard lock(mutex_);
  return complete_;
}

uint64_t EventRecord::CompletionNs() {
  std::lock_guard lock(mutex_);
  return completion_ns_;
}

std::shared_ptr<EventRecord> Event::Latest() {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::shared_ptr<EventRecord> Event::NewRecord() {
  auto record = std::make_shared<EventRecord>(id_, g_last_sync_id.fetch_add(1) + 1);
  std::lock_guard lock(mutex_);
  latest_ = record;
  return record;
}

}  // namespace fake_cudart
