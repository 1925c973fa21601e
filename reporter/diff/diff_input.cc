#include "reporter/diff/diff_input.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "reporter/base/safe_file.h"
#include "reporter/base/units.h"
#include "reporter/render/json/json_keys.h"
#include "reporter/render/json/json_page.h"
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

// The memory this process may take: its address-space limit (`ulimit -v`)
// and the machine's memory, whichever is less; none when neither is known.
struct MemoryLimit {
  uint64_t bytes = 0;
  std::string_view what;
};
std::optional<MemoryLimit> MemoryLimitOfProcess() {
  std::optional<MemoryLimit> limit;
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    limit = MemoryLimit{address_space.rlim_cur, "this process's address-space limit (ulimit -v)"};
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0) {
    const uint64_t memory = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_bytes);
    if (!limit || memory < limit->bytes) limit = MemoryLimit{memory, "this machine's memory"};
  }
  return limit;
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

bool ReportFilesFitInMemory(const std::vector<std::string>& paths, std::ostream& err) {
  std::string files;
  uint64_t bytes = 0;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) continue;
    const uint64_t size = std::filesystem::file_size(path, error);
    if (error) continue;
    files += (files.empty() ? "" : ", ") + path + " (" + FormatBytes(size) + ")";
    bytes += size;
  }
  const std::optional<MemoryLimit> limit = MemoryLimitOfProcess();
  const uint64_t needed = kDiffBaseMemory + bytes * kMemoryPerReportByte;
  if (bytes == 0 || !limit || needed <= limit->bytes) return true;
  err << "vprof: diff: " << files << ": JSON reports take about " << FormatBytes(needed)
      << " of memory to compare, more than " << limit->what << " of " << FormatBytes(limit->bytes)
      << "; not read\n";
  return false;
}

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
