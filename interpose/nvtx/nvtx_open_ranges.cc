#include "interpose/nvtx/nvtx_open_ranges.h"

#include <new>

namespace vprof {

NvtxOpenRanges::Begun NvtxOpenRanges::begin() {
  uint64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  Slot& s = slots_[id % kSlots];
  uint64_t expected = kFree;
  if (!s.state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire)) {
    lost_.fetch_add(1, std::memory_order_relaxed);
    return {id, nullptr};
  }
  return {id, &s.range};
}

void NvtxOpenRanges::Publish(uint64_t id) {
  slots_[id % kSlots].state.store(id, std::memory_order_release);
}

bool NvtxOpenRanges::end(uint64_t id, Opened* out) {
  Slot& s = slots_[id % kSlots];
  uint64_t expected = id;
  if (id == kFree || id == kBusy ||
      !s.state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire)) {
    return false;
  }
  *out = s.range;
  s.state.store(kFree, std::memory_order_release);
  return true;
}

void NvtxOpenRanges::ResetInChild() {
  // A slot another thread of the parent was filling would stay busy forever.
  for (Slot& s : slots_) s.state.store(kFree, std::memory_order_relaxed);
  lost_.store(0, std::memory_order_relaxed);
}

namespace {
std::atomic<NvtxOpenRanges*> g_open_ranges{nullptr};
}  // namespace

NvtxOpenRanges* GlobalNvtxOpenRanges() { return g_open_ranges.load(std::memory_order_acquire); }

void MakeNvtxOpenRanges() {
  if (g_open_ranges.load(std::memory_order_acquire)) return;
  auto* made = new (std::nothrow) NvtxOpenRanges;
  NvtxOpenRanges* expected = nullptr;
  // Several NVTX modules may attach at once, each on its own thread.
  if (made && !g_open_ranges.compare_exchange_strong(expected, made)) delete made;
}

}  // namespace vprof
