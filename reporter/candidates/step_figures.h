// Per-step figures from the step analysis, taken where they limit the full
// step: on the slowest rank of each measured step.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reporter/model/candidate_report.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

using SegmentValue = std::function<int64_t(const SegmentTimes&)>;

struct StepFigure {
  // kFullStep: the mean over the full steps of the value on each step's
  // slowest rank (the largest over the ranks where that rank is unknown).
  // kActorWindow (no full steps): the largest per-step mean of one rank.
  CandidateScope scope = CandidateScope::kFullStep;
  int64_t per_step_ns = 0;
  uint32_t steps = 0;
  // The rank the figure comes from: the most frequent slowest rank.
  const RankStepsReport* rank = nullptr;
  uint32_t slowest_in = 0;  // steps in which that rank was the slowest
};

// None when no rank has a measured step.
std::optional<StepFigure> MeasureOnSteps(const StepsReport& steps, const SegmentValue& value);

// The span `pick` gives for each rank (null: none), `first` first, at
// most kMaxCandidateExamples.
std::vector<CandidateExample> StepExamples(
    const StepsReport& steps, const RankStepsReport* first,
    const std::function<const std::optional<SpanRef>*(const RankStepsReport&)>& pick);

std::string RankName(const std::optional<int32_t>& rank, const std::string& file);

}  // namespace vprof::reporter
