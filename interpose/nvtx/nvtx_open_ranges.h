// Ranges begun with nvtxRangeStart and not yet ended. nvtxRangeEnd may come
// from another thread, so these cannot live in a thread's buffer: a fixed
// table of slots indexed by range id, each owned through its state word (no
// lock; a thread that finds a slot busy gives up and counts a drop).
#pragma once

#include <atomic>
#include <cstdint>

#include "interpose/core/nvtx_record.h"

namespace vprof {

class NvtxOpenRanges {
 public:
  static constexpr uint64_t kSlots = 1024;

  struct Opened {
    uint64_t start_ns;
    uint32_t tid;
    const NvtxDomain* domain;
    uint32_t color;
    uint32_t category;
    NvtxMessage message;
  };

  // A new range id (never 0) and the slot to fill, or nullptr when the slot
  // is still held by an older open range (the new one is then lost).
  // Publish() must follow a non-null result.
  struct Begun {
    uint64_t id;
    Opened* slot;
  };
  Begun begin();
  void Publish(uint64_t id);

  // Takes the range `id` out of the table into *out; false when it is not
  // there (never started under vprof, lost, or ended twice).
  bool end(uint64_t id, Opened* out);

  uint64_t TakeLost() { return lost_.exchange(0, std::memory_order_relaxed); }
  void ResetInChild();

 private:
  static constexpr uint64_t kFree = 0, kBusy = ~uint64_t{0};
  struct Slot {
    std::atomic<uint64_t> state{kFree};  // kFree, kBusy, or the id it holds
    Opened range;
  };

  Slot slots_[kSlots];
  std::atomic<uint64_t> next_id_{1};
  std::atomic<uint64_t> lost_{0};
};

// Made when NVTX first attaches (about 150 KiB, which processes without NVTX
// never pay); nullptr before. Never freed.
NvtxOpenRanges* GlobalNvtxOpenRanges();
void MakeNvtxOpenRanges();

}  // namespace vprof
