// Which ranks a chart or table of one row per rank shows when there are more
// than kFoldAbove: the ones that stand out. A bar per rank of a 1,024-rank run
// is a chart nobody can read; the typical rank, the extremes and the ranks in
// trouble are what a reader looks for. Chosen in one place so that every
// folded chart and table picks, and says it picks, the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/model/report.h"

namespace vprof::reporter {

struct RankFigure {
  int64_t value = 0;     // the chart's main figure: a window, a span, a count
  bool trouble = false;  // lost records, dropped events, a trace not whole
};

struct RanksShown {
  std::vector<size_t> indices;  // into the figures given, ascending
  size_t of = 0;                // how many there were
  size_t troubled = 0;          // of them, in trouble
  size_t troubled_shown = 0;
  bool all_equal = false;  // every figure the same: the first stands for them
};

// All of them when there are at most kFoldAbove. Otherwise at most kFoldAbove:
// the first, those with the least and the most value and the one at the
// median (as SpreadOver picks them: the first of equals, the upper median),
// then those in trouble in order until kFoldAbove are shown.
RanksShown RanksThatStandOut(const std::vector<RankFigure>& figures);

// Whether some were left out.
inline bool Folded(const RanksShown& shown) { return shown.indices.size() < shown.of; }

// "5 of 40 ranks shown: the first, those with the least and the most window,
// the median, and those that lost records (2 of 2); the JSON report has every
// rank". When all figures are equal: "the first (all have the same window)
// and those that …". `noun` is plural ("ranks", "processes").
std::string RanksShownCaption(const RanksShown& shown, std::string_view noun,
                              std::string_view figure, std::string_view trouble);

// The processes a Processes table lists, by NCCL events; trouble: dropped
// events, failed calls, a trace not whole or any other problem. Its caption
// when some are left out, else empty. The text, Markdown and HTML tables list
// the same ones.
struct ProcessesShown {
  RanksShown shown;
  std::string caption;
};
ProcessesShown ProcessesThatStandOut(const std::vector<ProcessReport>& processes);

}  // namespace vprof::reporter
