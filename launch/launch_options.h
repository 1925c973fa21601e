// The options `vprof run` and `vprof slurm` share: where the run's folder is,
// the VPROF_* settings each option stands for (docs/settings.md),
// which libvprof.so to use, and what to do after the command.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/output/report_output.h"
#include "reporter/report/analysis_options.h"

namespace vprof::reporter {

struct LaunchOptions {
  std::optional<std::string> output;                 // --output DIR
  std::map<std::string, std::string> settings;       // VPROF_* variable → value, from the options
  std::optional<std::string> library;                // --library PATH
  bool report = false;                               // --report
  ReportFormat report_format = ReportFormat::kText;  // --report-format
  AnalysisOptions report_analysis;   // --step-pattern, --warmup, --phase-rules (for --report)
  bool force = false;                // --force
  std::vector<std::string> command;  // after "--" (or from the first non-option on)
};

// The options' help lines, for the commands' usage texts.
extern const std::string_view kLaunchOptionsHelp;

// Parses `args`; none after saying why on `err` as "vprof: <command>: ...".
// Values are checked as libvprof checks the variables, so a bad one is caught
// before the command starts rather than turning profiling off in every process.
std::optional<LaunchOptions> ParseLaunchOptions(const std::vector<std::string>& args,
                                                std::string_view command, std::ostream& err);

}  // namespace vprof::reporter
