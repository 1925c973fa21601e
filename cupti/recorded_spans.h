// When a deep schedule's windows had the capture plan's kinds on: the latest
// kMaxSpans spans, on the trace clock. Between windows CUPTI goes on writing
// the selected API records (gpu_capture.cc says why they stay on); the
// writer leaves out those that did not begin inside a span, so that a
// windowed trace holds GPU activity of its windows only.
//
// Not thread-safe: gpu_capture.cc guards its one instance.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace vprof {

class RecordedSpans {
 public:
  // Enough for records that reach the writer several windows late.
  static constexpr size_t kMaxSpans = 64;

  // A span begins at `ns`; it holds every later time until Close().
  void Open(uint64_t ns);
  // The open span ends at `ns`; nothing when none is open. The oldest of
  // kMaxSpans closed spans is forgotten.
  void Close(uint64_t ns);
  // Whether `ns` lies in a span: [begin, end) of a closed one, or at or
  // after the begin of the open one.
  bool Holds(uint64_t ns) const;

 private:
  std::array<uint64_t, kMaxSpans> begin_{}, end_{};
  size_t closed_ = 0;  // how many of the slots hold a closed span
  size_t next_ = 0;    // the slot the next closed span takes
  bool open_ = false;
  uint64_t open_begin_ = 0;
};

}  // namespace vprof
