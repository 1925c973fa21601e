// The options that change what a report finds in the traces, taken by both
// `vprof report DIR` and `vprof report --node-summary`: --step-pattern,
// --warmup and --phase-rules. A node summary records them (node_summary.proto
// Analysis), and a merge refuses summaries made with different ones.
#pragma once

#include <string>
#include <vector>

#include "reporter/base/arg_cursor.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/steps/step_options.h"

namespace vprof::reporter {

struct AnalysisOptions {
  StepOptions steps;
  std::vector<UserPhaseRule> phase_rules;  // --phase-rules FILE, loaded
  std::string phase_rules_file;            // that FILE, as given; empty: none
};

// Takes one of the options at the cursor (loading a --phase-rules file).
OptionUse TakeAnalysisOption(ArgCursor& arg, AnalysisOptions& options);

// After the last argument: false, having complained, when a step pattern is
// not a valid regular expression.
bool CheckAnalysisOptions(ArgCursor& arg, const AnalysisOptions& options);

// The options as arguments, for a `vprof report` run on another node
// (vprof-slurm --report): TakeAnalysisOption of them gives `options` back.
std::vector<std::string> AnalysisArguments(const AnalysisOptions& options);

}  // namespace vprof::reporter
