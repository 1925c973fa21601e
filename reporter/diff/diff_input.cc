#include "reporter/diff/diff_input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "reporter/base/safe_file.h"
#include "reporter/render/json_keys.h"
#include "reporter/render/json_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kExpected =
    "expected a run's trace directory or a JSON report (vprof report --format json)";

std::optional<std::string> ReportTextOfDirectory(const std::string& directory,
                                                 const StepOptions& steps, std::ostream& err) {
  const TraceFileList traces = ListTraceFiles(directory);
  if (!traces.error.empty()) {
    err << "vprof: diff: " << traces.error << '\n';
    return std::nullopt;
  }
  const Report report = BuildReport(directory, traces.paths, {}, steps);
  for (const ProcessReport& process : report.processes) {
    if (process.problem.empty()) continue;
    err << "vprof: diff: " << (std::filesystem::path(directory) / process.file).string() << ": "
        << process.problem << '\n';
  }
  std::ostringstream text;
  WriteJsonReport(report, text);
  return text.str();
}

std::optional<std::string> ReadFile(const std::string& path, std::ostream& err) {
  // A JSON report of thousands of ranks and steps runs to gigabytes; the
  // bound only keeps a mistaken path from filling memory.
  constexpr size_t kMaxReportBytes = size_t{16} << 30;
  RegularFileRead read = ReadNamedFile(path, kMaxReportBytes);
  if (!read.contents) {
    err << "vprof: diff: " << read.error << "; " << kExpected << '\n';
    return std::nullopt;
  }
  return std::move(*read.contents);
}

// The parsed report, if it is one this vprof reads.
std::optional<JsonNode> ParseReport(const std::string& path, const std::string& text,
                                    std::ostream& err) {
  JsonParse parse = ParseJson(text);
  if (!parse.value) {
    err << "vprof: diff: " << path << ": not JSON (" << parse.error << "); " << kExpected << '\n';
    return std::nullopt;
  }
  const JsonNode& report = *parse.value;
  const JsonNode* version = nullptr;
  if (report.type() == JsonNode::Type::kObject) {
    const auto found = report.object().find(std::string(json_keys::report::kReportVersion));
    if (found != report.object().end()) version = &found->second;
  }
  if (!version || !version->integer()) {
    err << "vprof: diff: " << path
        << ": not a vprof JSON report: expected an object with an integer 'report_version' "
           "(vprof report --format json)\n";
    return std::nullopt;
  }
  if (*version->integer() > kJsonReportVersion) {
    err << "vprof: diff: " << path << ": report_version " << *version->integer()
        << " is newer than this vprof reads (" << kJsonReportVersion
        << "); expected a report of version " << kJsonReportVersion << " or older\n";
    return std::nullopt;
  }
  return std::move(parse.value);
}

}  // namespace

std::optional<DiffInput> LoadDiffInput(const std::string& path, const StepOptions& steps,
                                       std::ostream& err) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    err << "vprof: diff: " << path << ": no such file or directory; " << kExpected << '\n';
    return std::nullopt;
  }
  const bool directory = std::filesystem::is_directory(status);
  const std::optional<std::string> text =
      directory ? ReportTextOfDirectory(path, steps, err) : ReadFile(path, err);
  if (!text) return std::nullopt;
  std::optional<JsonNode> report = ParseReport(path, *text, err);
  if (!report) return std::nullopt;
  return DiffInput{path, directory, std::move(*report)};
}

}  // namespace vprof::reporter
