#include "reporter/node_summary/summary_merge.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/size_bucket.h"
#include "reporter/node_summary/summary_codec.h"
#include "reporter/node_summary/summary_file.h"
#include "reporter/node_summary/summary_steps_merge.h"
#include "reporter/report/assemble.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

using vprof::summary::SummaryPacket;

// One summary file, read packet by packet with one packet of lookahead.
struct SummaryInput {
  std::string path;
  std::unique_ptr<SummaryFileReader> reader;
  vprof::summary::Header header;
  std::vector<vprof::summary::Process> processes;
  std::vector<uint32_t> global_index;  // node's process index → merged index
  SummaryPacket next;
  bool has_next = false;

  void Advance() { has_next = reader->Next(&next); }
  std::string Corrupt(const std::string& what) const { return path + ": " + what; }
};

std::string BadBucket(int32_t log2) {
  return "size bucket 2^" + std::to_string(log2) + " (bucket_log2), expected -1 to 63";
}

// Reads the Header and the Process packets, leaving the first packet after
// them as `next`. Returns what is wrong, or "".
std::string OpenInput(SummaryInput& input) {
  input.reader = std::make_unique<SummaryFileReader>(input.path);
  input.Advance();
  if (!input.has_next || !input.next.has_header()) {
    return input.Corrupt(input.reader->problem().empty() ? "does not start with a Header"
                                                         : input.reader->problem());
  }
  input.header = input.next.header();
  if (input.header.summary_version() != kSummaryVersion) {
    return input.Corrupt("summary_version " + std::to_string(input.header.summary_version()) +
                         " is not the one this vprof reads (" + std::to_string(kSummaryVersion) +
                         ")");
  }
  for (input.Advance(); input.has_next && input.next.has_process(); input.Advance()) {
    for (const auto& row : input.next.process().gpu().nccl_collectives()) {
      if (!ValidBucketLog2(row.bucket_log2())) {
        return input.Corrupt("process " + input.next.process().file() + ": " +
                             BadBucket(row.bucket_log2()));
      }
    }
    input.processes.push_back(input.next.process());
  }
  return "";
}

// Gives every process of every summary its index in the merged run: file
// order, as `vprof report DIR` numbers them. Returns what is wrong, or "".
std::string NumberProcesses(std::vector<SummaryInput>& inputs) {
  std::vector<std::tuple<std::string, size_t, size_t>> files;  // (file, input, local index)
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].global_index.resize(inputs[i].processes.size());
    for (size_t p = 0; p < inputs[i].processes.size(); ++p) {
      files.emplace_back(inputs[i].processes[p].file(), i, p);
    }
  }
  std::sort(files.begin(), files.end());
  for (size_t g = 0; g < files.size(); ++g) {
    const auto& [file, input, local] = files[g];
    if (g > 0 && std::get<0>(files[g - 1]) == file) {
      return file + " is in two summaries: " + inputs[std::get<1>(files[g - 1])].path + " and " +
             inputs[input].path;
    }
    inputs[input].global_index[local] = static_cast<uint32_t>(g);
  }
  return "";
}

// The totals of collectives each node saw whole. Returns what is wrong, or "".
std::string MergeNodeTotals(std::vector<SummaryInput>& inputs, CollectiveStats& stats) {
  for (SummaryInput& input : inputs) {
    for (size_t p = 0; p < input.processes.size(); ++p) {
      stats.MergeParticipant(input.global_index[p], DecodeParticipant(input.processes[p]));
    }
    for (; input.has_next; input.Advance()) {
      if (input.next.has_op_totals()) {
        if (!ValidBucketLog2(input.next.op_totals().bucket_log2())) {
          return input.Corrupt("OpTotals: " + BadBucket(input.next.op_totals().bucket_log2()));
        }
        const auto op = DecodeOpStats(input.next.op_totals(), input.global_index);
        if (!op) return input.Corrupt("OpTotals names a process it does not have");
        stats.MergeOp(DecodeOpKey(input.next.op_totals()), *op);
      } else if (input.next.has_teardown_totals()) {
        const auto& teardown = input.next.teardown_totals();
        stats.MergeTeardown(teardown.comm_id(), DecodeFunction(teardown.function()),
                            DecodeTeardown(teardown));
      } else {
        break;
      }
    }
  }
  return "";
}

// Completes the collectives that span nodes: every summary's partials, read in
// step by first enter (a k-way merge), go through the same matcher as the
// calls of `vprof report DIR`. Returns what is wrong, or "".
std::string MatchPartials(std::vector<SummaryInput>& inputs, CollectiveMatcher& matcher,
                          CollectiveStats& stats) {
  using Entry = std::pair<int64_t, size_t>;  // (first enter, input)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> next_partials;
  const auto queue = [&](size_t i) {
    if (inputs[i].has_next && inputs[i].next.has_partial()) {
      next_partials.emplace(inputs[i].next.partial().first_enter_ns(), i);
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i) queue(i);
  while (!next_partials.empty()) {
    SummaryInput& input = inputs[next_partials.top().second];
    next_partials.pop();
    const auto calls = DecodePartial(input.next.partial(), input.global_index);
    if (!calls) return input.Corrupt("a Partial names a process it does not have");
    for (const CollectiveCall& call : *calls) {
      if (auto matched = matcher.Add(call)) stats.AddMatched(*matched);
    }
    input.Advance();
    queue(static_cast<size_t>(&input - inputs.data()));
  }
  for (const SummaryInput& input : inputs) {
    if (input.has_next) return input.Corrupt("packets out of order");
    if (!input.reader->problem().empty()) return input.Corrupt(input.reader->problem());
  }
  return "";
}

TimeSource MergedTimeSource(const std::vector<ProcessRecord>& records, bool realtime) {
  std::set<std::string> hosts;
  TimeSource time_source;
  time_source.aligned_to_realtime = realtime;
  for (const ProcessRecord& record : records) {
    if (record.opened) hosts.insert(record.host);
    if (record.clock_unaligned) ++time_source.unaligned_processes;
    if (realtime) {
      time_source.clock_error_bound_ns =
          std::max(time_source.clock_error_bound_ns, record.clock_samples.spread_ns());
    }
  }
  time_source.hosts.assign(hosts.begin(), hosts.end());
  return time_source;
}

// Traces of the directory that no summary holds: the merged report lacks them.
void CheckEveryTraceSummarized(const std::string& directory,
                               const std::vector<ProcessRecord>& records, MergeResult& result) {
  const TraceFileList listed = ListTraceFiles(directory);
  if (!listed.error.empty()) {
    result.warnings.push_back("cannot check that every trace of " + directory +
                              " is in a summary: " + listed.error);
    return;
  }
  std::set<std::string> summarized;
  for (const ProcessRecord& record : records) summarized.insert(record.path);
  for (const std::string& path : listed.paths) {
    if (summarized.count(path) == 0) {
      result.warnings.push_back(path + ": in no node summary, so not in this report");
      result.traces_missing = true;
    }
  }
}

// What differs between two summaries' analysis options, as "--warmup (2 and
// 1)"; "" when nothing does.
std::string AnalysisDifference(const vprof::summary::Analysis& a,
                               const vprof::summary::Analysis& b) {
  const auto joined = [](const auto& patterns) {
    std::string text;
    for (const std::string& pattern : patterns) text += (text.empty() ? "" : " | ") + pattern;
    return text.empty() ? std::string("the defaults") : "'" + text + "'";
  };
  if (!std::equal(a.step_patterns().begin(), a.step_patterns().end(), b.step_patterns().begin(),
                  b.step_patterns().end())) {
    return "--step-pattern (" + joined(a.step_patterns()) + " and " + joined(b.step_patterns()) +
           ")";
  }
  if (a.warmup_steps() != b.warmup_steps()) {
    return "--warmup (" + std::to_string(a.warmup_steps()) + " and " +
           std::to_string(b.warmup_steps()) + ")";
  }
  const auto same_rule = [](const vprof::summary::PhaseRuleText& x,
                            const vprof::summary::PhaseRuleText& y) {
    return x.pattern() == y.pattern() && x.phase() == y.phase();
  };
  if (!std::equal(a.phase_rules().begin(), a.phase_rules().end(), b.phase_rules().begin(),
                  b.phase_rules().end(), same_rule)) {
    return "--phase-rules (" + std::to_string(a.phase_rules_size()) + " and " +
           std::to_string(b.phase_rules_size()) + " rules, not the same)";
  }
  return "";
}

MergeResult Failure(std::string error, bool usage_error) {
  MergeResult result;
  result.error = std::move(error);
  result.usage_error = usage_error;
  return result;
}

}  // namespace

MergeResult MergeSummaries(const std::vector<std::string>& summary_paths,
                           const ConsistencyOptions& consistency) {
  if (summary_paths.empty()) return Failure("no node summaries to merge", true);
  std::vector<SummaryInput> inputs(summary_paths.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].path = summary_paths[i];
    if (std::string error = OpenInput(inputs[i]); !error.empty()) return Failure(error, false);
  }
  const vprof::summary::Header& first = inputs[0].header;
  for (const SummaryInput& input : inputs) {
    if (input.header.directory() != first.directory()) {
      return Failure(input.path + " summarizes " + input.header.directory() + ", " +
                         inputs[0].path + " " + first.directory(),
                     true);
    }
    if (const std::string difference =
            AnalysisDifference(input.header.analysis(), first.analysis());
        !difference.empty()) {
      return Failure(input.path + " and " + inputs[0].path + " were made with different " +
                         difference +
                         ": make every node summary with the same --step-pattern, --warmup "
                         "and --phase-rules",
                     true);
    }
    if (input.header.realtime() != first.realtime()) {
      return Failure(input.path + " and " + inputs[0].path +
                         " are on different clocks (--clock monotonic and realtime)",
                     true);
    }
  }
  if (std::string error = NumberProcesses(inputs); !error.empty()) return Failure(error, true);

  std::vector<ProcessRecord> records;
  for (const SummaryInput& input : inputs) {
    records.resize(records.size() + input.processes.size());
  }
  for (const SummaryInput& input : inputs) {
    for (size_t p = 0; p < input.processes.size(); ++p) {
      records[input.global_index[p]] = DecodeProcess(input.processes[p], first.directory());
    }
  }

  CollectiveStats stats(records.size());
  CollectiveMatcher matcher(records.size());
  if (std::string error = MergeNodeTotals(inputs, stats); !error.empty()) {
    return Failure(error, false);
  }
  if (std::string error = MatchPartials(inputs, matcher, stats); !error.empty()) {
    return Failure(error, false);
  }

  TimeSource time_source = MergedTimeSource(records, first.realtime());
  MergeResult result;
  if (!first.realtime() && time_source.hosts.size() > 1) {
    return Failure("the summaries are on each host's CLOCK_MONOTONIC, but the traces come from " +
                       std::to_string(time_source.hosts.size()) +
                       " hosts, whose times cannot be compared: make them with --clock realtime",
                   true);
  }
  if (first.realtime() && time_source.hosts.size() <= 1) {
    result.warnings.push_back(
        "times are on CLOCK_REALTIME (summaries made with --clock realtime) although the traces "
        "come from one host; 'vprof report " +
        first.directory() + "' would keep CLOCK_MONOTONIC");
  }
  CheckEveryTraceSummarized(first.directory(), records, result);
  std::vector<SummarySteps> summary_steps;
  for (const SummaryInput& input : inputs) {
    summary_steps.push_back({input.path, &input.header, &input.processes, input.global_index});
  }
  std::string steps_error;
  // Node summaries carry no cross-rank GPU time: it needs every rank's
  // kernel spans in one reader.
  Report report = FinishReport(
      first.directory(), std::move(time_source), records, stats, matcher.TakePending(), {},
      consistency, [&](const std::vector<ProcessReport>& processes) {
        StepsMerge steps = MergeSteps(summary_steps, processes);
        steps_error = std::move(steps.error);
        result.warnings.insert(result.warnings.end(), steps.warnings.begin(), steps.warnings.end());
        return std::move(steps.steps);
      });
  if (!steps_error.empty()) return Failure(steps_error, false);
  result.report = std::move(report);
  return result;
}

}  // namespace vprof::reporter
