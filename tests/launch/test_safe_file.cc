// Files in a run's folder (reporter/base/safe_file.h): private, never written
// through a link planted there, read only when regular and bounded.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "launch/output_folder.h"
#include "launch/run_manifest.h"
#include "reporter/base/safe_file.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using vprof::reporter::testing::ScratchDir;

namespace {

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

mode_t PermissionsOf(const std::string& path) {
  struct stat file {};
  REQUIRE(::stat(path.c_str(), &file) == 0);
  return file.st_mode & 07777;
}

}  // namespace

TEST_CASE("a file is written private and replaces the one there") {
  ScratchDir dir;
  const std::string path = dir.File("report.txt");
  Put(path, "old");
  ::chmod(path.c_str(), 0644);
  std::string error;
  REQUIRE(WriteFilePrivately(path, "new", &error));
  CHECK(Contents(path) == "new");
  CHECK(PermissionsOf(path) == 0600);
  // Nothing left beside it.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()),
                      std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("a link at the file's name is refused, naming it, and its target is untouched") {
  ScratchDir dir;
  const std::string target = dir.File("victim");
  Put(target, "precious");
  const std::string path = dir.File("report.txt");
  REQUIRE(::symlink(target.c_str(), path.c_str()) == 0);
  std::string error;
  CHECK_FALSE(WriteFilePrivately(path, "report", &error));
  CHECK(error.find(path) != std::string::npos);
  CHECK(error.find("symbolic link, not a regular file") != std::string::npos);
  CHECK(Contents(target) == "precious");
  CHECK(std::filesystem::is_symlink(path));
}

TEST_CASE("a link at the manifest's old temporary name is not written through") {
  ScratchDir dir;
  const std::string target = dir.File("victim");
  Put(target, "precious");
  const std::string path = dir.File(kManifestName);
  // The name the manifest was drafted under before: predictable by anyone.
  const std::string draft = path + ".draft." + std::to_string(::getpid());
  REQUIRE(::symlink(target.c_str(), draft.c_str()) == 0);
  Manifest manifest;
  manifest.run_id = "r1";
  std::string error;
  REQUIRE(WriteManifest(path, manifest, &error));
  CHECK(Contents(target) == "precious");
  CHECK(PermissionsOf(path) == 0600);
  CHECK(ReadManifestRunId(path, &error) == "r1");
}

TEST_CASE("a regular file is read; an absent one is no error") {
  ScratchDir dir;
  Put(dir.File("a"), "text");
  const RegularFileRead read = ReadRegularFile(dir.File("a"), 100);
  CHECK(read.contents == "text");
  const RegularFileRead absent = ReadRegularFile(dir.File("none"), 100);
  CHECK_FALSE(absent.contents);
  CHECK(absent.error.empty());
}

TEST_CASE("a FIFO is refused at once, naming it") {
  ScratchDir dir;
  const std::string path = dir.File(kManifestName);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  const RegularFileRead read = ReadRegularFile(path, 100);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_FALSE(read.contents);
  CHECK(read.error == path + " is a FIFO, not a regular file: remove it or choose another folder");
  // The folder is refused with the same words.
  CHECK(ClaimOutputFolder(dir.path(), "r1", false) == read.error);
}

TEST_CASE("a link to /dev/zero and a file past the bound are refused, not read") {
  ScratchDir dir;
  const std::string link = dir.File(kManifestName);
  REQUIRE(::symlink("/dev/zero", link.c_str()) == 0);
  const RegularFileRead read = ReadRegularFile(link, 100);
  CHECK_FALSE(read.contents);
  CHECK(read.error.find(link + " is a symbolic link") != std::string::npos);
  CHECK(ClaimOutputFolder(dir.path(), "r1", true) == read.error);  // --force does not read it

  Put(dir.File("big"), std::string(101, 'x'));
  const RegularFileRead big = ReadRegularFile(dir.File("big"), 100);
  CHECK_FALSE(big.contents);
  CHECK(big.error.find("101 bytes, more than the 100") != std::string::npos);
}

TEST_CASE("a file the user named: a link is followed, only a regular bounded file is read") {
  ScratchDir dir;
  Put(dir.File("rules"), "fwd = forward\n");
  const std::string link = dir.File("rules-link");
  REQUIRE(::symlink(dir.File("rules").c_str(), link.c_str()) == 0);
  CHECK(ReadNamedFile(link, 100).contents == "fwd = forward\n");

  const std::string fifo = dir.File("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  const RegularFileRead from_fifo = ReadNamedFile(fifo, 100);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_FALSE(from_fifo.contents);
  CHECK(from_fifo.error == fifo + " is a FIFO, not a regular file: name a regular file");

  const std::string zero = dir.File("zero");
  REQUIRE(::symlink("/dev/zero", zero.c_str()) == 0);
  const RegularFileRead from_zero = ReadNamedFile(zero, 100);
  CHECK_FALSE(from_zero.contents);
  CHECK(from_zero.error == zero + " is a device, not a regular file: name a regular file");

  const RegularFileRead missing = ReadNamedFile(dir.File("none"), 100);
  CHECK_FALSE(missing.contents);
  CHECK(missing.error == dir.File("none") + ": cannot read: No such file or directory");

  Put(dir.File("big"), std::string(101, 'x'));
  CHECK(ReadNamedFile(dir.File("big"), 100).error.find("101 bytes, more than the 100") !=
        std::string::npos);
}
