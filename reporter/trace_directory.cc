#include "reporter/trace_directory.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "reporter/exit_status.h"

namespace vprof::reporter {
namespace {

TraceFileList UsageError(const std::string& directory, const std::string& what) {
  return {
      {},
      directory + ": " + what + " (expected a directory holding the *.vtrace files of a vprof run)",
      true};
}

}  // namespace

TraceFileList ListTraceFiles(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(directory, error);
  if (!fs::exists(status)) return UsageError(directory, "no such directory");
  if (!fs::is_directory(status)) return UsageError(directory, "not a directory");

  TraceFileList list;
  fs::directory_iterator entries(directory, error);
  for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
    const fs::path& path = entries->path();
    std::error_code type_error;  // a dangling link is skipped, not a listing failure
    if (path.extension() == ".vtrace" && entries->is_regular_file(type_error)) {
      list.paths.push_back(path.string());
    }
  }
  if (error) return {{}, directory + ": cannot list: " + error.message(), false};
  if (list.paths.empty()) return UsageError(directory, "no *.vtrace files");
  std::sort(list.paths.begin(), list.paths.end());
  return list;
}

std::optional<std::vector<std::string>> ListTraceFilesOrSay(const std::string& directory,
                                                            std::ostream& err, int* status) {
  TraceFileList list = ListTraceFiles(directory);
  if (list.error.empty()) return std::move(list.paths);
  err << "vprof: " << list.error << '\n';
  *status = list.usage_error ? kExitUsage : kExitFailure;
  return std::nullopt;
}

}  // namespace vprof::reporter
