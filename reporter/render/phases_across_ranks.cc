#include "reporter/render/phases_across_ranks.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace vprof::reporter {

std::vector<PhaseAcrossRanks> PhasesAcrossRanks(const std::vector<ProcessPhasesReport>& processes,
                                                bool inferred) {
  struct Rows {
    bool unmatched = false;
    uint64_t count = 0;
    RankValues totals;  // process order
    std::vector<double> shares;
  };
  std::map<std::pair<std::string, std::string>, Rows> by_phase;  // (name, source)
  for (const ProcessPhasesReport& process : processes) {
    if (process.inferred != inferred) continue;
    for (const PhaseReport& phase : process.phases) {
      const std::string name = phase.unmatched
                                   ? (phase.name.empty() ? "?" : phase.name) + " (other, unmatched)"
                                   : phase.name;
      Rows& rows = by_phase[{name, phase.source}];
      rows.unmatched = phase.unmatched;
      rows.count += phase.count;
      rows.totals.emplace_back(phase.total_ns, process.rank);
      if (phase.span_share) rows.shares.push_back(*phase.span_share);
    }
  }
  std::vector<std::pair<bool, PhaseAcrossRanks>> folded;  // (unmatched, row)
  for (auto& [key, rows] : by_phase) {
    PhaseAcrossRanks row;
    row.phase = key.first;
    row.source = key.second;
    row.processes = rows.totals.size();
    row.count = rows.count;
    row.total = *SpreadOver(std::move(rows.totals));
    if (!rows.shares.empty()) {
      std::sort(rows.shares.begin(), rows.shares.end());
      row.median_share = rows.shares[rows.shares.size() / 2];
    }
    folded.emplace_back(rows.unmatched, std::move(row));
  }
  std::stable_sort(folded.begin(), folded.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, b.second.total.median) < std::tie(b.first, a.second.total.median);
  });
  std::vector<PhaseAcrossRanks> result;
  for (auto& [unmatched, row] : folded) result.push_back(std::move(row));
  return result;
}

}  // namespace vprof::reporter
