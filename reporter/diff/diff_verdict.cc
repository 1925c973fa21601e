#include "reporter/diff/diff_verdict.h"

#include <cmath>

#include "reporter/base/units.h"
#include "reporter/diff/report_sections.h"
#include "reporter/model/report_figures.h"
#include "reporter/render/json/json_keys.h"

namespace vprof::reporter {
namespace {

const DiffSection* SectionOf(const std::vector<DiffSection>& sections, std::string_view key) {
  for (const DiffSection& section : sections) {
    if (section.key == key) return &section;
  }
  return nullptr;
}

// The item's first metric's change, where both runs have a number.
std::optional<double> ChangeOf(const DiffItem& item) {
  if (item.presence != Presence::kBoth || item.metrics.empty()) return std::nullopt;
  return Change(item.metrics.front());
}

// The item of `section` whose first metric changed most in the direction of
// `sign`, and by how much; none when no item moved that way.
const DiffItem* MovedMost(const DiffSection& section, double sign, std::string_view skip,
                          double& moved) {
  const DiffItem* most = nullptr;
  moved = 0;
  for (const DiffItem& item : section.items) {
    if (item.name == skip) continue;
    const std::optional<double> change = ChangeOf(item);
    if (!change || *change * sign <= moved) continue;
    moved = *change * sign;
    most = &item;
  }
  return most;
}

std::string Signed(double ns) { return (ns < 0 ? "-" : "+") + FormatDuration(std::fabs(ns)); }

}  // namespace

std::string DiffVerdict(const std::vector<DiffSection>& sections) {
  const DiffSection* ledger = SectionOf(sections, kLedgerSection);
  const DiffItem* mean = nullptr;
  if (ledger) {
    for (const DiffItem& item : ledger->items) {
      if (item.name == kMeanStepItem) mean = &item;
    }
  }
  if (!mean || !ChangeOf(*mean)) {
    return "the step times cannot be compared: " +
           std::string(!ledger || ledger->presence != Presence::kBoth
                           ? "a report has no step ledger (no measured steps)"
                           : "a report has no mean step");
  }
  const DiffMetric& step = mean->metrics.front();
  const double a = std::get<double>(*step.a);
  const double b = std::get<double>(*step.b);
  if (a == b) return "both runs take " + FormatDuration(a) + " per step";
  const double sign = b > a ? 1 : -1;
  std::string text =
      std::string(b > a ? "B" : "A") + " is slower per step by " + FormatDuration(std::fabs(b - a));
  if (const std::optional<double> relative = RelativeChange(step)) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%+.1f%%", *relative * 100);
    text += " (" + std::string(percent) + ", " + FormatDuration(a) + " in A, " + FormatDuration(b) +
            " in B)";
  }
  double moved = 0;
  if (const DiffItem* cause = MovedMost(*ledger, sign, kMeanStepItem, moved)) {
    text +=
        "; most of it: " + cause->name + ", " + Signed(moved * sign) + " per step (step ledger)";
  }
  // The ranks' measured windows, summed over their steps: which rank's grew (or shrank) most.
  if (const DiffSection* steps = SectionOf(sections, json_keys::report::kSteps)) {
    const DiffItem* rank = nullptr;
    double most = 0;
    for (const DiffItem& item : steps->items) {
      if (item.presence != Presence::kBoth) continue;
      for (const DiffMetric& metric : item.metrics) {
        if (metric.name != KeyOf(kSegmentFigures, &SegmentTimes::window_ns)) continue;
        const std::optional<double> change = Change(metric);
        if (change && *change * sign > most) {
          most = *change * sign;
          rank = &item;
        }
      }
    }
    if (rank) text += "; of the ranks, " + rank->name + "'s steps changed most (steps)";
  }
  return text;
}

}  // namespace vprof::reporter
