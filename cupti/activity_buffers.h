// Memory CUPTI fills with activity records: a pool of fixed-size buffers
// (allocated on demand up to a cap, then reused, never freed) and the queue
// of filled buffers waiting for the writer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vprof {

struct FilledBuffer {
  uint8_t* data;
  size_t valid_bytes;
  uint64_t dropped;  // records CUPTI dropped for this buffer's context/stream
};

inline constexpr size_t kActivityBufferBytes = 4 << 20;
inline constexpr size_t kMaxActivityBuffers = 32;  // 128 MiB at most

// CUPTI's threads. nullptr when every buffer is in use: CUPTI then drops
// records and counts them, which shows up in FilledBuffer::dropped.
uint8_t* TakeFreeBuffer();
// CUPTI's threads.
void QueueFilledBuffer(const FilledBuffer& b);
// Writer thread: the oldest filled buffer, if any.
bool PopFilledBuffer(FilledBuffer* out);
// Writer thread, once the buffer is encoded.
void ReturnBuffer(uint8_t* data);
// In a forked child: a fresh lock, and the parent's filled buffers dropped
// (the parent writes them). Takes no lock.
void ResetBuffersInChild();

}  // namespace vprof
