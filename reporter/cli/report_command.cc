#include "reporter/cli/report_command.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>

#include "reporter/base/arg_cursor.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/jobs_option.h"
#include "reporter/candidates/audit_links.h"
#include "reporter/cli/progress_line.h"
#include "reporter/consistency/run_contract.h"
#include "reporter/drift/alignment_check.h"
#include "reporter/export/step_timeline_spans.h"
#include "reporter/node_summary/summary_commands.h"
#include "reporter/output/report_output.h"
#include "reporter/report/analysis_options.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kReportUsage =
    "usage: vprof report DIR [--format text|json|markdown|html] [-o FILE] [--strict]\n"
    "                        [--contract FILE] [--audit FILE] [--step-pattern REGEX]\n"
    "                        [--warmup N] [--phase-rules FILE] [--brief]\n"
    "                        [--sections LIST] [-j|--jobs N] [-q|--quiet]\n"
    "       vprof report --node-summary OUT [--host NAME] [--clock monotonic|realtime]\n"
    "                    [--step-pattern REGEX] [--warmup N] [--phase-rules FILE]\n"
    "                    [-j|--jobs N] DIR\n"
    "       vprof report --merge-summaries [--format text|json] [-o FILE] SUMMARY...\n"
    "\n"
    "Reads every *.vtrace file directly in DIR (one per traced process), matches\n"
    "each collective across ranks and reports, per communicator, op and message\n"
    "size: count, time, algbw/busbw as nccl-tests defines them, arrival skew and\n"
    "the rank that arrived last; then per-rank lateness and per-process trace health.\n"
    "\n"
    "  --format FORMAT     text for people (default), json (keys: reporter/README.md),\n"
    "                      markdown, or html (one self-contained page with charts)\n"
    "  -o, --output FILE   write the report to FILE instead of standard output ('-':\n"
    "                      standard output)\n"
    "  --contract FILE     hold the run to a run contract (JSON: consistency mode,\n"
    "                      NCCL algorithms, protocols, channels, custom all-reduce,\n"
    "                      fallback axes; format in reporter/README.md)\n"
    "  --audit FILE        link each fast-path candidate to the operators vime's\n"
    "                      consistency audit (JSON: result cube or drift report,\n"
    "                      or an array of them) shows its change touches, and flag\n"
    "                      the ones whose operator drifted (format in\n"
    "                      reporter/README.md; a bad FILE exits 2)\n"
    "  --strict            strict consistency: exit 4 on any undeclared difference\n"
    "                      between what the run requested (NCCL_* settings, the\n"
    "                      contract) and what NCCL's profiler plugin and the kernels\n"
    "                      show it ran, or when they show nothing (fail closed)\n"
    "  --step-pattern REGEX  an NVTX range whose name matches REGEX is one step\n"
    "                      (repeatable; default: reporter/README.md, \"Steps\"); without\n"
    "                      such ranges, steps end at bursts of optimizer kernels\n"
    "  --warmup N          leave the first N steps out of every figure (default 1)\n"
    "  --phase-rules FILE  more NVTX name -> phase rules, one 'pattern = phase' a line\n"
    "                      (format in reporter/README.md, \"Phases\"; a bad FILE exits 2)\n"
    "  --brief             text: the Summary and the candidates only\n"
    "  --sections LIST     text: only these sections, of summary, run, processes,\n"
    "                      communicators, ranks, gpu, consistency, phases, steps,\n"
    "                      candidates (comma-separated)\n"
    "  -j, --jobs N        read the traces and replay the steps on N threads, also\n"
    "                      with --node-summary (default: the CPUs available; the\n"
    "                      report is the same for any N)\n"
    "  -q, --quiet         no progress line (on a terminal, a run that takes over a\n"
    "                      second to read shows one on standard error: traces read,\n"
    "                      bytes, time left)\n"
    "\n"
    "Node by node, for jobs too large for one reader: --node-summary writes the\n"
    "summary of the traces one host wrote (NAME, default this host) to OUT (a file,\n"
    "or a directory that receives NAME.vsummary), on CLOCK_REALTIME (default; what\n"
    "traces of several hosts need) or each host's CLOCK_MONOTONIC (one host), with\n"
    "the steps and phases --step-pattern, --warmup and --phase-rules say (recorded in\n"
    "the summary: summaries made with different ones are not merged);\n"
    "--merge-summaries merges them (files, or directories of *.vsummary) into the\n"
    "report 'vprof report DIR' gives. 'vprof slurm --report' does both in a Slurm job.\n"
    "\n"
    "exit status: 0 all traces whole; 1 failure; 2 usage error (a bad contract file\n"
    "too); 3 report (or summary) written but some trace was cut, corrupt, skipped or\n"
    "in no summary (each is named on standard error); 4 report written, but a strict\n"
    "run differs from what it requested or declared (before 3)\n";

struct ReportOptions {
  std::string directory;
  ReportOutput output;
  bool strict = false;
  bool quiet = false;  // no progress line
  unsigned jobs = AvailableCpus();
  std::optional<std::string> contract_file;
  std::optional<std::string> audit_file;
  AnalysisOptions analysis;  // --step-pattern, --warmup, --phase-rules
};

// Parses `report`'s arguments; nullopt after printing why to `err`.
std::optional<ReportOptions> ParseReportOptions(const std::vector<std::string>& args,
                                                std::ostream& err) {
  ReportOptions options;
  ArgCursor arg(args, "report", err);
  while (arg.Next()) {
    const OptionUse use = TakeOutputOption(arg, options.output);
    if (use == OptionUse::kBad) return std::nullopt;
    if (use == OptionUse::kTaken) continue;
    if (arg.name() == "--strict") {
      options.strict = true;
      continue;
    }
    if (arg.name() == "--quiet" || arg.name() == "-q") {
      options.quiet = true;
      continue;
    }
    if (arg.name() == "--contract") {
      options.contract_file = arg.Value();
      if (!options.contract_file) return std::nullopt;
      continue;
    }
    if (arg.name() == "--audit") {
      options.audit_file = arg.Value();
      if (!options.audit_file) return std::nullopt;
      continue;
    }
    const OptionUse jobs = TakeJobsOption(arg, options.jobs);
    if (jobs == OptionUse::kBad) return std::nullopt;
    if (jobs == OptionUse::kTaken) continue;
    const OptionUse analysis = TakeAnalysisOption(arg, options.analysis);
    if (analysis == OptionUse::kBad) return std::nullopt;
    if (analysis == OptionUse::kTaken) continue;
    if (!arg.TakeDirectory(options.directory)) return std::nullopt;
  }
  if (options.directory.empty()) {
    arg.Complain("missing DIR, the directory of *.vtrace files (see 'vprof help report')");
    return std::nullopt;
  }
  if (!CheckAnalysisOptions(arg, options.analysis)) return std::nullopt;
  if (!CheckOutputOptions(arg, options.output)) return std::nullopt;
  return options;
}

// The traces' size: what the progress line counts down.
uint64_t TotalBytes(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const std::string& path : paths) {
    std::error_code error;
    const uintmax_t size = std::filesystem::file_size(path, error);
    if (!error) total += size;
  }
  return total;
}

// Whether `args` hold the option `name`, as "--name" or "--name=value".
bool HasOption(const std::vector<std::string>& args, std::string_view name) {
  return std::any_of(args.begin(), args.end(), [&](std::string_view arg) {
    return arg == name || (arg.starts_with(name) && arg.substr(name.size()).starts_with("="));
  });
}

}  // namespace

std::string ReportUsage() { return std::string(kReportUsage); }

int RunReportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (HasOption(args, "--help") || HasOption(args, "-h")) {
    out << kReportUsage;
    return kExitOk;
  }
  if (HasOption(args, kNodeSummaryOption)) return RunNodeSummaryCommand(args, err);
  if (HasOption(args, kMergeSummariesOption)) return RunMergeSummariesCommand(args, out, err);
  const std::optional<ReportOptions> options = ParseReportOptions(args, err);
  if (!options) return kExitUsage;
  ConsistencyOptions consistency;
  consistency.strict = options->strict;
  if (options->contract_file) {
    RunContractLoad load = LoadRunContract(*options->contract_file);
    if (!load.contract) {
      err << "vprof: report: bad contract: " << load.error << '\n';
      return kExitUsage;
    }
    consistency.contract = std::move(load.contract);
  }
  std::optional<VimeAudit> audit;
  if (options->audit_file) {
    VimeAuditLoad load = LoadVimeAudit(*options->audit_file);
    if (!load.audit) {
      err << "vprof: report: bad audit: " << load.error << '\n';
      return kExitUsage;
    }
    audit = std::move(load.audit);
  }
  int status = kExitOk;
  const auto paths = ListTraceFilesOrSay(options->directory, err, &status);
  if (!paths) return status;
  const PhaseRulesScope phase_rules(options->analysis.phase_rules);
  // On the terminal this process writes its errors to, never into a file or a pipe.
  const bool show_progress = &err == &std::cerr && isatty(STDERR_FILENO) && !options->quiet;
  ProgressLine progress(err, show_progress, show_progress ? TotalBytes(*paths) : 0);
  Report report = BuildReport(
      options->directory, *paths, consistency, options->analysis.steps,
      [&progress](const MergeProgress& read) { progress.Reading(read); }, options->jobs);
  progress.Analyzing();
  if (audit) LinkAudit(*audit, report.candidates);
  // Only the HTML page draws a step span by span: a second pass over the traces of the ranks it
  // draws, which the other formats need not pay for.
  if (options->output.format == ReportFormat::kHtml) {
    report.step_timeline = CollectStepTimeline(report, *paths);
  }
  progress.Erase();
  status = EmitReport(report, options->output, out, err);
  if (status == kExitFailure) return status;
  bool strict_failed = report.strict_failed();
  if (strict_failed) SayStrictFailure(report, err);
  // A declared alignment profile is held against the fingerprints under strict consistency.
  const bool strict =
      options->strict ||
      (consistency.contract && consistency.contract->consistency == ConsistencyMode::kStrict);
  if (strict && consistency.contract && consistency.contract->alignment) {
    if (const auto violation =
            AlignmentViolation(options->directory, *consistency.contract->alignment)) {
      err << "vprof: strict: " << *violation << '\n';
      strict_failed = true;
    }
  }
  return strict_failed ? kExitStrictViolation : status;
}

}  // namespace vprof::reporter
