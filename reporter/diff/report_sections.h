// What `vprof diff` takes from one JSON report, section by section: items
// keyed so that they match between runs, with the metrics compared. One
// table (DiffSectionRules) says which sections there are and how each is read.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/base/json_node.h"
#include "reporter/diff/run_diff.h"
#include "reporter/model/figure.h"

namespace vprof::reporter {

struct SideMetric {
  std::string name;
  FigureUnit unit;
  DiffValue value;
};

struct SideItem {
  std::string name;
  std::vector<SideMetric> metrics;
};

// None: the report does not have the section (its key is missing or null);
// an empty list: it has it, with nothing in it.
using SideSection = std::optional<std::vector<SideItem>>;

struct SectionRule {
  std::string_view key;
  std::string_view title;
  SideSection (*read)(const JsonNode& report);
};

// The ledger section's key, and its item holding the mean step.
inline constexpr std::string_view kLedgerSection = "ledger";
inline constexpr std::string_view kMeanStepItem = "mean step";

// The number (or, for kText, the text) at `key` of `node` as a metric of
// `item`; nothing when the key is missing, null or of another kind.
void AddMetric(SideItem& item, const JsonNode& node, std::string_view key, FigureUnit unit);

// The figures of a record's table that the diff compares, read from the
// record's JSON object by their keys, in the table's order.
template <typename Struct>
void AddFigures(SideItem& item, const JsonNode& node, std::span<const Figure<Struct>> figures) {
  for (const Figure<Struct>& figure : figures) {
    if (figure.compared) AddMetric(item, node, figure.key, *figure.compared);
  }
}

// In the order the diff prints them.
const std::vector<SectionRule>& DiffSectionRules();

}  // namespace vprof::reporter
