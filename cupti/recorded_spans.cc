#include "cupti/recorded_spans.h"

namespace vprof {

void RecordedSpans::Open(uint64_t ns) {
  open_ = true;
  open_begin_ = ns;
}

void RecordedSpans::Close(uint64_t ns) {
  if (!open_) return;
  open_ = false;
  begin_[next_] = open_begin_;
  end_[next_] = ns;
  next_ = (next_ + 1) % kMaxSpans;
  if (closed_ < kMaxSpans) ++closed_;
}

bool RecordedSpans::Holds(uint64_t ns) const {
  if (open_ && ns >= open_begin_) return true;
  for (size_t i = 0; i < closed_; ++i) {
    if (ns >= begin_[i] && ns < end_[i]) return true;
  }
  return false;
}

}  // namespace vprof
