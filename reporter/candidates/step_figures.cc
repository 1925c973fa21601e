#include "reporter/candidates/step_figures.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "reporter/candidates/candidate_detectors.h"

namespace vprof::reporter {
namespace {

// A rank's measured steps are in step order: a binary search finds one
// (a scan per full step made the candidates quadratic in the step count).
const RankStepReport* StepOf(const RankStepsReport& rank, uint32_t step) {
  const auto it = std::lower_bound(
      rank.steps.begin(), rank.steps.end(), step,
      [](const RankStepReport& candidate, uint32_t wanted) { return candidate.step < wanted; });
  return it != rank.steps.end() && it->step == step ? &*it : nullptr;
}

using RankIndex = std::unordered_map<int32_t, const RankStepsReport*>;

RankIndex IndexRanks(const StepsReport& steps) {
  RankIndex index;
  for (const RankStepsReport& rank : steps.ranks) {
    if (rank.rank) index.emplace(*rank.rank, &rank);
  }
  return index;
}

const RankStepsReport* RankOf(const RankIndex& index, const std::optional<int32_t>& rank) {
  if (!rank) return nullptr;
  const auto it = index.find(*rank);
  return it == index.end() ? nullptr : it->second;
}

// The value of `step` on its slowest rank, or the largest over the ranks.
int64_t CriticalValue(const StepsReport& steps, const RankIndex& ranks, const FullStepReport& step,
                      const SegmentValue& value) {
  if (const RankStepsReport* slowest = RankOf(ranks, step.slowest_rank)) {
    if (const RankStepReport* own = StepOf(*slowest, step.step)) return value(own->times);
  }
  int64_t largest = 0;
  for (const RankStepsReport& rank : steps.ranks) {
    if (const RankStepReport* own = StepOf(rank, step.step)) {
      largest = std::max(largest, value(own->times));
    }
  }
  return largest;
}

std::optional<StepFigure> MeasureFullSteps(const StepsReport& steps, const SegmentValue& value) {
  StepFigure figure;
  const RankIndex ranks = IndexRanks(steps);
  std::map<int32_t, uint32_t> slowest_counts;
  int64_t sum = 0;
  for (const FullStepReport& step : steps.full_steps) {
    sum += CriticalValue(steps, ranks, step, value);
    if (step.slowest_rank) ++slowest_counts[*step.slowest_rank];
  }
  figure.steps = static_cast<uint32_t>(steps.full_steps.size());
  figure.per_step_ns = sum / figure.steps;
  for (const auto& [rank, count] : slowest_counts) {
    if (count > figure.slowest_in) {
      figure.slowest_in = count;
      figure.rank = RankOf(ranks, rank);
    }
  }
  if (!figure.rank) figure.slowest_in = 0;
  return figure;
}

std::optional<StepFigure> MeasureOneRank(const StepsReport& steps, const SegmentValue& value) {
  std::optional<StepFigure> best;
  for (const RankStepsReport& rank : steps.ranks) {
    if (rank.steps.empty()) continue;
    const auto count = static_cast<uint32_t>(rank.steps.size());
    const int64_t per_step = value(rank.total) / count;
    if (!best || per_step > best->per_step_ns) {
      best = StepFigure{CandidateScope::kActorWindow, per_step, count, &rank, 0};
    }
  }
  return best;
}

}  // namespace

std::optional<StepFigure> MeasureOnSteps(const StepsReport& steps, const SegmentValue& value) {
  if (!steps.full_steps.empty()) return MeasureFullSteps(steps, value);
  return MeasureOneRank(steps, value);
}

std::vector<CandidateExample> StepExamples(
    const StepsReport& steps, const RankStepsReport* first,
    const std::function<const std::optional<SpanRef>*(const RankStepsReport&)>& pick) {
  std::vector<const RankStepsReport*> order;
  if (first) order.push_back(first);
  for (const RankStepsReport& rank : steps.ranks) {
    if (&rank != first) order.push_back(&rank);
  }
  std::vector<CandidateExample> examples;
  for (const RankStepsReport* rank : order) {
    if (examples.size() == kMaxCandidateExamples) break;
    const std::optional<SpanRef>* span = pick(*rank);
    if (!span || !*span) continue;
    const SpanRef& ref = **span;
    examples.push_back({rank->rank, rank->file, ref.id, ref.name, ref.start_ns, ref.duration_ns});
  }
  return examples;
}

std::string RankName(const std::optional<int32_t>& rank, const std::string& file) {
  return rank ? "rank " + std::to_string(*rank) : file;
}

}  // namespace vprof::reporter
