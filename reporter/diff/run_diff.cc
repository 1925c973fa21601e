#include "reporter/diff/run_diff.h"

namespace vprof::reporter {
namespace {

const double* NumberOf(const std::optional<DiffValue>& value) {
  return value ? std::get_if<double>(&*value) : nullptr;
}

}  // namespace

std::optional<double> Change(const DiffMetric& metric) {
  const double* a = NumberOf(metric.a);
  const double* b = NumberOf(metric.b);
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> RelativeChange(const DiffMetric& metric) {
  const std::optional<double> change = Change(metric);
  if (!change) return std::nullopt;
  const double a = std::get<double>(*metric.a);
  if (a == 0) return std::nullopt;
  return *change / a;
}

std::string MetricLabel(std::string_view key) {
  for (const std::string_view suffix : {"_ns", "_bytes", "_gbps"}) {
    if (key.ends_with(suffix)) key.remove_suffix(suffix.size());
  }
  std::string label(key);
  for (char& c : label) c = c == '_' ? ' ' : c;
  return label;
}

std::string_view PresenceName(Presence presence) {
  switch (presence) {
    case Presence::kBoth:
      return "both";
    case Presence::kOnlyInA:
      return "only_in_a";
    case Presence::kOnlyInB:
      return "only_in_b";
    case Presence::kNeither:
      return "neither";
  }
  return "neither";
}

std::string_view FigureUnitName(FigureUnit unit) {
  switch (unit) {
    case FigureUnit::kNs:
      return "ns";
    case FigureUnit::kBytes:
      return "bytes";
    case FigureUnit::kCount:
      return "count";
    case FigureUnit::kGbps:
      return "GB/s";
    case FigureUnit::kShare:
      return "share";
    case FigureUnit::kText:
      return "text";
  }
  return "text";
}

}  // namespace vprof::reporter
