#include "reporter/steps/deep_window_set.h"

#include <algorithm>
#include <limits>

namespace vprof::reporter {
namespace {

// A time from the trace as a signed count; the largest values are no real
// time and read as "open".
int64_t Signed(uint64_t ns) {
  return ns > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(ns);
}

}  // namespace

void DeepWindowSet::Add(const vprof::trace::DeepWindow& window) {
  const int64_t start = Signed(window.start_ns());
  const int64_t end =
      window.end_ns() == 0 ? std::numeric_limits<int64_t>::max() : Signed(window.end_ns());
  if (end < start) return;  // no real window
  // The closing of the window last opened replaces its opening.
  if (!windows_.empty() && windows_.back().first == start) {
    windows_.back().second = end;
    return;
  }
  // Out of order (a hand-made or damaged trace): kept sorted all the same.
  const auto at = std::upper_bound(
      windows_.begin(), windows_.end(), start,
      [](int64_t value, const std::pair<int64_t, int64_t>& w) { return value < w.first; });
  windows_.insert(at, {start, end});
}

bool DeepWindowSet::Holds(int64_t start_ns, int64_t end_ns) const {
  // The last window starting at or before start_ns is the only one that can.
  const auto after = std::upper_bound(
      windows_.begin(), windows_.end(), start_ns,
      [](int64_t value, const std::pair<int64_t, int64_t>& w) { return value < w.first; });
  if (after == windows_.begin()) return false;
  return std::prev(after)->second >= end_ns;
}

}  // namespace vprof::reporter
