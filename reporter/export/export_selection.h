// `vprof export`'s filters: --ranks, --steps (the report's step numbers),
// --from/--to (times on the export's timeline) and --kinds. Parsed here and
// applied to an ExportPlan before anything is written: processes left out,
// each kept process given its window, the kinds recorded; the records
// themselves are left out as they stream past (export_filter.h).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/base/rank_list.h"
#include "reporter/export/export_plan.h"

namespace vprof::reporter {

struct ExportSelection {
  std::optional<std::vector<RankRange>> ranks;  // ascending, distinct runs
  std::optional<RankRange> steps;               // step numbers, inclusive
  std::optional<int64_t> from_ns;               // on the timeline: ns since its origin
  std::optional<int64_t> to_ns;
  uint32_t kinds = ~0u;  // a bit per ExportKind

  // "ranks 0-7, 12; steps 10-12; from 1.5 s; kinds kernels, nccl"; empty when
  // the selection is the whole run.
  std::string Description() const;
};

// The parsers of the options' values: none, with `error` saying what was
// expected, for a bad one.
// "0-7,12": ranks and inclusive runs of ranks, separated by commas.
std::optional<std::vector<RankRange>> ParseRankRanges(std::string_view text, std::string& error);
// "10-12" or "10".
std::optional<RankRange> ParseStepRange(std::string_view text, std::string& error);
// A time with its unit: "1.5s", "250ms", "40us", "1000ns".
std::optional<int64_t> ParseTimelineTime(std::string_view text, std::string& error);
// "kernels,nccl": names ExportKindName gives, separated by commas.
std::optional<uint32_t> ParseExportKinds(std::string_view text, std::string& error);

// Applies `selection` to `plan`: the processes of other ranks, or with none
// of the steps, are left out (and named in plan.left_out); the others get the
// window of their steps and of --from/--to. --steps builds the report of
// `paths` (ListTraceFiles of `directory`) to number the steps as it does.
// False, after saying why on `err`, when the selection cannot be applied.
bool ApplySelection(const ExportSelection& selection, const std::string& directory,
                    const std::vector<std::string>& paths, ExportPlan& plan, std::ostream& err);

}  // namespace vprof::reporter
