// A thread's open nvtxRangePush ranges, kept in its ThreadBuffer: only the
// owning thread touches it, so it needs no synchronisation, and it costs
// memory only in threads that record.
#pragma once

#include <cstdint>

#include "interpose/core/nvtx_record.h"

namespace vprof {

class NvtxStack {
 public:
  static constexpr uint32_t kMaxDepth = 64;

  struct Entry {
    uint64_t start_ns;
    const NvtxDomain* domain;
    uint32_t color;
    uint32_t category;
    NvtxMessage message;
  };

  // The new range's nesting depth in its domain, and the entry to fill; the
  // entry is nullptr when the stack is full (the range is then counted as
  // dropped, but depths stay right).
  struct Pushed {
    int depth;
    Entry* entry;
  };
  Pushed Push(const NvtxDomain* domain) {
    int depth = DepthOf(domain);
    if (size_ == kMaxDepth) {
      ++overflow_;
      return {depth + static_cast<int>(overflow_) - 1, nullptr};
    }
    Entry& e = entries_[size_++];
    e.domain = domain;
    return {depth, &e};
  }

  // Removes the innermost open range of `domain`. Returns its depth, or -1
  // when none is open; *out gets a copy of it unless it had overflowed.
  int Pop(const NvtxDomain* domain, Entry* out, bool* had_entry) {
    *had_entry = false;
    if (overflow_ > 0) {
      --overflow_;
      return DepthOf(domain) + static_cast<int>(overflow_);
    }
    for (uint32_t i = size_; i-- > 0;) {
      if (entries_[i].domain != domain) continue;
      *out = entries_[i];
      *had_entry = true;
      // Ranges of other domains pushed after it stay open, in order.
      for (uint32_t j = i; j + 1 < size_; ++j) entries_[j] = entries_[j + 1];
      --size_;
      return DepthOf(domain);
    }
    return -1;
  }

  // A buffer handed to a new thread starts with nothing open.
  void clear() { size_ = overflow_ = 0; }

 private:
  int DepthOf(const NvtxDomain* domain) const {
    int depth = 0;
    for (uint32_t i = 0; i < size_; ++i) depth += entries_[i].domain == domain;
    return depth;
  }

  Entry entries_[kMaxDepth];
  uint32_t size_ = 0;
  uint32_t overflow_ = 0;
};

}  // namespace vprof
