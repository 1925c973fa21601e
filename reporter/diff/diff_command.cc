#include "reporter/diff/diff_command.h"

#include <optional>

#include "reporter/base/arg_cursor.h"
#include "reporter/base/exit_status.h"
#include "reporter/diff/compare_reports.h"
#include "reporter/diff/diff_input.h"
#include "reporter/diff/diff_json.h"
#include "reporter/diff/diff_text.h"
#include "reporter/diff/diff_verdict.h"
#include "reporter/drift/bitwise_output.h"

namespace vprof::reporter {
namespace {

struct DiffOptions {
  std::vector<std::string> inputs;  // A and B
  bool json = false;
  bool bitwise = false;  // the runs' collective fingerprints, not their reports
  StepOptions steps;     // for trace directories, as `vprof report` takes them
};

std::optional<DiffOptions> ParseDiffOptions(const std::vector<std::string>& args,
                                            std::ostream& err) {
  DiffOptions options;
  ArgCursor arg(args, "diff", err);
  while (arg.Next()) {
    if (arg.name() == "--format") {
      const std::optional<std::string> format = arg.Value();
      if (!format) return std::nullopt;
      if (*format != "text" && *format != "json") {
        arg.Complain("bad --format '" + *format + "': expected text or json");
        return std::nullopt;
      }
      options.json = *format == "json";
      continue;
    }
    if (arg.name() == "--bitwise") {
      options.bitwise = true;
      continue;
    }
    if (arg.name() == "--step-pattern") {
      const std::optional<std::string> pattern = arg.Value();
      if (!pattern) return std::nullopt;
      options.steps.patterns.push_back(*pattern);
      continue;
    }
    if (arg.name() == "--warmup") {
      const std::optional<uint32_t> warmup = arg.CountValue();
      if (!warmup) return std::nullopt;
      options.steps.warmup_steps = *warmup;
      continue;
    }
    if (arg.is_option()) {
      arg.ComplainUnknown();
      return std::nullopt;
    }
    options.inputs.emplace_back(arg.name());
  }
  if (options.inputs.size() != 2) {
    arg.Complain("expected two runs, A and B, got " + std::to_string(options.inputs.size()) +
                 " (see 'vprof help diff')");
    return std::nullopt;
  }
  return options;
}

bool AllInputsWhole(const JsonNode& report) {
  const auto found = report.object().find("all_inputs_whole");
  return found == report.object().end() || found->second.type() != JsonNode::Type::kBool ||
         found->second.boolean();
}

}  // namespace

std::string DiffUsage() {
  return "usage: vprof diff A B [--format text|json] [--step-pattern REGEX] [--warmup N]\n"
         "       vprof diff --bitwise A B [--format text|json]\n"
         "\n"
         "Compares two runs side by side, with the change B - A and the relative change.\n"
         "A and B are each a run's trace directory (its report is made as 'vprof report'\n"
         "makes it) or a JSON report 'vprof report --format json' wrote. Compared: phases\n"
         "(NVTX), steps (median step, time per rank), fast-path candidates by kind,\n"
         "communication (op rows of the communicators of one size, by op and size bucket:\n"
         "count, mean time, bandwidth, arrival skew, the rank most often last), arrival\n"
         "per rank, GPU kernel classes per rank, and provenance (inputs whole, requested\n"
         "and actual fingerprints, strict verdict). A section or item one run lacks is\n"
         "shown as 'only in A' or 'only in B'.\n"
         "\n"
         "--bitwise compares the collective fingerprints of two run directories recorded\n"
         "with VPROF_AUDIT=fingerprint: the first call whose input or output differs on any\n"
         "rank, its class (reduction: inputs agree, outputs differ; upstream: inputs differ;\n"
         "representation: the dtype differs; metadata: counts, ops, roots or the calls made\n"
         "differ), the last call that agreed, the recorded settings that differ (and apart,\n"
         "those one run only recorded), and why it drifted: the kernels each run launched\n"
         "since the last call that agreed, the first that differ, and their likely cause.\n"
         "\n"
         "  --format FORMAT     text for people (default), or json\n"
         "  --step-pattern REGEX, --warmup N\n"
         "                      how the reports of trace directories find steps, as for\n"
         "                      'vprof report' (a JSON report keeps the steps it was made with)\n"
         "\n"
         "exit status: 0 compared; 1 the comparison could not be written; 2 usage error, or\n"
         "an input that is not a trace directory or a JSON report this vprof reads (named\n"
         "on standard error); 3 compared, but some trace of A or B was cut, corrupt or\n"
         "skipped (its report says all_inputs_whole false)\n";
}

int RunDiffCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      out << DiffUsage();
      return kExitOk;
    }
  }
  const std::optional<DiffOptions> options = ParseDiffOptions(args, err);
  if (!options) return kExitUsage;
  if (options->bitwise) {
    return RunBitwiseDiff(options->inputs[0], options->inputs[1], options->json, out, err);
  }
  if (!ReportFilesFitInMemory(options->inputs, err)) return kExitUsage;
  std::optional<DiffInput> a = LoadDiffInput(options->inputs[0], options->steps, err);
  if (!a) return kExitUsage;
  std::optional<DiffInput> b = LoadDiffInput(options->inputs[1], options->steps, err);
  if (!b) return kExitUsage;
  RunDiff diff{{a->path, a->directory, AllInputsWhole(a->report)},
               {b->path, b->directory, AllInputsWhole(b->report)},
               CompareReports(a->report, b->report),
               ""};
  diff.verdict = DiffVerdict(diff.sections);
  if (options->json) {
    WriteDiffJson(diff, out);
  } else {
    WriteDiffText(diff, out);
  }
  if (!out.flush()) {
    err << "vprof: diff: cannot write to standard output\n";
    return kExitFailure;
  }
  return diff.a.all_inputs_whole && diff.b.all_inputs_whole ? kExitOk : kExitInputNotWhole;
}

}  // namespace vprof::reporter
