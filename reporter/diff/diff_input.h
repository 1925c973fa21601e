// One side of `vprof diff`: a run's trace directory, made into its JSON report
// in memory, or a JSON report file; either way the report as a JSON document,
// so both kinds are compared by one path.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reporter/base/json_node.h"
#include "reporter/steps/step_options.h"

namespace vprof::reporter {

struct DiffInput {
  std::string path;  // as given
  bool directory = false;
  JsonNode report;  // an object whose report_version this vprof reads
};

// Comparing JSON reports holds each one's parsed tree, and the text of the one
// being read: about kMemoryPerReportByte bytes of memory for each byte of the
// files, on top of the command's own kDiffBaseMemory (measured: 13 to 15.5
// bytes, and 13 MiB: docs/limits.md).
inline constexpr uint64_t kMemoryPerReportByte = 16;
inline constexpr uint64_t kDiffBaseMemory = uint64_t{128} << 20;

// Whether the JSON report files among `paths` (directories are made into
// reports as they are read, and not counted) leave room to be compared within
// this process's address-space limit (`ulimit -v`) and the machine's memory;
// false after one line on `err` naming the files, the memory and the limit.
// Nothing of the files is read.
bool ReportFilesFitInMemory(const std::vector<std::string>& paths, std::ostream& err);

// The input at `path`; none after one line on `err` naming the file and what
// was expected. `steps` is how a directory's report finds steps (a JSON
// report was made with its own). Traces of a directory that are not whole are named on `err`
// (the report says so too) and do not stop the diff.
std::optional<DiffInput> LoadDiffInput(const std::string& path, const StepOptions& steps,
                                       std::ostream& err);

}  // namespace vprof::reporter
