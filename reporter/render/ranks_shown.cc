#include "reporter/render/ranks_shown.h"

#include <algorithm>

#include "reporter/base/text_layout.h"
#include "reporter/render/spread_over_ranks.h"

namespace vprof::reporter {

RanksShown RanksThatStandOut(const std::vector<RankFigure>& figures) {
  RanksShown shown{.indices = {}, .of = figures.size(), .troubled = 0, .troubled_shown = 0};
  for (const RankFigure& figure : figures) shown.troubled += figure.trouble;
  if (figures.size() <= kFoldAbove) {
    for (size_t i = 0; i < figures.size(); ++i) shown.indices.push_back(i);
    shown.troubled_shown = shown.troubled;
    return shown;
  }
  // SpreadOver names a rank at each extreme; given indices for ranks, it names the index.
  RankValues values;
  for (size_t i = 0; i < figures.size(); ++i) {
    values.emplace_back(figures[i].value, static_cast<int32_t>(i));
  }
  const SpreadOverRanks spread = *SpreadOver(std::move(values));
  shown.all_equal = spread.least == spread.most;
  const auto median = std::find_if(figures.begin(), figures.end(), [&](const RankFigure& figure) {
    return figure.value == spread.median;
  });
  std::vector<size_t> chosen = {0, static_cast<size_t>(*spread.least_rank),
                                static_cast<size_t>(median - figures.begin()),
                                static_cast<size_t>(*spread.most_rank)};
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  for (size_t i = 0; i < figures.size() && chosen.size() < kFoldAbove; ++i) {
    if (figures[i].trouble && std::find(chosen.begin(), chosen.end(), i) == chosen.end()) {
      chosen.push_back(i);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  for (const size_t i : chosen) shown.troubled_shown += figures[i].trouble;
  shown.indices = std::move(chosen);
  return shown;
}

std::string RanksShownCaption(const RanksShown& shown, std::string_view noun,
                              std::string_view figure, std::string_view trouble) {
  const std::string chosen =
      shown.all_equal
          ? "the first (all have the same " + std::string(figure) + ")"
          : "the first, those with the least and the most " + std::string(figure) + ", the median,";
  return std::to_string(shown.indices.size()) + " of " + std::to_string(shown.of) + " " +
         std::string(noun) + " shown: " + chosen + " and those that " + std::string(trouble) +
         " (" +
         (shown.troubled == 0
              ? std::string("none")
              : std::to_string(shown.troubled_shown) + " of " + std::to_string(shown.troubled)) +
         "); the JSON report has every one";
}

ProcessesShown ProcessesThatStandOut(const std::vector<ProcessReport>& processes) {
  std::vector<RankFigure> figures;
  for (const ProcessReport& process : processes) {
    figures.push_back({static_cast<int64_t>(process.nccl_events),
                       process.dropped_events > 0 || process.failed_calls > 0 ||
                           process.state != InputState::kWhole || !process.problem.empty()});
  }
  ProcessesShown result{.shown = RanksThatStandOut(figures), .caption = ""};
  if (Folded(result.shown)) {
    result.caption = RanksShownCaption(result.shown, "processes", "events",
                                       "dropped events, had failed calls or a trace not whole");
  }
  return result;
}

}  // namespace vprof::reporter
