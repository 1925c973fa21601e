#include "reporter/trace_directory.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "reporter/exit_status.h"
#include "reporter/run_identity.h"

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
  if (!list.error.empty()) {
    err << "vprof: " << list.error << '\n';
    *status = list.usage_error ? kExitUsage : kExitFailure;
    return std::nullopt;
  }
  std::vector<TraceIdentity> identities;
  for (const std::string& path : list.paths) {
    if (auto identity = ReadTraceIdentity(path)) identities.push_back(std::move(*identity));
  }
  const RunCheck check = CheckOneRun(identities);
  if (!check.mixed_runs.empty()) {
    // Collectives and ranks of two runs cannot be told apart in one report.
    err << "vprof: " << directory << ": the traces are of more than one run: " << check.mixed_runs
        << "; move each run's traces into a folder of its own\n";
    *status = kExitUsage;
    return std::nullopt;
  }
  for (const std::string& missing : check.missing_ranks) {
    err << "vprof: " << directory << ": ranks missing: " << missing
        << "; the report covers the traces present\n";
  }
  return std::move(list.paths);
}

}  // namespace vprof::reporter
