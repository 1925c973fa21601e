// Where the launchers find libvprof.so.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "launch/library_locator.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using vprof::reporter::testing::ScratchDir;

namespace {

std::string Touch(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "";
  return path;
}

}  // namespace

TEST_CASE("beside the vprof executable: build tree, then install prefix, then its own folder") {
  unsetenv("VPROF_LIBRARY");
  ScratchDir dir;
  const std::string built = Touch(dir.File("build/interpose/libvprof.so"));
  CHECK(LocateLibrary(std::nullopt, dir.File("build/reporter/vprof")).path == built);
  const std::string installed = Touch(dir.File("prefix/lib/libvprof.so"));
  CHECK(LocateLibrary(std::nullopt, dir.File("prefix/bin/vprof")).path == installed);
  const std::string copied = Touch(dir.File("tools/libvprof.so"));
  CHECK(LocateLibrary(std::nullopt, dir.File("tools/vprof")).path == copied);
}

TEST_CASE("none found: the error names every path tried") {
  unsetenv("VPROF_LIBRARY");
  ScratchDir dir;
  const LibraryLocation none = LocateLibrary(std::nullopt, dir.File("x/bin/vprof"));
  CHECK(none.path.empty());
  CHECK(none.error.find(dir.File("x/interpose/libvprof.so")) != std::string::npos);
  CHECK(none.error.find(dir.File("x/lib/libvprof.so")) != std::string::npos);
  CHECK(none.error.find(dir.File("x/bin/libvprof.so")) != std::string::npos);
}

TEST_CASE("--library, then VPROF_LIBRARY, win and must exist") {
  ScratchDir dir;
  Touch(dir.File("build/interpose/libvprof.so"));
  const std::string chosen = Touch(dir.File("mine/libvprof.so"));
  setenv("VPROF_LIBRARY", chosen.c_str(), 1);
  CHECK(LocateLibrary(std::nullopt, dir.File("build/reporter/vprof")).path == chosen);
  const LibraryLocation missing =
      LocateLibrary(dir.File("nope.so"), dir.File("build/reporter/vprof"));
  CHECK(missing.path.empty());
  CHECK(missing.error.find("--library names " + dir.File("nope.so")) != std::string::npos);
  setenv("VPROF_LIBRARY", dir.File("gone.so").c_str(), 1);
  CHECK(LocateLibrary(std::nullopt, dir.File("build/reporter/vprof")).error.find("VPROF_LIBRARY") !=
        std::string::npos);
  unsetenv("VPROF_LIBRARY");
}
