#include "reporter/diff/diff_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/render/text/table_text.h"

namespace vprof::reporter {
namespace {

// Fingerprints ("sha256:" and 64 hex digits) and other long words are cut so
// that a row fits; the JSON diff keeps them whole.
constexpr size_t kLongestWord = 24;

std::string Printf(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string FormatNumber(FigureUnit unit, double value) {
  switch (unit) {
    case FigureUnit::kNs:
      return FormatDuration(value);
    case FigureUnit::kBytes:
      return FormatBytes(static_cast<uint64_t>(std::llround(value)));
    case FigureUnit::kCount:
      return Printf("%.0f", value);
    case FigureUnit::kGbps:
      return FormatGBps(value);
    case FigureUnit::kShare:
      return Printf("%.1f%%", value * 100);
    case FigureUnit::kText:
      break;
  }
  return Printf("%g", value);
}

std::string FormatValue(FigureUnit unit, const std::optional<DiffValue>& value) {
  if (!value) return "—";
  if (const double* number = std::get_if<double>(&*value)) return FormatNumber(unit, *number);
  const std::string& text = std::get<std::string>(*value);
  if (text.size() <= kLongestWord) return text;
  return text.substr(0, kLongestWord - 1) + "…";
}

// A share changes by percentage points; other units by their own amount.
std::string FormatChange(const DiffMetric& metric) {
  if (metric.unit == FigureUnit::kText) {
    if (!metric.a || !metric.b) return "";
    return *metric.a == *metric.b ? "same" : "differs";
  }
  const std::optional<double> change = Change(metric);
  if (!change) return "";
  const std::string sign = *change < 0 ? "-" : *change > 0 ? "+" : "";
  if (metric.unit == FigureUnit::kShare) return sign + Printf("%.1f pp", std::fabs(*change) * 100);
  return sign + FormatNumber(metric.unit, std::fabs(*change));
}

std::string FormatRelative(const DiffMetric& metric) {
  if (const std::optional<double> relative = RelativeChange(metric)) {
    return Printf("%+.1f%%", *relative * 100);
  }
  return Change(metric) ? "n/a" : "";  // A is 0
}

std::string_view OnlyIn(Presence presence) {
  return presence == Presence::kOnlyInA ? "only in A" : "only in B";
}

// How much an item changed: its metrics' largest |relative change|;
// infinite for an item on one side only, a word that differs or a change
// from 0; 0 when nothing changed.
double LargestChange(const DiffItem& item) {
  if (item.presence != Presence::kBoth) return INFINITY;
  double largest = 0;
  for (const DiffMetric& metric : item.metrics) {
    if (metric.unit == FigureUnit::kText) {
      if (metric.a != metric.b) return INFINITY;
      continue;
    }
    const std::optional<double> change = Change(metric);
    if (!change || *change == 0) continue;
    const std::optional<double> relative = RelativeChange(metric);
    largest = std::max(largest, relative ? std::fabs(*relative) : INFINITY);
  }
  return largest;
}

// The items a section lists: all of them, or for a large section the
// kFoldAbove that changed most (stable: in section order among equals).
std::vector<const DiffItem*> ListedItems(const DiffSection& section) {
  std::vector<const DiffItem*> listed;
  for (const DiffItem& item : section.items) listed.push_back(&item);
  if (listed.size() <= kFoldAbove) return listed;
  std::vector<std::pair<double, const DiffItem*>> changed;
  for (const DiffItem* item : listed) {
    if (const double largest = LargestChange(*item); largest > 0)
      changed.emplace_back(largest, item);
  }
  std::stable_sort(changed.begin(), changed.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  listed.clear();
  for (size_t i = 0; i < changed.size() && i < kFoldAbove; ++i) listed.push_back(changed[i].second);
  return listed;
}

void WriteSection(const DiffSection& section, std::ostream& out) {
  out << '\n' << section.title << '\n';
  if (section.presence == Presence::kNeither) {
    out << "  in neither report\n";
    return;
  }
  if (section.presence != Presence::kBoth) {
    out << "  " << OnlyIn(section.presence) << " (the other report has no such section)\n";
  }
  if (section.items.empty()) {
    out << "  empty in both reports\n";
    return;
  }
  ReportTable table = UntitledTable(
      {{"item"}, {"metric"}, {"A", true}, {"B", true}, {"change", true}, {"relative", true}});
  const std::vector<const DiffItem*> listed = ListedItems(section);
  if (listed.size() < section.items.size()) {
    size_t changed = 0;
    for (const DiffItem& item : section.items) changed += LargestChange(item) > 0;
    const std::string items = std::to_string(section.items.size()) + " items, ";
    WriteWrapped(out,
                 changed == 0 ? items + "none changed (the JSON diff has all)"
                              : items + std::to_string(changed) + " changed; listed: the " +
                                    std::to_string(listed.size()) +
                                    " that changed most, largest relative change first (the "
                                    "JSON diff has all)",
                 "  ", "    ");
  }
  if (listed.empty()) return;
  for (const DiffItem* listed_item : listed) {
    const DiffItem& item = *listed_item;
    bool first = true;
    for (const DiffMetric& metric : item.metrics) {
      const bool both = item.presence == Presence::kBoth;
      table.rows.push_back({first ? item.name : "", MetricLabel(metric.name),
                            FormatValue(metric.unit, metric.a), FormatValue(metric.unit, metric.b),
                            both ? FormatChange(metric) : std::string(OnlyIn(item.presence)),
                            both ? FormatRelative(metric) : ""});
      first = false;
    }
  }
  TextTableOf(table).Write(out, "  ");
}

std::string Describe(const DiffSide& side) {
  std::string text = side.input + (side.directory ? " (trace directory" : " (JSON report");
  return text + (side.all_inputs_whole ? ")" : "; some traces not whole)");
}

}  // namespace

void WriteDiffText(const RunDiff& diff, std::ostream& out) {
  WriteWrapped(out, diff.verdict, "Verdict: ", "  ");
  out << "vprof diff\n"
      << "  A: " << Describe(diff.a) << '\n'
      << "  B: " << Describe(diff.b) << '\n'
      << "  change = B - A; relative = change / A (n/a when A is 0); items matched by rank,\n"
         "  communicator size, op and size bucket, phase, kind: never by pid or comm id\n";
  for (const DiffSection& section : diff.sections) WriteSection(section, out);
}

}  // namespace vprof::reporter
