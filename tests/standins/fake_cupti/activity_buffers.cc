#include "activity_buffers.h"

#include <cstdlib>
#include <cstring>

namespace fake_cupti {

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      return sizeof(CUpti_ActivityCudaEvent2);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      return sizeof(CUpti_ActivityGraphTrace2);
    default:
      return 0;
  }
}

void ActivityBuffers::SetCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                   CUpti_BuffersCallbackCompleteFunc completed) {
  std::lock_guard lock(mutex_);
  requested_ = requested;
  completed_ = completed;
}

bool ActivityBuffers::Fits(size_t size) const {
  return current_.data != nullptr && current_.used + size <= current_.size &&
         (current_.max_records == 0 || current_.records < current_.max_records);
}

namespace {

bool HoldBuffers() {
  static const bool hold = [] {
    const char* v = std::getenv("FAKE_CUPTI_HOLD_BUFFERS");
    return v && std::strcmp(v, "1") == 0;
  }();
  return hold;
}

}  // namespace

void ActivityBuffers::Append(const void* record, size_t size) {
  Buffer full;
  {
    std::lock_guard lock(mutex_);
    if (current_.data != nullptr && !Fits(size)) {
      if (HoldBuffers()) {
        held_.push_back(current_);
      } else {
        full = current_;
      }
      current_ = {};
    }
    if (current_.data == nullptr && requested_ != nullptr) {
      requested_(&current_.data, &current_.size, &current_.max_records);
      if (current_.data == nullptr || current_.size == 0) current_ = {};
    }
    if (Fits(size)) {
      std::memcpy(current_.data + current_.used, record, size);
      current_.used += (size + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
      ++current_.records;
    } else {
      ++dropped_;
    }
  }
  if (full.data != nullptr) Complete(full);
}

void ActivityBuffers::Flush(bool forced) {
  std::vector<Buffer> handed;
  {
    std::lock_guard lock(mutex_);
    handed.swap(held_);
    if (forced && current_.data != nullptr) handed.push_back(current_);
    if (forced) current_ = {};
  }
  for (const Buffer& buffer : handed) Complete(buffer);
}

void ActivityBuffers::Complete(const Buffer& buffer) {
  CUpti_BuffersCallbackCompleteFunc completed;
  {
    std::lock_guard lock(mutex_);
    completed = completed_;
  }
  // A buffer is only ever taken from the client after its callbacks were registered.
  completed(nullptr, 0, buffer.data, buffer.size, buffer.used);
}

}  // namespace fake_cupti
