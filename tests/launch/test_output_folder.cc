// A run's folder: claimed by its manifest, refused to another run.
#include <catch2/catch.hpp>
#include <filesystem>

#include "launch/output_folder.h"
#include "launch/run_manifest.h"
#include "reporter/base/utc_time.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using vprof::reporter::testing::ScratchDir;

namespace {

void WriteOwner(const std::string& folder, const std::string& run_id) {
  Manifest manifest;
  manifest.run_id = run_id;
  std::string error;
  REQUIRE(WriteManifest(folder + "/" + kManifestName, manifest, &error));
}

}  // namespace

TEST_CASE("a new folder is made, with its parents") {
  ScratchDir dir;
  const std::string folder = dir.File("a/b/run");
  CHECK(ClaimOutputFolder(folder, "r1", false).empty());
  CHECK(std::filesystem::is_directory(folder));
}

TEST_CASE("a folder of another Slurm job is refused, naming it and the job") {
  ScratchDir dir;
  WriteOwner(dir.path(), "slurm-41");
  std::string error;
  CHECK(ReadManifestRunId(dir.File(kManifestName), &error) == "slurm-41");
  CHECK(error.empty());
  const std::string refused = ClaimOutputFolder(dir.path(), "slurm-42", false);
  CHECK(refused.find(dir.path()) != std::string::npos);
  CHECK(refused.find("Slurm job 41") != std::string::npos);
  CHECK(refused.find("--force") != std::string::npos);
  CHECK(ClaimOutputFolder(dir.path(), "slurm-42", true).empty());
  CHECK(ClaimOutputFolder(dir.path(), "slurm-41", false).empty());  // the same job again
}

TEST_CASE("a folder of another vprof run is refused") {
  ScratchDir dir;
  WriteOwner(dir.path(), "20261130T054001Z-3fa2");
  CHECK(ClaimOutputFolder(dir.path(), "20261130T060000Z-0001", false)
            .find("run 20261130T054001Z-3fa2") != std::string::npos);
}

TEST_CASE("run ids sort by time and differ within a second") {
  const auto now = std::chrono::system_clock::now();
  const std::string a = NewRunId(now), b = NewRunId(now);
  CHECK(a.size() == std::string("20261130T054001Z-3fa2").size());
  CHECK(a.substr(0, 16) == b.substr(0, 16));
  CHECK(IsoUtc(now).ends_with("Z"));
}
