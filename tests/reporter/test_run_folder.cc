// What a run's folder may hold besides its traces: traces of a second run of
// another world size are refused, naming both files; *.vtrace entries that
// are no regular file are named and skipped, never opened blocking.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.h"
#include "reporter/base/exit_status.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// Rank `rank` of a world of `world_size`, one all-reduce, as `name`.
void WriteRank(const std::string& directory, const std::string& name, int32_t rank,
               int32_t world_size, uint64_t comm_id) {
  TraceFileBuilder trace(RankHeader(
      "node0", 100 + static_cast<uint32_t>(rank) + 10 * static_cast<uint32_t>(world_size), rank,
      world_size));
  trace.AddBatch({trace.Event("ncclAllReduce", comm_id, static_cast<uint32_t>(world_size),
                              static_cast<uint32_t>(rank), 1, 4096, 100, 1000)});
  trace.AddFooter();
  trace.WriteTo(directory + "/" + name);
}

}  // namespace

TEST_CASE("traces of worlds of two sizes in one folder are refused, naming both") {
  ScratchDir dir;
  WriteRank(dir.path(), "a0.vtrace", 0, 2, 0xa);
  WriteRank(dir.path(), "a1.vtrace", 1, 2, 0xa);
  for (int32_t rank = 0; rank < 4; ++rank) {
    WriteRank(dir.path(), "b" + std::to_string(rank) + ".vtrace", rank, 4, 0xb);
  }
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitUsage);
  CHECK(result.out.empty());
  CHECK(Contains(result.err,
                 "the traces are of more than one run: world sizes differ: a0.vtrace "
                 "has world size 2 (started "));
  CHECK(Contains(result.err, "b0.vtrace has 4 (started "));
}

TEST_CASE("*.vtrace entries that are no regular file are named and skipped") {
  namespace fs = std::filesystem;
  ScratchDir dir;
  WriteRank(dir.path(), "r0.vtrace", 0, 2, 0xa);
  WriteRank(dir.path(), "r1.vtrace", 1, 2, 0xa);
  const std::string base = dir.path() + "/";
  REQUIRE(::mkfifo((base + "fifo.vtrace").c_str(), 0600) == 0);
  fs::create_symlink(base + "absent", base + "dangling.vtrace");
  fs::create_symlink(base + "loop.vtrace", base + "loop.vtrace");
  fs::create_symlink(base + "r0.vtrace", base + "link.vtrace");
  fs::create_directory(base + "folder.vtrace");
  // A FIFO opened blocking would hang here: the test finishing is part of it.
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitOk);
  CHECK(Contains(result.err, base + "fifo.vtrace is a FIFO, not a regular file"));
  CHECK(Contains(result.err, base + "dangling.vtrace is a symbolic link, not a regular file"));
  CHECK(Contains(result.err, base + "loop.vtrace is a symbolic link, not a regular file"));
  CHECK(Contains(result.err, base + "link.vtrace is a symbolic link, not a regular file"));
  CHECK(Contains(result.err, base + "folder.vtrace is a folder, not a regular file"));
  // Only the two traces are read: each rank once.
  CHECK(Contains(result.out, "r0.vtrace"));
  CHECK_FALSE(Contains(result.out, "link.vtrace"));
}

TEST_CASE("a node summary is written private (0600), never through a link planted at its name") {
  namespace fs = std::filesystem;
  ScratchDir dir;
  const std::string traces = dir.path() + "/traces";
  fs::create_directory(traces);
  WriteRank(traces, "r0.vtrace", 0, 2, 0xa);
  WriteRank(traces, "r1.vtrace", 1, 2, 0xa);
  const std::string target = dir.path() + "/victim";
  { std::ofstream(target) << "kept"; }
  const std::string summary = dir.path() + "/node.vsummary";
  fs::create_symlink(target, summary);
  const CliResult refused = Run({"report", "--node-summary", summary, traces});
  CHECK(refused.status != kExitOk);
  CHECK(Contains(refused.err, summary + " is a symbolic link, not a regular file"));
  std::ifstream victim(target);
  CHECK(std::string(std::istreambuf_iterator<char>(victim), {}) == "kept");

  fs::remove(summary);
  const CliResult written = Run({"report", "--node-summary", summary, traces});
  CHECK(written.status == kExitOk);
  CHECK((fs::status(summary).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a node summary that is a FIFO is refused, naming it, not waited on") {
  ScratchDir dir;
  const std::string fifo = dir.path() + "/node.vsummary";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliResult result = Run({"report", "--merge-summaries", fifo});
  CHECK(result.status != kExitOk);
  CHECK(Contains(result.err, fifo + " is a FIFO, not a regular file"));
}
