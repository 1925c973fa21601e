// Collectives still waiting for their ranks' kernel spans, keyed by
// (communicator, seq), in the order they were first seen. Each rank's span
// comes from its own trace; a rank without GPU records would leave every
// collective of its communicators waiting, so the users cap the table and
// give up the oldest entries. CrossRankGpuTime and CollectiveClockCheck each
// keep one, with an entry of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

#include "reporter/collectives/seq_window_table.h"

namespace vprof::reporter {

template <typename Entry>
class PendingCollectives {
 public:
  // The entry of (comm_id, seq), made when new (second: whether it was).
  // The pointer holds until the entry is erased or given up.
  std::pair<Entry*, bool> Get(uint64_t comm_id, uint64_t seq) {
    const auto [entry, inserted] = entries_.TryEmplace(comm_id, seq);
    if (inserted) order_.push_back({comm_id, seq});
    return {entry, inserted};
  }

  // Done with (comm_id, seq): complete.
  void Erase(uint64_t comm_id, uint64_t seq) {
    entries_.Erase(comm_id, seq);
    DropDoneFromFront();
  }

  // Gives up the oldest entry still pending, handing it to `give_up` first.
  // False when none is left.
  template <typename GiveUp>
  bool GiveUpOldest(GiveUp&& give_up) {
    if (order_.empty()) return false;
    const auto [comm_id, seq] = order_.front();
    give_up(*entries_.Find(comm_id, seq));
    entries_.Erase(comm_id, seq);
    order_.pop_front();
    DropDoneFromFront();
    return true;
  }

  // Gives up the oldest entries beyond `most`, or while the arrival order
  // holds more than twice that (one entry stuck at its front keeps the done
  // ones behind it).
  template <typename GiveUp>
  void KeepAtMost(size_t most, GiveUp&& give_up) {
    while (entries_.size() > most || order_.size() > 2 * most) GiveUpOldest(give_up);
  }

  size_t size() const { return entries_.size(); }

 private:
  // Keys at the front of the order whose entries are gone leave it: the
  // front key, when there is one, is always a pending entry's.
  void DropDoneFromFront() {
    while (!order_.empty() && !entries_.Find(order_.front().first, order_.front().second)) {
      order_.pop_front();
    }
  }

  SeqWindowTable<uint64_t, Entry> entries_;  // by communicator, then seq
  // (comm_id, seq) in arrival order, done ones until they reach the front.
  std::deque<std::pair<uint64_t, uint64_t>> order_;
};

}  // namespace vprof::reporter
