// The report's chart colours, one table each: solid, distinct fills, so a
// reader (and the screenshot test) can tell every chart element apart.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reporter/model/candidate_report.h"
#include "reporter/model/step_timeline.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// The parts of a rank's step window (SegmentTimes), as the charts draw them.
struct SegmentStyle {
  std::string_view name;
  int64_t SegmentTimes::*ns;
  std::string_view colour;
  // Compute, exposed communication, copies and idle add up to the window;
  // overlapped communication ran during compute and is drawn beside them.
  bool part_of_window;
};

inline constexpr std::array<SegmentStyle, 5> kSegmentStyles = {{
    {"compute", &SegmentTimes::compute_ns, "#2e7d32", true},
    {"exposed comm", &SegmentTimes::exposed_comm_ns, "#d32f2f", true},
    {"copy", &SegmentTimes::copy_ns, "#1565c0", true},
    {"idle", &SegmentTimes::idle_ns, "#9e9e9e", true},
    {"overlapped comm", &SegmentTimes::overlapped_comm_ns, "#f9a825", false},
}};

struct StrictTagStyle {
  StrictTag tag;
  std::string_view colour;
};

inline constexpr std::array<StrictTagStyle, 3> kStrictTagStyles = {{
    {StrictTag::kEligible, "#66bb6a"},
    {StrictTag::kNotEligible, "#ef5350"},
    {StrictTag::kNeedsContract, "#ffca28"},
}};

std::string_view StrictTagColour(StrictTag tag);

// Arrival skew of a collective: the mean, and the max drawn behind it.
inline constexpr std::string_view kSkewMeanColour = "#6a1b9a";
inline constexpr std::string_view kSkewMaxColour = "#ce93d8";

// NVTX phases take these in order of first appearance, cycling.
inline constexpr std::array<std::string_view, 8> kPhaseColours = {
    "#00897b", "#8d6e63", "#3949ab", "#f06292", "#7cb342", "#00acc1", "#ff7043", "#5e35b1"};

// A rank's span outside every phase.
inline constexpr std::string_view kOutsidePhasesColour = "#e0e0e0";

// The interactive timeline's spans, in TimelineSpanKind's order: what the
// page's legend and its script name each kind, and its fill.
struct TimelineKindStyle {
  TimelineSpanKind kind;
  std::string_view name;
  std::string_view colour;
};

inline constexpr std::array<TimelineKindStyle, 7> kTimelineKindStyles = {{
    {TimelineSpanKind::kNvtx, "NVTX range", "#7e57c2"},
    {TimelineSpanKind::kNcclCall, "NCCL call (host)", "#ef6c00"},
    {TimelineSpanKind::kCompute, "compute kernel", "#2e7d32"},
    {TimelineSpanKind::kCommKernel, "communication kernel", "#d32f2f"},
    {TimelineSpanKind::kCopy, "memcpy", "#1565c0"},
    {TimelineSpanKind::kMemset, "memset", "#0097a7"},
    {TimelineSpanKind::kIdle, "GPU idle", "#bdbdbd"},
}};

}  // namespace vprof::reporter
