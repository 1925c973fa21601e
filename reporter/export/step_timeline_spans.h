// The spans of the HTML report's interactive timeline (reporter/model/
// step_timeline.h): a second pass over the traces of the ranks the static
// timeline strip draws, keeping what falls inside their window of its step.
// It lives beside `vprof export` because it reads traces the way the export
// does (export_trace_walker.h); the report's own pass keeps only totals.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reporter/model/report.h"

namespace vprof::reporter {

// At most this many spans per rank: the shortest beyond it are left out and
// counted (RankTimeline::spans_left_out), so that a page for 1,024 ranks,
// which draws at most 16 of them, stays a few megabytes.
inline constexpr size_t kMaxTimelineSpansPerRank = 2000;

// The timeline of TimelineStep(*report.steps) on TimelineRanks' ranks;
// none when the report has no measured step. `paths` are the traces the
// report was built from (a rank's trace is found by its file name).
std::optional<StepTimeline> CollectStepTimeline(const Report& report,
                                                const std::vector<std::string>& paths);

}  // namespace vprof::reporter
