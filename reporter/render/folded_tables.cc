#include "reporter/render/folded_tables.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "reporter/base/units.h"
#include "reporter/render/chart_palette.h"
#include "reporter/render/phases_across_ranks.h"
#include "reporter/render/short_kernel_name.h"
#include "reporter/render/spread_over_ranks.h"
#include "reporter/render/timeline_step.h"

namespace vprof::reporter {
namespace {

// "40 ranks: least, median and most over them; the JSON report has every rank".
void SayFolded(ReportTable& table, size_t count, const std::string& noun, const std::string& one) {
  table.note += "; " + std::to_string(count) + " " + noun +
                ": least, median and most over them; the JSON report has every " + one;
}

// `lead`, then the least, median and most.
std::vector<TableColumn> WithSpreadColumns(std::vector<TableColumn> lead) {
  lead.insert(lead.end(), {{"least", true}, {"median", true}, {"most", true}});
  return lead;
}

// `lead`, then the least and the most with the rank that had it, and the median.
std::vector<TableCell> WithSpreadCells(std::vector<TableCell> lead, const SpreadOverRanks& spread) {
  lead.insert(lead.end(), {{DurationOfRankText(spread.least, spread.least_rank)},
                           {FormatDurationNs(spread.median)},
                           {DurationOfRankText(spread.most, spread.most_rank)}});
  return lead;
}

// A row per figure: the window, then each segment of kSegmentStyles.
void AddSegmentRows(
    const std::vector<std::pair<const SegmentTimes*, std::optional<int32_t>>>& ranks,
    ReportTable& table) {
  const auto add = [&](std::string label, int64_t SegmentTimes::*ns) {
    RankValues values;
    for (const auto& [times, rank] : ranks) values.emplace_back(times->*ns, rank);
    if (const std::optional<SpreadOverRanks> spread = SpreadOver(std::move(values))) {
      table.rows.push_back(WithSpreadCells({{std::move(label)}}, *spread));
    }
  };
  add("window", &SegmentTimes::window_ns);
  for (const SegmentStyle& style : kSegmentStyles) add(std::string(style.name), style.ns);
}

void SetFigureColumns(ReportTable& table) {
  table.columns = WithSpreadColumns({{"figure"}});
  table.rows.clear();
}

}  // namespace

void FoldTimelineTable(const StepsReport& steps, uint32_t step, int64_t earliest_ns,
                       ReportTable& table) {
  SetFigureColumns(table);
  std::vector<std::pair<const SegmentTimes*, std::optional<int32_t>>> ranks;
  RankValues starts;
  for (const RankStepsReport& rank : steps.ranks) {
    if (const RankStepReport* own = RankStep(rank, step)) {
      ranks.emplace_back(&own->times, rank.rank);
      starts.emplace_back(own->start_ns - earliest_ns, rank.rank);
    }
  }
  table.rows.push_back(WithSpreadCells({{"start"}}, *SpreadOver(std::move(starts))));
  AddSegmentRows(ranks, table);
  SayFolded(table, ranks.size(), "ranks", "rank");
}

void FoldSegmentsTable(const StepsReport& steps, ReportTable& table) {
  SetFigureColumns(table);
  std::vector<std::pair<const SegmentTimes*, std::optional<int32_t>>> ranks;
  for (const RankStepsReport& rank : steps.ranks) ranks.emplace_back(&rank.total, rank.rank);
  AddSegmentRows(ranks, table);
  SayFolded(table, ranks.size(), "ranks", "rank");
}

void FoldPhasesTable(const std::vector<ProcessPhasesReport>& phases, ReportTable& table) {
  table.columns = WithSpreadColumns({{"phase"}, {"source"}, {"ranks", true}, {"count", true}});
  table.columns.push_back({"median share", true});
  table.rows.clear();
  for (const bool inferred : {false, true}) {
    for (const PhaseAcrossRanks& phase : PhasesAcrossRanks(phases, inferred)) {
      std::vector<TableCell> row = WithSpreadCells({{phase.phase},
                                                    {phase.source},
                                                    {std::to_string(phase.processes)},
                                                    {std::to_string(phase.count)}},
                                                   phase.total);
      row.push_back({phase.median_share ? FormatPercent(*phase.median_share) : "-"});
      table.rows.push_back(std::move(row));
    }
  }
  SayFolded(table, phases.size(), "processes", "process's rows");
}

void FoldGpuKernelsTable(const std::vector<ProcessReport>& processes, ReportTable& table) {
  table.columns = WithSpreadColumns({{"kernel"}, {"class"}, {"processes", true}, {"count", true}});
  table.rows.clear();
  struct Kernel {
    std::string kernel_class;
    uint64_t count = 0;
    RankValues totals;  // process order
  };
  std::map<std::string, Kernel> by_name;
  for (const ProcessReport& process : processes) {
    for (const KernelReport& kernel : process.gpu.top_kernels) {
      Kernel& entry = by_name[kernel.name];
      entry.kernel_class = kernel.kernel_class;
      entry.count += kernel.count;
      entry.totals.emplace_back(kernel.total_ns,
                                process.is_rank ? process.rank : std::optional<int32_t>());
    }
  }
  std::vector<std::pair<SpreadOverRanks, const std::pair<const std::string, Kernel>*>> folded;
  for (const auto& entry : by_name) folded.emplace_back(*SpreadOver(entry.second.totals), &entry);
  std::stable_sort(folded.begin(), folded.end(),
                   [](const auto& a, const auto& b) { return a.first.median > b.first.median; });
  for (const auto& [total, entry] : folded) {
    table.rows.push_back(WithSpreadCells({{ShortKernelName(entry->first)},
                                          {entry->second.kernel_class},
                                          {std::to_string(entry->second.totals.size())},
                                          {std::to_string(entry->second.count)}},
                                         total));
  }
  table.note += "; per kernel over the processes whose top kernels list it";
  SayFolded(table, processes.size(), "processes", "process's kernels");
}

}  // namespace vprof::reporter
