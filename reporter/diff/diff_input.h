// One side of `vprof diff`: a run's trace directory, made into its JSON report
// in memory, or a JSON report file; either way the report as a JSON document,
// so both kinds are compared by one path.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "reporter/base/json_node.h"
#include "reporter/steps/step_options.h"

namespace vprof::reporter {

struct DiffInput {
  std::string path;  // as given
  bool directory = false;
  JsonNode report;  // an object whose report_version this vprof reads
};

// The input at `path`; none after one line on `err` naming the file and what
// was expected. `steps` is how a directory's report finds steps (a JSON
// report was made with its own). Traces of a directory that are not whole are named on `err`
// (the report says so too) and do not stop the diff.
std::optional<DiffInput> LoadDiffInput(const std::string& path, const StepOptions& steps,
                                       std::ostream& err);

}  // namespace vprof::reporter
