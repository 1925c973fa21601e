// The text report: its content for a known run, and that it fits 100 columns.
#include <catch2/catch.hpp>
#include <sstream>

#include "four_rank_run.h"
#include "reporter/base/text_layout.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "unwrapped.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::string TextReportOf(const std::string& directory) {
  const TraceFileList traces = ListTraceFiles(directory);
  std::ostringstream out;
  WriteTextReport(BuildReport(directory, traces.paths), out);
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The line that starts, after indentation, with `start`.
std::string LineStarting(const std::string& text, const std::string& start) {
  for (const std::string& line : Lines(text)) {
    if (line.find_first_not_of(' ') != std::string::npos &&
        line.compare(line.find_first_not_of(' '), start.size(), start) == 0) {
      return line;
    }
  }
  FAIL("no line starts with " << start << " in\n" << text);
  return "";
}

// The line `n` lines below the line equal to `line`.
std::string LineAfter(const std::string& text, const std::string& line, size_t n) {
  const std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i + n < lines.size(); ++i) {
    if (lines[i] == line) return lines[i + n];
  }
  FAIL("no line " << line << " in\n" << text);
  return "";
}

// The line's words, split at runs of spaces.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

TEST_CASE("text report of the four-rank run") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const std::string text = TextReportOf(dir.path());

  // The Summary comes first, right after the title; its straggler line names rank 2, the
  // last in 3 of its 4 collectives.
  CHECK(text.find("\n\nSummary (") == text.find('\n'));
  CHECK(text.find("Summary (") < text.find("Times:"));
  // The line wraps: its first line, then the rest.
  CHECK(
      LineStarting(text, "Straggler:") ==
      "  Straggler: rank 2 entered last at 3 of its 4 collectives, where chance gives 1 (one-sided "
      "binomial");
  CHECK(text.find("    p = 0.0508) (host call times), mean lateness 300 ns → Ranks\n") !=
        std::string::npos);
  CHECK(LineStarting(text, "Times:").find("host API call times") != std::string::npos);
  // Nothing in it claims the NCCL completes collectives before returning.
  CHECK(text.find("complete collectives before returning") == std::string::npos);
  CHECK(LineStarting(text, "Clock:") == "Clock: CLOCK_MONOTONIC of host node1");
  CHECK(LineStarting(text, "Communicator") ==
        "Communicator 0xabc: size 4, ranks seen 4/4, created by ncclCommInitRank");
  CHECK(LineStarting(text, "lifecycle:") ==
        "  lifecycle: ncclCommInitRank ×4 (total 1.00 µs, max 400 ns)");
  CHECK(LineStarting(text, "ncclCommDestroy") ==
        "             ncclCommDestroy ×4 (total 20 ns, max 5 ns)");

  // size, count, total, mean, bytes (2 words), algbw, busbw, skew, max skew, last.
  // 2 MiB in 150 µs: algbw 13.98, busbw 20.97; skews 350 ns and 400 ns; rank 2 twice.
  const std::vector<std::string> big = Words(LineStarting(text, "[1MiB,2MiB)"));
  CHECK(big == std::vector<std::string>{"[1MiB,2MiB)", "2", "150", "µs", "75.0", "µs", "2.00",
                                        "MiB", "13.98", "20.97", "350", "ns", "400", "ns", "2",
                                        "×2"});
  // All-gather: 1 MiB in 10 µs: 104.86 GB/s, × 0.75 = 78.64.
  CHECK(LineStarting(text, "ncclAllGather") == "  ncclAllGather (bus factor 0.75)");
  // Its table's header, then its one row.
  const std::vector<std::string> gather =
      Words(LineAfter(text, "  ncclAllGather (bus factor 0.75)", 2));
  REQUIRE(gather.size() >= 10);
  CHECK(gather[8] == "104.86");
  CHECK(gather[9] == "78.64");

  const std::vector<std::string> launcher = Words(LineStarting(text, "-  node1  100"));
  CHECK(launcher.back() == "(non-rank)");
  CHECK(Words(LineStarting(text, "Processes:")) ==
        std::vector<std::string>{"Processes:", "5", "(4", "ranks,", "1", "other);", "0", "not",
                                 "whole"});
}

TEST_CASE("every line fits 100 columns") {
  ScratchDir dir;
  WriteFourRankRun(dir.path(), /*skip_rank=*/1);  // adds incomplete-collective lines
  for (const std::string& line : Lines(TextReportOf(dir.path()))) {
    INFO(line);
    CHECK(DisplayWidth(line) <= 100);
  }
}

TEST_CASE("large values still fit 100 columns") {
  Report report;
  report.directory = "/scratch/a/rather/long/path/to/the/traces/of/a/large/training/job/run-0042";
  report.time_source = {{"a-long-host-name-0001.cluster.example.org", "b"}, true, 123456, 3};
  ProcessReport process;
  process.file = "a-long-host-name-0001.cluster.example.org.4194303.7.vtrace";
  process.host = "a-long-host-name-0001.cluster.example.org";
  process.pid = 4194303;
  process.rank = 16383;
  process.is_rank = true;
  process.nccl_events = 123456789;
  process.dropped_events = 1234567;
  process.state = InputState::kNewerFormat;
  process.end_reason = "internal_error";
  process.problem = "format_version 12 is newer than this vprof reads (1); file skipped";
  report.processes = {process};
  CommunicatorReport comm;
  comm.comm_id = 0xfedcba9876543210;
  comm.parent_comm_id = 0x0123456789abcdef;
  comm.size = 16384;
  comm.created_by = "ncclCommInitRankConfig";
  comm.lifecycle = {{"ncclCommInitRankConfig", 16384, 123'000'000'000, 9'000'000'000}};
  OpReport op;
  op.op = "ncclReduceScatter";
  op.bucket = BucketOf(3ULL << 40);
  op.count = 12345678;
  op.total_time_ns = 987'654'321'000'000;
  op.mean_time_ns = 80'000'000;
  op.total_bytes = 1ULL << 62;
  op.algbw_gbps = 1234.5678;
  op.busbw_gbps = 1234.5678;
  op.mean_arrival_skew_ns = 999'000'000;
  op.max_arrival_skew_ns = 123'000'000'000;
  op.most_often_last_rank = 16383;
  op.most_often_last_times = 12345678;
  comm.ops = {op};
  std::vector<RankRange> missing;
  for (int64_t rank = 0; rank < 16384; rank += 2) missing.push_back({rank, rank});
  comm.incomplete = {{"ncclAllReduce", 1, 123456789, 123456789, 16384, {1, 3}, missing}};
  report.communicators = {comm};
  report.ranks = {{16383, process.file, 12345678, 12345678, 999'000'000}};

  std::ostringstream out;
  WriteTextReport(report, out);
  for (const std::string& line : Lines(out.str())) {
    INFO(line);
    CHECK(DisplayWidth(line) <= 100);
  }
  const std::string unwrapped = Unwrapped(out.str());
  CHECK(unwrapped.find("missing comm ranks: 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, "
                       "28, 30 and 8176 more") != std::string::npos);
}

TEST_CASE("incomplete collectives are listed with the missing comm ranks") {
  ScratchDir dir;
  WriteFourRankRun(dir.path(), /*skip_rank=*/1);
  const std::string text = TextReportOf(dir.path());
  CHECK(text.find("incomplete: ncclAllReduce seq 1-3 (3 calls) seen by 3 of 4 ranks; missing "
                  "comm ranks: 1\n") != std::string::npos);
}

TEST_CASE("wrapping and tables measure code points, not bytes") {
  CHECK(DisplayWidth("1.00 µs") == 7);
  std::ostringstream wrapped;
  WriteWrapped(wrapped, "aaa bbb ccc", "> ", "  ", 9);
  CHECK(wrapped.str() == "> aaa bbb\n  ccc\n");

  TextTable table({{"name", TextTable::Align::kLeft}, {"µs", TextTable::Align::kRight}});
  table.AddRow({"x", "12"});
  table.AddRow({"long name", "3"});
  std::ostringstream out;
  table.Write(out, " ");
  CHECK(out.str() == " name       µs\n x          12\n long name   3\n");

  CHECK(ElideMiddle("abcdefghij", 10) == "abcdefghij");
  CHECK(ElideMiddle("abcdefghij", 5) == "ab…ij");
  CHECK(ElideMiddle("µµµµµµ", 4) == "µ…µµ");
  TextTable narrow({{"file", TextTable::Align::kLeft}, {"n", TextTable::Align::kRight}});
  narrow.AddRow({"node-0001.cluster.example.org.1234.vtrace", "7"});
  std::ostringstream elided;
  narrow.Write(elided, "", 20);
  // 41 + 1 + 1 columns do not fit 20: the file column narrows to 18.
  CHECK(elided.str() == "file               n\nnode-000…34.vtrace 7\n");
}
