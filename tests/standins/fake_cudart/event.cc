#include "event.h"

namespace fake_cudart {

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
  auto record = std::make_shared<EventRecord>();
  std::lock_guard lock(mutex_);
  latest_ = record;
  return record;
}

}  // namespace fake_cudart
