// The client's activity buffers, as CUPTI manages them: records are appended to a buffer obtained
// from the client's bufferRequested callback and the buffer is handed back through
// bufferCompleted when the next record does not fit, or on a forced flush. With
// FAKE_CUPTI_HOLD_BUFFERS=1 full buffers are held until the next flush, as a CUPTI that delivers
// completed buffers only when asked does.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace fake_cupti {

// Every record starts on an 8-byte boundary (CUPTI's PACKED_ALIGNMENT).
inline constexpr size_t kRecordAlignment = 8;

// The size of a record of the kinds the fake CUPTI writes; 0 for any other kind.
size_t RecordSize(CUpti_ActivityKind kind);

class ActivityBuffers {
 public:
  void SetCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                    CUpti_BuffersCallbackCompleteFunc completed);
  // Copies one record (its `kind` first, RecordSize(kind) bytes). Without a buffer to put it in
  // (no callbacks, or the client gave none or one too small) the record is dropped and counted.
  void Append(const void* record, size_t size);
  // Hands back the held full buffers; forced: the partly filled buffer too (CUPTI's flag 0
  // delivers only completed buffers).
  void Flush(bool forced);
  // Records dropped since the last call (CUPTI resets the count when it is read).
  size_t TakeDropped() { return dropped_.exchange(0); }

 private:
  struct Buffer {
    uint8_t* data = nullptr;
    size_t size = 0;
    size_t used = 0;
    size_t records = 0;
    size_t max_records = 0;  // 0: as many as fit
  };
  bool Fits(size_t size) const;
  // The client's callbacks run without mutex_ held: bufferCompleted may call back into CUPTI.
  void Complete(const Buffer& buffer);

  std::mutex mutex_;
  CUpti_BuffersCallbackRequestFunc requested_ = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed_ = nullptr;
  Buffer current_;
  // Full buffers not yet handed back (FAKE_CUPTI_HOLD_BUFFERS), oldest first.
  std::vector<Buffer> held_;
  std::atomic<size_t> dropped_{0};
};

}  // namespace fake_cupti
