// Test helper: the report of a folder of traces, and its text form.
#pragma once

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter::testing {

inline Report ReportOf(const std::string& directory) {
  const TraceFileList traces = ListTraceFiles(directory);
  REQUIRE(traces.error.empty());
  return BuildReport(directory, traces.paths);
}

inline std::string TextOf(const Report& report) {
  std::ostringstream out;
  WriteTextReport(report, out);
  return out.str();
}

}  // namespace vprof::reporter::testing
