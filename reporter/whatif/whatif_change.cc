#include "reporter/whatif/whatif_change.h"

#include <charconv>
#include <cmath>

#include "reporter/base/units.h"
#include "reporter/replay/step_replays.h"

namespace vprof::reporter {
namespace {

// "2", "2x", "1.5x": a factor above 0; none otherwise.
std::optional<double> FactorOf(std::string_view text) {
  if (text.ends_with("x") || text.ends_with("X")) text.remove_suffix(1);
  double factor = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(factor) ||
      factor <= 0) {
    return std::nullopt;
  }
  return factor;
}

// "NAME=VALUE" split at its last '=' (a pattern may hold '=' of its own).
std::optional<std::pair<std::string, std::string>> SplitAssignment(const std::string& text) {
  const size_t at = text.rfind('=');
  if (at == std::string::npos || at == 0 || at + 1 == text.size()) return std::nullopt;
  return std::pair{text.substr(0, at), text.substr(at + 1)};
}

std::string FactorText(double factor) {
  char text[32];
  std::snprintf(text, sizeof text, "%gx", factor);
  return text;
}

bool IsKernelWork(const ReplayWork& work) { return work.kind != WorkKind::kComm; }

// How many kept pieces of kernel or copy work `pattern` matches.
uint64_t Matches(const StepsReport& steps, const std::string& pattern) {
  uint64_t matches = 0;
  for (const RankStepsReport& rank : steps.ranks) {
    for (const RankStepReport& step : rank.steps) {
      for (const ReplayWork& work : step.replay) {
        matches += IsKernelWork(work) && NameMatches(pattern, rank.replay_names[work.name]);
      }
    }
  }
  return matches;
}

std::optional<uint32_t> IndexOfRank(const StepsReport& steps, int32_t rank) {
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    if (steps.ranks[r].rank == rank) return r;
  }
  return std::nullopt;
}

void Describe(ReplayChange& change, const std::string& part) {
  change.description += (change.description.empty() ? "" : "; ") + part;
}

}  // namespace

OptionUse TakeWhatifOption(ArgCursor& arg, WhatifQuestion& question) {
  const std::string_view name = arg.name();
  if (name == "--no-straggler") {
    question.no_straggler = true;
    return OptionUse::kTaken;
  }
  if (name == "--no-host-gaps") {
    question.no_host_gaps = true;
    return OptionUse::kTaken;
  }
  if (name != "--faster" && name != "--comm-faster" && name != "--rank-faster") {
    return OptionUse::kNotMine;
  }
  const std::optional<std::string> value = arg.Value();
  if (!value) return OptionUse::kBad;
  if (name == "--comm-faster") {
    const std::optional<double> factor = FactorOf(*value);
    if (!factor) {
      arg.Complain("--comm-faster '" + *value + "': expected a factor above 0, as 1.5 or 2x");
      return OptionUse::kBad;
    }
    question.comm_faster = *factor;
    return OptionUse::kTaken;
  }
  const auto assignment = SplitAssignment(*value);
  if (name == "--faster") {
    std::optional<double> factor;
    if (assignment) factor = assignment->second == "off" ? 0.0 : FactorOf(assignment->second);
    if (!factor) {
      arg.Complain("--faster '" + *value +
                   "': expected PATTERN=FACTOR, as 'gemm*=2x' ('*' any run of characters), or "
                   "PATTERN=off to remove the kernels");
      return OptionUse::kBad;
    }
    question.faster.emplace_back(assignment->first, *factor);
    return OptionUse::kTaken;
  }
  int32_t rank = -1;
  std::optional<double> factor;
  if (assignment) {
    const std::string& text = assignment->first;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (error == std::errc() && end == text.data() + text.size() && rank >= 0) {
      factor = FactorOf(assignment->second);
    }
  }
  if (!factor) {
    arg.Complain("--rank-faster '" + *value +
                 "': expected RANK=FACTOR, a rank number and a factor above 0, as 3=1.2");
    return OptionUse::kBad;
  }
  question.rank_faster.emplace_back(rank, *factor);
  return OptionUse::kTaken;
}

std::optional<ReplayChange> WhatifChange(const WhatifQuestion& question, const Report& report,
                                         std::string& error, std::vector<std::string>& notes) {
  if (!report.steps) {
    error = "no steps in this run: no GPU kernel records";
    return std::nullopt;
  }
  const StepsReport& steps = *report.steps;
  ReplayChange change;
  for (const auto& [pattern, factor] : question.faster) {
    if (Matches(steps, pattern) == 0) {
      notes.push_back("'" + pattern +
                      "' matches no kernel or copy of the replayed steps (kernel names as in "
                      "'vprof report', \"Top GPU kernels\")");
    }
    // A copy of the pattern: a lambda may not capture a structured binding (clang).
    change.faster.push_back({[match = pattern](const WorkOf& of) {
                               return IsKernelWork(of.work) && NameMatches(match, of.name());
                             },
                             factor});
    Describe(change, "kernels matching " + pattern +
                         (factor == 0 ? " removed" : " " + FactorText(factor) + " faster"));
  }
  if (question.comm_faster != 1) {
    change.faster.push_back(
        {[](const WorkOf& of) { return of.work.kind == WorkKind::kComm; }, question.comm_faster});
    Describe(change, "every collective's transfer " + FactorText(question.comm_faster) + " faster");
  }
  if (question.no_straggler) {
    std::optional<uint32_t> late;
    if (steps.ledger) {
      for (const LateRank& each : steps.ledger->late) {
        if (each.straggler && !late) late = each.index;
      }
    }
    if (!late) {
      error =
          "--no-straggler: this run has no straggler (no rank passes the straggler test; "
          "see the report's \"Straggler\" line); ask --rank-faster RANK=FACTOR instead";
      return std::nullopt;
    }
    const std::optional<uint32_t> like = MedianRankBut(steps, *late);
    if (!like) {
      error = "--no-straggler: no other rank to run the straggler like";
      return std::nullopt;
    }
    change.runs_like.emplace_back(*late, *like);
    Describe(change, "rank " + std::to_string(steps.ranks[*late].rank.value_or(-1)) +
                         " (the straggler) running like rank " +
                         std::to_string(steps.ranks[*like].rank.value_or(-1)) +
                         " (the median rank)");
  }
  if (question.no_host_gaps) {
    change.no_host_gaps = true;
    Describe(change, std::string(kLaunchPaceChange));
  }
  for (const auto& [rank, factor] : question.rank_faster) {
    const std::optional<uint32_t> index = IndexOfRank(steps, rank);
    if (!index) {
      error = "--rank-faster " + std::to_string(rank) + "=...: the run has no rank " +
              std::to_string(rank) + " with measured steps";
      return std::nullopt;
    }
    change.rank_faster.emplace_back(*index, factor);
    Describe(change, "rank " + std::to_string(rank) + " " + FactorText(factor) + " faster");
  }
  return change;
}

}  // namespace vprof::reporter
