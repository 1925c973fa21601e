// Control characters in names from a trace reach the text, Markdown and HTML
// reports as visible \xNN escapes: no ESC or C1 byte goes to the terminal or
// the page, and a line break in a name does not split a table row.
#include <catch2/catch.hpp>
#include <string>

#include "cli_runner.h"
#include "reporter/base/visible_controls.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// An OSC sequence that retitles a terminal, a line break, a table bar and
// U+009B (CSI as a C1 control).
const std::string kHostileHost = "evil\x1b]0;owned\x07|row\nnext\xc2\x9bhost";

// Two ranks of one all-reduce; rank 1's host is `host`.
void WriteRunWithHost(const std::string& directory, const std::string& host) {
  for (uint32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace(rank == 0 ? "node0" : host, 10 + rank);
    trace.AddCommunicator(0xabc, 2, rank, "ncclCommInitRank");
    trace.AddBatch({trace.Event("ncclAllReduce", 0xabc, 2, rank, 1, 1024, 100, 200)});
    trace.AddFooter();
    trace.WriteTo(directory + "/rank" + std::to_string(rank) + ".vtrace");
  }
}

// Bytes the terminal would act on: C0 controls but the line feed, DEL, and
// the C1 controls' UTF-8 form.
bool HoldsControlCharacters(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte < 0x20 && byte != '\n') || byte == 0x7F) return true;
    if (byte == 0xC2 && i + 1 < text.size() &&
        (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0x80) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("control characters are shown as \\xNN, line feeds kept only when asked") {
  CHECK(ShowControlCharacters("a\x1b[31mb\x7f\tc\xc2\x85\xc2\xa0", LineBreaks::kEscape) ==
        "a\\x1B[31mb\\x7F\\x09c\\x85\xc2\xa0");
  CHECK(ShowControlCharacters("one\ntwo\r\n", LineBreaks::kKeep) == "one\ntwo\\x0D\n");
  CHECK(ShowControlCharacters("one\ntwo", LineBreaks::kEscape) == "one\\x0Atwo");
  // A lone 0xC2 (not UTF-8) is no C1 control.
  CHECK(ShowControlCharacters("\xc2"
                              "A",
                              LineBreaks::kEscape) ==
        "\xc2"
        "A");
}

TEST_CASE("a host name with an escape sequence and a line break stays inert in the text report") {
  ScratchDir dir;
  WriteRunWithHost(dir.path(), kHostileHost);
  const CliResult result = Run({"report", dir.path()});
  CHECK_FALSE(HoldsControlCharacters(result.out));
  // The processes table's cell, the line break escaped too: one row.
  CHECK(Contains(result.out, "evil\\x1B]0;owned\\x07|row\\x0Anext\\x9Bhost"));
}

TEST_CASE("a host name with an escape sequence, '|' and a line break keeps the Markdown table") {
  ScratchDir dir;
  WriteRunWithHost(dir.path(), kHostileHost);
  const CliResult result = Run({"report", dir.path(), "--format", "markdown"});
  CHECK_FALSE(HoldsControlCharacters(result.out));
  // The cell escapes '|' and turns the line break into a space, so the row
  // is one line that holds the whole name.
  CHECK(Contains(result.out, "| evil\\x1B\\]0;owned\\x07\\|row next\\x9Bhost |"));
}

TEST_CASE("a host name with an escape sequence reaches the HTML page as the text report shows it") {
  ScratchDir dir;
  WriteRunWithHost(dir.path(), kHostileHost);
  const CliResult result = Run({"report", dir.path(), "--format", "html"});
  REQUIRE(result.status == 0);
  // The page's own scripts and styles hold no such bytes either: none at all.
  CHECK_FALSE(HoldsControlCharacters(result.out));
  // Its table cell, the line feed kept (white space in HTML), the bar as it is.
  CHECK(Contains(result.out, "evil\\x1B]0;owned\\x07|row\nnext\\x9Bhost"));
}
