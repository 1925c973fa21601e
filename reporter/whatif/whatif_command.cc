#include "reporter/whatif/whatif_command.h"

#include "reporter/base/exit_status.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/replay/step_replays.h"
#include "reporter/report/analysis_options.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "reporter/whatif/whatif_change.h"
#include "reporter/whatif/whatif_output.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kUsage =
    "usage: vprof whatif DIR [--faster PATTERN=FACTOR]... [--comm-faster FACTOR]\n"
    "                        [--no-straggler] [--no-host-gaps] [--rank-faster RANK=FACTOR]...\n"
    "                        [--format text|json] [--step-pattern REGEX] [--warmup N]\n"
    "                        [--phase-rules FILE]\n"
    "\n"
    "Replays the measured full steps of the run in DIR with a change and prints\n"
    "the step time it projects, what that saves, and what is then on the critical\n"
    "path. The replay runs the steps as a graph (launches, GPU work in stream\n"
    "order, synchronizations, collectives that end when their last member has\n"
    "arrived); its unchanged run is checked against the measured steps first,\n"
    "and no projection is given where it is off by more than 5%.\n"
    "\n"
    "  --faster PATTERN=FACTOR  GPU kernels and copies whose names match PATTERN\n"
    "                      ('*' any run of characters, case ignored, the whole\n"
    "                      name) FACTOR times faster, as 'gemm*=2x'; PATTERN=off\n"
    "                      removes them (repeatable)\n"
    "  --comm-faster FACTOR  every collective's transfer FACTOR times faster\n"
    "                      (the wait for its last member stays)\n"
    "  --no-straggler      the straggler the report names runs like the median rank\n"
    "  --no-host-gaps      launches at the GPU's pace, as a CUDA graph's\n"
    "                      (synchronizations stay)\n"
    "  --rank-faster RANK=FACTOR  every piece of work and host gap of RANK FACTOR\n"
    "                      times faster (repeatable)\n"
    "  --format FORMAT     text (default) or json\n"
    "  --step-pattern, --warmup, --phase-rules  as 'vprof report' finds steps\n"
    "\n"
    "exit status: 0 projected; 1 no projection (the reason is printed); 2 usage\n"
    "error (a rank the run has not, no straggler to remove)\n";

struct WhatifOptions {
  std::string directory;
  bool json = false;
  WhatifQuestion question;
  AnalysisOptions analysis;
};

std::optional<WhatifOptions> ParseWhatifOptions(const std::vector<std::string>& args,
                                                std::ostream& err) {
  WhatifOptions options;
  ArgCursor arg(args, "whatif", err);
  while (arg.Next()) {
    if (arg.name() == "--format") {
      const std::optional<std::string> format = arg.Value();
      if (!format) return std::nullopt;
      if (*format != "text" && *format != "json") {
        arg.Complain("--format '" + *format + "': expected text or json");
        return std::nullopt;
      }
      options.json = *format == "json";
      continue;
    }
    const OptionUse question = TakeWhatifOption(arg, options.question);
    if (question == OptionUse::kBad) return std::nullopt;
    if (question == OptionUse::kTaken) continue;
    const OptionUse analysis = TakeAnalysisOption(arg, options.analysis);
    if (analysis == OptionUse::kBad) return std::nullopt;
    if (analysis == OptionUse::kTaken) continue;
    if (!arg.TakeDirectory(options.directory)) return std::nullopt;
  }
  if (options.directory.empty()) {
    arg.Complain("missing DIR, the directory of *.vtrace files (see 'vprof help whatif')");
    return std::nullopt;
  }
  if (options.question.empty()) {
    arg.Complain(
        "no change asked: give --faster, --comm-faster, --no-straggler, --no-host-gaps or "
        "--rank-faster (see 'vprof help whatif')");
    return std::nullopt;
  }
  if (!CheckAnalysisOptions(arg, options.analysis)) return std::nullopt;
  return options;
}

}  // namespace

std::string WhatifUsage() { return std::string(kUsage); }

int RunWhatifCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::optional<WhatifOptions> options = ParseWhatifOptions(args, err);
  if (!options) return kExitUsage;
  int status = kExitOk;
  const auto paths = ListTraceFilesOrSay(options->directory, err, &status);
  if (!paths) return status;
  const PhaseRulesScope phase_rules(options->analysis.phase_rules);
  const Report report = BuildReport(options->directory, *paths, {}, options->analysis.steps);
  WhatifAnswer answer;
  answer.directory = options->directory;
  std::string error;
  const std::optional<ReplayChange> change =
      WhatifChange(options->question, report, error, answer.notes);
  if (!change) {
    err << "vprof: whatif: " << error << '\n';
    return kExitUsage;
  }
  answer.change = change->description;
  if (!report.steps || report.steps->full_steps.empty()) {
    answer.withheld = "no full steps measured across the ranks";
  } else {
    const StepReplays replays(*report.steps);
    answer.check = replays.check();
    answer.projection = replays.Project(*change, answer.withheld);
  }
  if (options->json) {
    WriteWhatifJson(answer, out);
  } else {
    WriteWhatifText(answer, out);
  }
  return answer.projection ? kExitOk : kExitFailure;
}

}  // namespace vprof::reporter
