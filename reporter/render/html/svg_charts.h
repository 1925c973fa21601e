// The HTML report's charts as inline SVG: solid rectangles on whole pixels
// (chart_geometry.h), a label column on the left, a value column on the
// right; hovering a rectangle shows its figure (an SVG <title>, no script).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "reporter/model/report.h"

namespace vprof::reporter {

inline constexpr int kChartLabelPx = 220;     // row labels, at least ...
inline constexpr int kChartMaxLabelPx = 440;  // ... and at most, as wide as the longest needs
inline constexpr int kChartBarPx = 600;       // the width a bar's whole domain fills
inline constexpr int kChartValuePx = 300;     // figures after the bar
inline constexpr int kChartRowPx = 28;
inline constexpr int kChartBarHeightPx = 16;
inline constexpr int kChartThinBarHeightPx = 5;  // overlapped comm, under its rank's bar

// The per-rank charts draw the ranks in `shown` (indices into their input,
// ascending; chart_ranks.h chooses them), a row each.

// Per rank, the step's window placed on the step's common time axis (earliest
// start to latest end over all the ranks, drawn or not), split into compute,
// exposed comm, copy and idle in that order, with overlapped comm as a thin
// bar under it. Proportions, not kernel order: the report keeps per-step
// totals. `shown` are ranks that have the step.
void WriteTimelineSvg(const StepsReport& steps, uint32_t step, const std::vector<size_t>& shown,
                      std::ostream& out);

// Per rank, its measured steps' summed window as one full-width bar split
// into compute, exposed comm, copy and idle; overlapped comm thin under it.
void WriteSegmentBarsSvg(const StepsReport& steps, const std::vector<size_t>& shown,
                         std::ostream& out);

// The matched NVTX phases in first-seen order, which is their colour order.
std::vector<std::string> PhaseNames(const std::vector<ProcessPhasesReport>& phases);

// Per process, its NVTX span as one full-width bar with each outermost matched
// phase's total stacked in it and the rest of the span in grey; phases nested
// in others (by the depth of their longest range) on a row per depth under it,
// on the same scale. Where a row's totals exceed the span (ranges that overlap
// without nesting), the scale is their sum instead.
void WritePhaseBarsSvg(const std::vector<ProcessPhasesReport>& phases,
                       const std::vector<size_t>& shown, std::ostream& out);

// Per communicator, function and size: max arrival skew (light) with the
// mean (dark) over it, all on one scale.
void WriteSkewSvg(const std::vector<CommunicatorReport>& communicators, std::ostream& out);

}  // namespace vprof::reporter
