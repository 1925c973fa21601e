#include "reporter/diff/compare_reports.h"

#include <map>

#include "reporter/diff/report_sections.h"

namespace vprof::reporter {
namespace {

Presence PresenceOf(bool in_a, bool in_b) {
  if (in_a && in_b) return Presence::kBoth;
  if (in_a) return Presence::kOnlyInA;
  return in_b ? Presence::kOnlyInB : Presence::kNeither;
}

// The metrics of one item: A's in A's order, then those only B has.
std::vector<DiffMetric> PairMetrics(const SideItem* a, const SideItem* b) {
  std::vector<DiffMetric> metrics;
  std::map<std::string, size_t> index;
  for (const SideItem* side : {a, b}) {
    if (!side) continue;
    for (const SideMetric& metric : side->metrics) {
      const auto [at, added] = index.try_emplace(metric.name, metrics.size());
      if (added) metrics.push_back({metric.name, metric.unit, std::nullopt, std::nullopt});
      (side == a ? metrics[at->second].a : metrics[at->second].b) = metric.value;
    }
  }
  return metrics;
}

// Items in A's order, then those only B has.
std::vector<DiffItem> PairItems(const std::vector<SideItem>& a, const std::vector<SideItem>& b) {
  std::map<std::string, const SideItem*> in_b;
  for (const SideItem& item : b) in_b.emplace(item.name, &item);
  std::map<std::string, const SideItem*> in_a;
  std::vector<DiffItem> items;
  for (const SideItem& item : a) {
    in_a.emplace(item.name, &item);
    const auto found = in_b.find(item.name);
    const SideItem* other = found == in_b.end() ? nullptr : found->second;
    items.push_back({item.name, PresenceOf(true, other != nullptr), PairMetrics(&item, other)});
  }
  for (const SideItem& item : b) {
    if (in_a.contains(item.name)) continue;
    items.push_back({item.name, Presence::kOnlyInB, PairMetrics(nullptr, &item)});
  }
  return items;
}

}  // namespace

std::vector<DiffSection> CompareReports(const JsonNode& a, const JsonNode& b) {
  std::vector<DiffSection> sections;
  for (const SectionRule& rule : DiffSectionRules()) {
    const SideSection side_a = rule.read(a);
    const SideSection side_b = rule.read(b);
    DiffSection section{std::string(rule.key),
                        std::string(rule.title),
                        PresenceOf(side_a.has_value(), side_b.has_value()),
                        {}};
    section.items = PairItems(side_a.value_or(std::vector<SideItem>{}),
                              side_b.value_or(std::vector<SideItem>{}));
    sections.push_back(std::move(section));
  }
  return sections;
}

}  // namespace vprof::reporter
