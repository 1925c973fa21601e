// The deep windows of one process (DeepWindow packets): the spans in which its
// GPU activity was recorded under a VPROF_DEEP schedule other than always. A
// step is analyzed only when one window holds it whole: outside the windows
// there are no GPU records, and a step cut by a window's edge would show its
// recorded part as the whole.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "vprof_trace.pb.h"

namespace vprof::reporter {

class DeepWindowSet {
 public:
  // A window's opening (end_ns 0: still open) or its closing, which has the
  // opening's start. Windows come in start order.
  void Add(const vprof::trace::DeepWindow& window);
  // Whether one window holds [start_ns, end_ns] whole; a window not closed
  // yet (or never: the process ended inside it) holds everything after its
  // start.
  bool Holds(int64_t start_ns, int64_t end_ns) const;
  size_t size() const { return windows_.size(); }

 private:
  std::vector<std::pair<int64_t, int64_t>> windows_;  // (start, end), by start
};

}  // namespace vprof::reporter
