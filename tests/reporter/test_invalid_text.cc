// Traces whose text is not UTF-8 (as an older vprof, or another writer, left
// them): every packet is read, and every report format comes out valid UTF-8,
// checked with libprotobuf's validator rather than vprof's repair.
#include <google/protobuf/stubs/common.h>

#include <catch2/catch.hpp>
#include <string>

#include "cli_runner.h"
#include "mini_json.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

bool ValidUtf8(const std::string& s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()));
}

// One rank on a host whose name ends in 0xff, its communicator created by a
// function named with a cut character, in a file named with a stray byte.
std::string WriteForeignTrace(const ScratchDir& dir) {
  TraceFileBuilder trace("node\xff", 7);
  constexpr uint64_t kComm = 0x5;
  trace.AddCommunicator(kComm, 1, 0, "ncclCommInit\xe2\x82");
  trace.AddBatch({trace.Event("ncclAllReduce", kComm, 1, 0, 1, 4096, 100, 200),
                  trace.Event("ncclAllReduce", kComm, 1, 0, 2, 4096, 300, 400)});
  trace.AddFooter();
  const std::string file =
      "n\x80"
      "de.7.vtrace";
  trace.WriteTo(dir.File(file));
  return file;
}

}  // namespace

TEST_CASE("a trace whose text is not UTF-8 is read whole") {
  ScratchDir dir;
  WriteForeignTrace(dir);
  const CliResult result = Run({"report", dir.path(), "--format=json"});
  REQUIRE(result.status == kExitOk);
  const JsonValue report = JsonValue::Parse(result.out);
  const JsonValue& process = report["processes"][0];
  CHECK(process["state"].string() == "whole");
  CHECK(process["nccl_events"].number() == 2);
  CHECK(process["host"].string() == "node\xef\xbf\xbd");
  CHECK(process["file"].string() ==
        "n\xef\xbf\xbd"
        "de.7.vtrace");
}

TEST_CASE("every report format is valid UTF-8 whatever text the traces hold") {
  ScratchDir dir;
  WriteForeignTrace(dir);
  for (const char* format : {"text", "json", "markdown", "html"}) {
    INFO("format " << format);
    const CliResult result = Run({"report", dir.path(), "--format", format});
    REQUIRE(result.status == kExitOk);
    // JSON writes the replacement as an escape.
    CHECK(Contains(result.out, std::string(format) == "json" ? "node\\ufffd" : "node\xef\xbf\xbd"));
    CHECK(ValidUtf8(result.out));
    CHECK(ValidUtf8(result.err));
  }
}
