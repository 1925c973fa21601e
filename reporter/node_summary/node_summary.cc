#include "reporter/node_summary/node_summary.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <numeric>
#include <optional>

#include "reporter/node_summary/summary_codec.h"
#include "reporter/node_summary/summary_file.h"
#include "reporter/node_summary/summary_steps_codec.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/report/assemble_steps.h"
#include "reporter/steps/step_patterns.h"

namespace vprof::reporter {
namespace {

using vprof::summary::SummaryPacket;

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "<pid>.vtrace" or "<pid>.<n>.vtrace" (trace_writer.cc's names after the host).
bool IsTraceSuffix(std::string_view rest) {
  constexpr std::string_view kExtension = ".vtrace";
  if (!rest.ends_with(kExtension)) return false;
  rest.remove_suffix(kExtension.size());
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return AllDigits(rest);
  return AllDigits(rest.substr(0, dot)) && AllDigits(rest.substr(dot + 1));
}

// The partials in the order a merge reads them: by first enter, so that a
// collective's partials from different nodes meet close together.
std::vector<size_t> ByFirstEnter(const std::vector<vprof::summary::Partial>& partials) {
  std::vector<size_t> order(partials.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return partials[a].first_enter_ns() < partials[b].first_enter_ns();
  });
  return order;
}

// The node's steps, found as `vprof report DIR` would with the same options.
// Ranks are known by file here: a merge gives them the rank of the merged
// report's process.
std::optional<StepsReport> NodeStepsOf(std::vector<ProcessRecord>& records,
                                       const StepOptions& options) {
  std::vector<ProcessReport> processes(records.size());
  for (size_t i = 0; i < records.size(); ++i) processes[i].file = records[i].file();
  return BuildStepsReport(records, processes, options, StepPatterns(options.patterns));
}

vprof::summary::Analysis EncodeAnalysis(const AnalysisOptions& options) {
  vprof::summary::Analysis analysis;
  for (const std::string& pattern : options.steps.patterns) analysis.add_step_patterns(pattern);
  analysis.set_warmup_steps(options.steps.warmup_steps);
  for (const UserPhaseRule& rule : options.phase_rules) {
    vprof::summary::PhaseRuleText& text = *analysis.add_phase_rules();
    text.set_pattern(rule.pattern);
    text.set_phase(rule.phase);
  }
  return analysis;
}

const RankStepsReport* RankOf(const std::optional<StepsReport>& steps, const std::string& file) {
  if (!steps) return nullptr;
  for (const RankStepsReport& rank : steps->ranks) {
    if (rank.file == file) return &rank;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> TracesOfHost(const std::vector<std::string>& paths,
                                      std::string_view host) {
  std::vector<std::string> selected;
  for (const std::string& path : paths) {
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.size() > host.size() && name.starts_with(host) && name[host.size()] == '.' &&
        IsTraceSuffix(std::string_view(name).substr(host.size() + 1))) {
      selected.push_back(path);
    }
  }
  return selected;
}

NodeSummaryResult WriteNodeSummary(const std::string& directory, const std::string& host,
                                   const std::vector<std::string>& paths, ClockChoice clock,
                                   const AnalysisOptions& analysis, const std::string& out_path,
                                   unsigned jobs) {
  const PhaseRulesScope phase_rules(analysis.phase_rules);
  GatheredTraces gathered = GatherTraces(paths, clock, analysis.steps, jobs);
  NodeSummaryResult result;
  SummaryFileWriter writer(out_path);

  SummaryPacket packet;
  vprof::summary::Header& header = *packet.mutable_header();
  header.set_summary_version(kSummaryVersion);
  header.set_directory(directory);
  header.set_host(host);
  header.set_realtime(gathered.time_source.aligned_to_realtime);
  const std::optional<StepsReport> steps = NodeStepsOf(gathered.records, analysis.steps);
  if (steps) *header.mutable_steps() = EncodeNodeSteps(*steps);
  *header.mutable_analysis() = EncodeAnalysis(analysis);
  writer.Write(packet);

  for (size_t i = 0; i < gathered.records.size(); ++i) {
    const ProcessRecord& record = gathered.records[i];
    vprof::summary::Process& process = *packet.mutable_process();
    process = EncodeProcess(record, gathered.stats.participants()[i]);
    if (const RankStepsReport* rank = RankOf(steps, record.file())) {
      *process.mutable_steps() = EncodeRankSteps(*rank);
    }
    writer.Write(packet);
    if (record.state != InputState::kWhole) {
      result.all_whole = false;
      result.problems.push_back(record.path + ": " + record.problem);
    }
  }
  for (const auto& [key, stats] : gathered.stats.ops()) {
    *packet.mutable_op_totals() = EncodeOpTotals(key, stats);
    writer.Write(packet);
  }
  for (const auto& [key, calls] : gathered.stats.teardown()) {
    *packet.mutable_teardown_totals() = EncodeTeardown(key.first, key.second, calls);
    writer.Write(packet);
  }
  std::vector<vprof::summary::Partial> partials;
  for (const PendingCollective& pending : gathered.pending) {
    partials.push_back(EncodePartial(pending));
  }
  for (const size_t i : ByFirstEnter(partials)) {
    *packet.mutable_partial() = std::move(partials[i]);
    writer.Write(packet);
  }
  if (!writer.Finish()) result.error = writer.error();
  return result;
}

}  // namespace vprof::reporter
