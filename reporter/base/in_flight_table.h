// Records waiting for their match, keyed by an id that grows as the capture
// writes them (a CUPTI correlation id, an NCCL call id): a launch until its
// kernel arrives, a call until its step is analyzed. Ids come nearly in
// order and leave nearly in order, so the table is a vector sorted by id,
// appended at its back and trimmed at its front. Each record put and taken was
// a tree node allocated and freed, and a lookup a walk across nodes; here it
// is a binary search over contiguous entries.
//
// With a cap, at most `cap` entries are kept, the lowest ids dropped first:
// entries never matched (their partner was dropped) must not pile up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "reporter/base/trimmed_vector.h"

namespace vprof::reporter {

template <typename Value>
class InFlightTable {
 public:
  InFlightTable() = default;
  explicit InFlightTable(size_t cap) : cap_(cap) {}

  // Later additions drop entries down to the new cap.
  void LimitTo(size_t cap) { cap_ = cap; }

  // The value of `id`, added (value-initialized) when it has none; valid
  // until the next call that adds or erases.
  Value& GetOrAdd(uint64_t id) {
    if (Value* found = Find(id)) return *found;
    while (live_ >= cap_ && !entries_.empty()) {
      if (entries_.front().live) --live_;
      entries_.pop_front();
    }
    ++live_;
    const auto at = entries_.empty() || entries_.back().id < id ? entries_.end() : LowerBound(id);
    if (at != entries_.end() && at->id == id) {  // erased, not yet swept out
      *at = {id, true, Value{}};
      return at->value;
    }
    return entries_.insert(at, {id, true, Value{}})->value;
  }
  void Put(uint64_t id, const Value& value) { GetOrAdd(id) = value; }

  // The value of `id`, or null; valid until the next call that adds or erases.
  Value* Find(uint64_t id) {
    if (entries_.empty() || entries_.back().id < id) return nullptr;
    const auto at = LowerBound(id);
    return at != entries_.end() && at->id == id && at->live ? &at->value : nullptr;
  }

  void Erase(uint64_t id) {
    const auto at = LowerBound(id);
    if (at == entries_.end() || at->id != id || !at->live) return;
    at->live = false;
    --live_;
    TrimDead();
  }

  size_t size() const { return live_; }

  // Calls visit(id, value) for each entry, by id.
  template <typename Visit>
  void ForEach(Visit visit) const {
    for (const Entry& entry : entries_) {
      if (entry.live) visit(entry.id, entry.value);
    }
  }

 private:
  struct Entry {
    uint64_t id;
    bool live;
    Value value;
  };

  typename TrimmedVector<Entry>::iterator LowerBound(uint64_t id) {
    // Records are mostly matched oldest first: the front, without a search.
    if (entries_.empty() || entries_.begin()->id >= id) return entries_.begin();
    return std::lower_bound(entries_.begin(), entries_.end(), id,
                            [](const Entry& entry, uint64_t key) { return entry.id < key; });
  }

  // Erased entries leave from the front; behind a live one that stays
  // (a graph launch, matched many times), they are swept out once they
  // outnumber the live ones.
  void TrimDead() {
    while (!entries_.empty() && !entries_.front().live) entries_.pop_front();
    if (entries_.size() > 2 * live_ + kMinSweep) {
      entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                    [](const Entry& entry) { return !entry.live; }),
                     entries_.end());
    }
  }

  static constexpr size_t kMinSweep = 1024;

  TrimmedVector<Entry> entries_{32};  // by id
  size_t live_ = 0;
  size_t cap_ = SIZE_MAX;
};

}  // namespace vprof::reporter
