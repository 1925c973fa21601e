// The line `vprof report` keeps on standard error while it reads a large run:
// "vprof: reading 1024 traces: 312 read, 1.20 GiB of 3.40 GiB, about 12 s left",
// redrawn in place, then "... read in 9 s; analyzing", then erased before the
// report is written. Drawn only on a terminal, only once the work has taken
// a second (a small run prints nothing), at most five times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>

#include "reporter/ingest/trace_merge.h"

namespace vprof::reporter {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;

  // `enabled`: standard error is a terminal and --quiet was not given.
  // `total_bytes`: the size of the traces to read.
  ProgressLine(std::ostream& err, bool enabled, uint64_t total_bytes);
  ~ProgressLine() { Erase(); }

  void Reading(const MergeProgress& progress) { Reading(progress, Clock::now()); }
  // The traces are read: what remains is the analysis and the output.
  void Analyzing() { Analyzing(Clock::now()); }
  // Leaves the terminal's line as it found it.
  void Erase();

  // The same at a given time (tests).
  void Reading(const MergeProgress& progress, Clock::time_point now);
  void Analyzing(Clock::time_point now);

 private:
  void Draw(const std::string& text, Clock::time_point now);

  std::ostream& err_;
  const bool enabled_;
  const uint64_t total_bytes_;
  const Clock::time_point start_;
  Clock::time_point last_drawn_{};
  size_t files_ = 0;
  bool drawn_ = false;
};

}  // namespace vprof::reporter
