#include "reporter/export/export_selection.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>

#include "reporter/base/arg_cursor.h"
#include "reporter/base/units.h"
#include "reporter/export/export_filter.h"
#include "reporter/report/build.h"

namespace vprof::reporter {
namespace {

// A whole number of at most `digits` digits, all of `text`.
std::optional<int64_t> SmallNumber(std::string_view text, size_t digits = 9) {
  int64_t value = 0;
  if (text.empty() || text.size() > digits) return std::nullopt;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (status != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "7" or "3-9" (first <= last).
std::optional<RankRange> Range(std::string_view text) {
  const size_t dash = text.find('-');
  const std::optional<int64_t> first = SmallNumber(text.substr(0, dash));
  const std::optional<int64_t> last =
      dash == std::string_view::npos ? first : SmallNumber(text.substr(dash + 1));
  if (!first || !last || *last < *first) return std::nullopt;
  return RankRange{*first, *last};
}

// "1.5 s", "250 ms": a time of the selection as people read it.
std::string TimeText(int64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + " s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + " ms";
  if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + " us";
  return std::to_string(ns) + " ns";
}

std::string ProcessFile(const ExportProcess& process) {
  return std::filesystem::path(process.path).filename().string();
}

// The processes of `plan` that `keep` refuses are left out, said in one line
// (their ranks as runs, the non-rank ones counted) with `why`.
template <typename Keep>
void LeaveOut(ExportPlan& plan, Keep keep, std::string_view why) {
  std::vector<int64_t> ranks;
  uint64_t others = 0;
  std::erase_if(plan.processes, [&](const ExportProcess& process) {
    if (keep(process)) return false;
    if (process.rank) {
      ranks.push_back(*process.rank);
    } else {
      ++others;
    }
    return true;
  });
  if (ranks.empty() && others == 0) return;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string text;
  if (!ranks.empty()) text = (ranks.size() == 1 ? "rank " : "ranks ") + RankList(ranks);
  if (others > 0) {
    text += (text.empty() ? "" : " and ") +
            FormatCount(others, "non-rank process", "non-rank processes");
  }
  plan.left_out.push_back(text + " (" + std::string(why) + ")");
}

bool InRanks(const std::vector<RankRange>& ranks, int64_t rank) {
  return std::any_of(ranks.begin(), ranks.end(), [&](const RankRange& range) {
    return rank >= range.first && rank <= range.last;
  });
}

// Each kept process's window becomes that of its steps numbered
// `steps.first`-`steps.last`; false after saying why when the report has
// none of them.
bool SelectSteps(const RankRange& steps, const std::string& directory,
                 const std::vector<std::string>& paths, ExportPlan& plan, std::ostream& err) {
  const std::string asked = "--steps " + RangeText(steps);
  const Report report = BuildReport(directory, paths);
  if (!report.steps || report.steps->ranks.empty()) {
    err << "vprof: export: " << asked << ": the report of " << directory << " has no measured steps"
        << (report.steps && !report.steps->problem.empty() ? " (" + report.steps->problem + ")"
                                                           : std::string())
        << '\n';
    return false;
  }
  const StepsReport& found = *report.steps;
  const int64_t first = StepNumber(found, found.first_measured);
  const int64_t last = StepNumber(found, found.last_measured);
  if (steps.last < first || steps.first > last) {
    err << "vprof: export: " << asked << ": the measured steps of " << directory << " are "
        << RangeText({first, last}) << '\n';
    return false;
  }
  // file name → the window of its selected steps, on the report's clock
  std::map<std::string, std::pair<int64_t, int64_t>> windows;
  for (const RankStepsReport& rank : found.ranks) {
    for (const RankStepReport& step : rank.steps) {
      const int64_t number = StepNumber(found, step.step);
      if (number < steps.first || number > steps.last) continue;
      auto [window, added] = windows.try_emplace(rank.file, step.start_ns, step.end_ns);
      if (!added) {
        window->second.first = std::min(window->second.first, step.start_ns);
        window->second.second = std::max(window->second.second, step.end_ns);
      }
    }
  }
  LeaveOut(
      plan, [&](const ExportProcess& process) { return windows.contains(ProcessFile(process)); },
      "no step " + RangeText(steps));
  for (ExportProcess& process : plan.processes) {
    const auto& [start_ns, end_ns] = windows.at(ProcessFile(process));
    process.from_ns = std::max(process.from_ns, start_ns - plan.origin_ns);
    process.to_ns = std::min(process.to_ns, end_ns - plan.origin_ns);
  }
  return true;
}

}  // namespace

std::string ExportSelection::Description() const {
  std::vector<std::string> parts;
  if (ranks) parts.push_back((RankCount(*ranks) == 1 ? "rank " : "ranks ") + RankList(*ranks));
  if (steps) {
    parts.push_back((steps->first == steps->last ? "step " : "steps ") + RangeText(*steps));
  }
  if (from_ns) parts.push_back("from " + TimeText(*from_ns));
  if (to_ns) parts.push_back("to " + TimeText(*to_ns));
  if (kinds != ~0u) {
    std::string names;
    for (size_t index = 0; index < kExportKindCount; ++index) {
      const auto kind = static_cast<ExportKind>(index);
      if (kinds & KindBit(kind))
        names += (names.empty() ? "" : ", ") + std::string(ExportKindName(kind));
    }
    parts.push_back("kinds " + names);
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : "; ") + part;
  return text;
}

std::optional<std::vector<RankRange>> ParseRankRanges(std::string_view text, std::string& error) {
  std::vector<RankRange> ranges;
  for (const std::string_view part : CommaSeparated(text)) {
    const std::optional<RankRange> range = Range(part);
    if (!range) {
      error =
          "'" + std::string(part) + "' is not a rank or a range of ranks (expected e.g. 0-7,12)";
      return std::nullopt;
    }
    ranges.push_back(*range);
  }
  // Ascending and merged, however they were written.
  std::sort(ranges.begin(), ranges.end(),
            [](const RankRange& a, const RankRange& b) { return a.first < b.first; });
  std::vector<RankRange> merged;
  for (const RankRange& range : ranges) {
    if (!merged.empty() && range.first <= merged.back().last + 1) {
      merged.back().last = std::max(merged.back().last, range.last);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

std::optional<RankRange> ParseStepRange(std::string_view text, std::string& error) {
  const std::optional<RankRange> range = Range(text);
  if (!range)
    error = "'" + std::string(text) + "' is not a step or a range of steps (expected e.g. 10-12)";
  return range;
}

std::optional<int64_t> ParseTimelineTime(std::string_view text, std::string& error) {
  const size_t unit_at = text.find_first_not_of("0123456789.");
  const std::string_view number = text.substr(0, unit_at);
  const std::string_view unit = unit_at == std::string_view::npos ? "" : text.substr(unit_at);
  int64_t scale = 0;
  if (unit == "s") scale = 1'000'000'000;
  if (unit == "ms") scale = 1'000'000;
  if (unit == "us") scale = 1'000;
  if (unit == "ns") scale = 1;
  const size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? "" : number.substr(dot + 1);
  const std::optional<int64_t> whole_value = SmallNumber(whole, 18);
  // The fraction, to the nanosecond: digits past it are not times a trace holds.
  int64_t fraction_ns = 0;
  int64_t digit_scale = scale;
  bool fraction_ok = dot == std::string_view::npos || !fraction.empty();
  for (const char digit : fraction) {
    if (digit < '0' || digit > '9') fraction_ok = false;
    digit_scale /= 10;
    fraction_ns += (digit - '0') * digit_scale;
  }
  // Past 2^63 ns (292 years) a time is no time of a trace.
  if (scale == 0 || !whole_value || !fraction_ok ||
      *whole_value > (std::numeric_limits<int64_t>::max() - scale) / scale) {
    error = "'" + std::string(text) +
            "' is not a time with its unit (expected e.g. 1.5s, 250ms, 40us or 1000ns, since the "
            "earliest process start)";
    return std::nullopt;
  }
  return *whole_value * scale + fraction_ns;
}

std::optional<uint32_t> ParseExportKinds(std::string_view text, std::string& error) {
  uint32_t kinds = 0;
  for (const std::string_view part : CommaSeparated(text)) {
    bool known = false;
    for (size_t index = 0; index < kExportKindCount; ++index) {
      const auto kind = static_cast<ExportKind>(index);
      if (part == ExportKindName(kind)) {
        kinds |= KindBit(kind);
        known = true;
      }
    }
    if (!known) {
      error = "'" + std::string(part) +
              "' is not a kind of record (expected some of api, nccl, nvtx, kernels, memory)";
      return std::nullopt;
    }
  }
  return kinds;
}

bool ApplySelection(const ExportSelection& selection, const std::string& directory,
                    const std::vector<std::string>& paths, ExportPlan& plan, std::ostream& err) {
  plan.selection = selection.Description();
  plan.kinds = selection.kinds;
  if (selection.ranks) {
    LeaveOut(
        plan,
        [&](const ExportProcess& process) {
          return process.rank && InRanks(*selection.ranks, *process.rank);
        },
        "not in --ranks");
  }
  if (selection.steps && !SelectSteps(*selection.steps, directory, paths, plan, err)) return false;
  for (ExportProcess& process : plan.processes) {
    if (selection.from_ns) process.from_ns = std::max(process.from_ns, *selection.from_ns);
    if (selection.to_ns) process.to_ns = std::min(process.to_ns, *selection.to_ns);
  }
  return true;
}

}  // namespace vprof::reporter
