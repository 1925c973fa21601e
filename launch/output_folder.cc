#include "launch/output_folder.h"

#include <filesystem>
#include <optional>

#include "launch/run_manifest.h"

namespace vprof::reporter {
namespace {

std::string DescribeRun(const std::string& run_id) {
  if (run_id.starts_with(kSlurmRunPrefix)) {
    return "Slurm job " + run_id.substr(kSlurmRunPrefix.size());
  }
  return "run " + run_id;
}

}  // namespace

std::string ClaimOutputFolder(const std::string& directory, const std::string& run_id, bool force) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory)) {
    return "cannot create the folder " + directory + ": " + error.message();
  }
  std::string unreadable;
  const std::optional<std::string> owner =
      ReadManifestRunId((fs::path(directory) / kManifestName).string(), &unreadable);
  if (!unreadable.empty()) return unreadable;
  if (owner && *owner != run_id && !force) {
    return directory + " holds the traces of " + DescribeRun(*owner) + " (its " + kManifestName +
           "): choose another --output, remove it, or pass --force";
  }
  return "";
}

}  // namespace vprof::reporter
