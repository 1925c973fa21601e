#include "reporter/node_summary/summary_commands.h"

#include <filesystem>
#include <optional>

#include "reporter/base/arg_cursor.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/host_name.h"
#include "reporter/base/jobs_option.h"
#include "reporter/consistency/provenance.h"
#include "reporter/consistency/run_contract.h"
#include "reporter/node_summary/node_summary.h"
#include "reporter/node_summary/summary_file.h"
#include "reporter/node_summary/summary_merge.h"
#include "reporter/output/report_output.h"
#include "reporter/report/analysis_options.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

struct NodeSummaryOptions {
  std::string out;
  std::string host;
  // Realtime unless told otherwise: summaries of several hosts need it, and
  // one host's traces can only be told to need less by whoever knows the job.
  ClockChoice clock = ClockChoice::kRealtime;
  std::string directory;
  AnalysisOptions analysis;  // --step-pattern, --warmup, --phase-rules
  unsigned jobs = AvailableCpus();
};

std::optional<NodeSummaryOptions> ParseNodeSummaryOptions(const std::vector<std::string>& args,
                                                          std::ostream& err) {
  NodeSummaryOptions options{"", HostName(), ClockChoice::kRealtime, "", {}};
  ArgCursor arg(args, "report", err);
  while (arg.Next()) {
    const OptionUse jobs = TakeJobsOption(arg, options.jobs);
    if (jobs == OptionUse::kBad) return std::nullopt;
    if (jobs == OptionUse::kTaken) continue;
    const OptionUse analysis = TakeAnalysisOption(arg, options.analysis);
    if (analysis == OptionUse::kBad) return std::nullopt;
    if (analysis == OptionUse::kTaken) continue;
    std::optional<std::string> value;
    if (arg.name() == kNodeSummaryOption || arg.name() == "--host" || arg.name() == "--clock") {
      value = arg.Value();
      if (!value) return std::nullopt;
    }
    if (arg.name() == kNodeSummaryOption) {
      options.out = *value;
    } else if (arg.name() == "--host") {
      options.host = *value;
    } else if (arg.name() == "--clock") {
      if (*value != "monotonic" && *value != "realtime") {
        arg.Complain("--clock must be monotonic or realtime, not '" + *value + "'");
        return std::nullopt;
      }
      options.clock = *value == "realtime" ? ClockChoice::kRealtime : ClockChoice::kMonotonic;
    } else if (!arg.TakeDirectory(options.directory)) {
      return std::nullopt;
    }
  }
  if (options.out.empty() || options.directory.empty()) {
    arg.Complain(
        "--node-summary needs OUT, where to write, and DIR, the directory of *.vtrace "
        "files");
    return std::nullopt;
  }
  if (!CheckAnalysisOptions(arg, options.analysis)) return std::nullopt;
  // An existing directory receives <host>.vsummary, the way cp treats one.
  if (std::filesystem::is_directory(options.out)) {
    options.out =
        (std::filesystem::path(options.out) / (options.host + std::string(kSummaryExtension)))
            .string();
  }
  return options;
}

// Files as given, and every *.vsummary directly in each directory given.
std::optional<std::vector<std::string>> ListSummaries(const std::vector<std::string>& inputs,
                                                      ArgCursor& arg) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) {
      const std::vector<std::string> found = ListSummaryFiles(input);
      if (found.empty()) {
        arg.Complain(input + ": no *" + std::string(kSummaryExtension) + " files");
        return std::nullopt;
      }
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(input, error)) {
      files.push_back(input);
    } else {
      arg.Complain(input + ": no such file or directory");
      return std::nullopt;
    }
  }
  return files;
}

}  // namespace

int RunNodeSummaryCommand(const std::vector<std::string>& args, std::ostream& err) {
  const std::optional<NodeSummaryOptions> options = ParseNodeSummaryOptions(args, err);
  if (!options) return kExitUsage;
  int status = kExitOk;
  const auto traces = ListTraceFilesOrSay(options->directory, err, &status);
  if (!traces) return status;
  const std::vector<std::string> paths = TracesOfHost(*traces, options->host);
  if (paths.empty()) {
    err << "vprof: no traces of host " << options->host << " in " << options->directory
        << "; the summary is empty\n";
  }
  const NodeSummaryResult result =
      WriteNodeSummary(options->directory, options->host, paths, options->clock, options->analysis,
                       options->out, options->jobs);
  for (const std::string& problem : result.problems) err << "vprof: " << problem << '\n';
  if (!result.error.empty()) {
    err << "vprof: " << result.error << '\n';
    return kExitFailure;
  }
  return result.all_whole ? kExitOk : kExitInputNotWhole;
}

int RunMergeSummariesCommand(const std::vector<std::string>& args, std::ostream& out,
                             std::ostream& err) {
  ReportOutput output;
  ConsistencyOptions consistency;
  std::vector<std::string> inputs;
  ArgCursor arg(args, "report", err);
  while (arg.Next()) {
    if (arg.name() == kMergeSummariesOption) continue;
    const OptionUse use = TakeOutputOption(arg, output);
    if (use == OptionUse::kBad) return kExitUsage;
    if (use == OptionUse::kTaken) continue;
    if (arg.name() == "--strict") {
      consistency.strict = true;
      continue;
    }
    if (arg.name() == "--contract") {
      const std::optional<std::string> file = arg.Value();
      if (!file) return kExitUsage;
      RunContractLoad load = LoadRunContract(*file);
      if (!load.contract) {
        err << "vprof: report: bad contract: " << load.error << '\n';
        return kExitUsage;
      }
      consistency.contract = std::move(load.contract);
      continue;
    }
    if (arg.is_option()) {
      arg.ComplainUnknown();
      return kExitUsage;
    }
    inputs.emplace_back(arg.name());
  }
  if (inputs.empty()) {
    arg.Complain("--merge-summaries needs the summaries: files, or directories of them");
    return kExitUsage;
  }
  if (!CheckOutputOptions(arg, output)) return kExitUsage;
  const std::optional<std::vector<std::string>> files = ListSummaries(inputs, arg);
  if (!files) return kExitUsage;

  const MergeResult merged = MergeSummaries(*files, consistency);
  if (!merged.report) {
    err << "vprof: " << merged.error << '\n';
    return merged.usage_error ? kExitUsage : kExitFailure;
  }
  for (const std::string& warning : merged.warnings) err << "vprof: " << warning << '\n';
  const int status = EmitReport(*merged.report, output, out, err);
  if (status == kExitFailure) return status;
  // As for `vprof report DIR`: a strict violation goes before traces cut or missing.
  if (merged.report->strict_failed()) {
    SayStrictFailure(*merged.report, err);
    return kExitStrictViolation;
  }
  return status == kExitOk && merged.traces_missing ? kExitInputNotWhole : status;
}

}  // namespace vprof::reporter
