#include "cupti/activity_buffers.h"

#include <cstdlib>
#include <mutex>

#include "interpose/core/load_order.h"

namespace vprof {
namespace {

// Guards everything below. Never held across a CUPTI call (gpu_capture.h).
LoadFirst<std::mutex> g_buffers_lock VPROF_LOAD_FIRST;
uint8_t* g_free[kMaxActivityBuffers];
size_t g_free_count = 0;
size_t g_allocated = 0;
// Filled buffers, oldest at g_filled_head; at most every buffer at once.
FilledBuffer g_filled[kMaxActivityBuffers];
size_t g_filled_head = 0, g_filled_count = 0;

}  // namespace

uint8_t* TakeFreeBuffer() {
  std::lock_guard<std::mutex> lock(*g_buffers_lock);
  if (g_free_count > 0) return g_free[--g_free_count];
  if (g_allocated == kMaxActivityBuffers) return nullptr;
  // CUPTI wants 8-byte alignment.
  auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
  if (b) ++g_allocated;
  return b;
}

void QueueFilledBuffer(const FilledBuffer& b) {
  std::lock_guard<std::mutex> lock(*g_buffers_lock);
  // Cannot overflow: a buffer is queued at most once between take and return.
  g_filled[(g_filled_head + g_filled_count) % kMaxActivityBuffers] = b;
  ++g_filled_count;
}

bool PopFilledBuffer(FilledBuffer* out) {
  std::lock_guard<std::mutex> lock(*g_buffers_lock);
  if (g_filled_count == 0) return false;
  *out = g_filled[g_filled_head];
  g_filled_head = (g_filled_head + 1) % kMaxActivityBuffers;
  --g_filled_count;
  return true;
}

void ReturnBuffer(uint8_t* data) {
  std::lock_guard<std::mutex> lock(*g_buffers_lock);
  g_free[g_free_count++] = data;
}

void ResetBuffersInChild() {
  g_buffers_lock.RenewInChild();
  g_filled_count = 0;
}

}  // namespace vprof
