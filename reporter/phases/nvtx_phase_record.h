// What one process's NVTX ranges (NvtxBatch packets) add up to, phase by
// phase (phase_rules.h): totals, not ranges, so memory follows the distinct
// phases and unmatched names, not the trace length.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>

namespace vprof::reporter {

// A phase the rules named, or a range name no rule matched (kept as it is).
struct PhaseKey {
  std::string name;  // the phase, or the unmatched range name
  bool unmatched = false;
  auto operator<=>(const PhaseKey&) const = default;
};

struct PhaseTotals {
  uint64_t count = 0;
  int64_t total_ns = 0;
  // The longest range counted, and its push/pop nesting depth on its thread (0: outermost;
  // start/end ranges carry none and count as 0): where the phase sits among the others, so
  // that a chart stacks only phases of one depth (backward inside train_step is not after it).
  int64_t longest_ns = 0;
  uint32_t depth = 0;
};

struct NvtxPhaseRecord {
  // Ranges outside NCCL's domain, marks excluded, and the first start and
  // last end among them (the process's traced span); both 0 without one.
  uint64_t ranges = 0;
  uint64_t first_start_ns = 0;
  uint64_t last_end_ns = 0;
  uint64_t nccl_ranges = 0;  // ranges in NCCL's domain: communication, not phases
  uint64_t dropped = 0;      // sum of NvtxBatch.dropped: ranges lost to full buffers
  // Outermost ranges only: a range inside another range of the same phase
  // (push/pop on one thread and domain) is part of it, not counted again.
  std::map<PhaseKey, PhaseTotals> phases;

  int64_t span_ns() const { return static_cast<int64_t>(last_end_ns - first_start_ns); }
};

}  // namespace vprof::reporter
