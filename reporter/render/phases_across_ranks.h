// The phase tables of many processes, folded: one row per phase across the
// processes that have it (its least, median and most total, and which rank
// had the least and the most), where a row per process and phase would run
// to thousands of lines. For the text report; the JSON keeps every row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reporter/model/report.h"
#include "reporter/render/spread_over_ranks.h"

namespace vprof::reporter {

struct PhaseAcrossRanks {
  std::string phase;   // as the per-process table names it ("NAME (other, unmatched)")
  std::string source;  // PhaseReport's: "nvtx" or "inferred:<rule>"
  size_t processes = 0;
  uint64_t count = 0;                  // summed over the processes
  SpreadOverRanks total;               // of the processes' totals (ns)
  std::optional<double> median_share;  // over the processes with a share
};

// The phases of the processes whose phases are inferred (or not), each
// (phase, source) once: matched phases first, then by median total, longest
// first, then by name.
std::vector<PhaseAcrossRanks> PhasesAcrossRanks(const std::vector<ProcessPhasesReport>& processes,
                                                bool inferred);

}  // namespace vprof::reporter
