#include "reporter/trace/trace_directory.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "reporter/base/exit_status.h"
#include "reporter/base/rank_bounds.h"
#include "reporter/base/safe_file.h"
#include "reporter/trace/run_identity.h"

namespace vprof::reporter {
namespace {

TraceFileList UsageError(const std::string& directory, const std::string& what) {
  return {
      {},
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
    if (path.extension() != ".vtrace") continue;
    // Traces are read only from regular files, never through a link (see
    // OpenRegularFile): anything else is named, not passed over in silence.
    std::string refusal = WhyNotRegular(path.string());
    if (refusal.empty()) {
      list.paths.push_back(path.string());
    } else {
      list.skipped.push_back(std::move(refusal));
    }
  }
  if (error) return {{}, {}, directory + ": cannot list: " + error.message(), false};
  std::sort(list.skipped.begin(), list.skipped.end());
  if (list.paths.empty()) {
    TraceFileList none = UsageError(directory, "no *.vtrace files");
    none.skipped = std::move(list.skipped);
    return none;
  }
  std::sort(list.paths.begin(), list.paths.end());
  return list;
}

std::optional<std::vector<std::string>> ListTraceFilesOrSay(const std::string& directory,
                                                            std::ostream& err, int* status) {
  TraceFileList list = ListTraceFiles(directory);
  for (const std::string& skipped : list.skipped) err << "vprof: " << skipped << "; skipped\n";
  if (!list.error.empty()) {
    err << "vprof: " << list.error << '\n';
    *status = list.usage_error ? kExitUsage : kExitFailure;
    return std::nullopt;
  }
  std::vector<TraceIdentity> identities;
  for (const std::string& path : list.paths) {
    auto identity = ReadTraceIdentity(path);
    if (!identity) continue;
    if (identity->ignored_world_size) {
      err << "vprof: " << path << ": field rank.world_size: expected at most " << kMostRanks
          << " ranks, got " << *identity->ignored_world_size << "; world size taken as unknown\n";
    }
    identities.push_back(std::move(*identity));
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
