// Two runs side by side: what `vprof diff` compares, built from the two JSON
// reports and printed by the text and JSON writers, which only format.
//
// A section (communication, phases, ...) holds items (a communicator op row, a
// rank's phase) matched between the runs by a key that does not depend on the
// run (sizes, ranks, names; never comm ids or pids), each with its metrics.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reporter/model/figure.h"

namespace vprof::reporter {

// A number, or a word (a fingerprint, a verdict, a rank) compared for equality.
using DiffValue = std::variant<double, std::string>;

// Where something was found.
enum class Presence { kBoth, kOnlyInA, kOnlyInB, kNeither };

struct DiffMetric {
  std::string name;  // the JSON report's key, e.g. "mean_time_ns"
  FigureUnit unit = FigureUnit::kCount;
  std::optional<DiffValue> a, b;  // none: not on that side
};

struct DiffItem {
  std::string name;  // e.g. "size 2 ncclAllReduce [1MiB,2MiB)"
  Presence presence = Presence::kBoth;
  std::vector<DiffMetric> metrics;
};

struct DiffSection {
  std::string key;    // "communication", ...: the JSON diff's name for it
  std::string title;  // for people, with how items are matched
  Presence presence = Presence::kBoth;
  std::vector<DiffItem> items;
};

struct DiffSide {
  std::string input;             // as given on the command line
  bool directory = false;        // a trace directory (else a JSON report file)
  bool all_inputs_whole = true;  // the report's all_inputs_whole
};

struct RunDiff {
  DiffSide a, b;
  std::vector<DiffSection> sections;
  std::string verdict;  // diff_verdict.h
};

// A metric's name for people: its JSON key's words, without the unit suffix
// the column already gives ("mean_time_ns" → "mean time").
std::string MetricLabel(std::string_view key);

// b − a, and (b − a) / a; none for words, or (relative) when a is 0.
std::optional<double> Change(const DiffMetric& metric);
std::optional<double> RelativeChange(const DiffMetric& metric);

// "both", "only_in_a", "only_in_b", "neither".
std::string_view PresenceName(Presence presence);
// "ns", "bytes", "count", "GB/s", "share", "text".
std::string_view FigureUnitName(FigureUnit unit);

}  // namespace vprof::reporter
