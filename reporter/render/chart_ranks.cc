#include "reporter/render/chart_ranks.h"

#include <string_view>

#include "reporter/render/timeline_step.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kLostRecords = "lost records";

ChartRanks Chosen(const std::vector<RankFigure>& figures, std::string_view figure,
                  std::string_view trouble) {
  ChartRanks ranks{.shown = RanksThatStandOut(figures), .caption = ""};
  if (Folded(ranks.shown)) ranks.caption = RanksShownCaption(ranks.shown, "ranks", figure, trouble);
  return ranks;
}

}  // namespace

ChartRanks TimelineRanks(const StepsReport& steps, uint32_t step) {
  std::vector<size_t> with_step;  // indices into steps.ranks
  std::vector<RankFigure> figures;
  for (size_t i = 0; i < steps.ranks.size(); ++i) {
    if (const RankStepReport* own = RankStep(steps.ranks[i], step)) {
      with_step.push_back(i);
      figures.push_back({own->times.window_ns, steps.ranks[i].lost_records()});
    }
  }
  ChartRanks ranks = Chosen(figures, "window in the step", kLostRecords);
  for (size_t& index : ranks.shown.indices) index = with_step[index];
  return ranks;
}

ChartRanks SegmentBarRanks(const StepsReport& steps) {
  std::vector<RankFigure> figures;
  for (const RankStepsReport& rank : steps.ranks) {
    figures.push_back({rank.total.window_ns, rank.lost_records()});
  }
  return Chosen(figures, "window", kLostRecords);
}

ChartRanks PhaseBarRanks(const std::vector<ProcessPhasesReport>& phases) {
  std::vector<RankFigure> figures;
  for (const ProcessPhasesReport& process : phases) {
    figures.push_back({process.span_ns, process.dropped > 0});
  }
  return Chosen(figures, "span", "dropped NVTX ranges");
}

}  // namespace vprof::reporter
