// The Markdown report of a hand-built Report: GitHub tables with each figure
// in its column, names escaped so no cell splits, every section scoped.
#include <catch2/catch.hpp>
#include <sstream>

#include "rendered_report.h"
#include "sample_report.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool HasLine(const std::string& text, const std::string& line) {
  const std::vector<std::string> lines = Lines(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// Cell borders: '|' not escaped by a backslash.
size_t Borders(const std::string& line) {
  size_t borders = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '|') {
      ++borders;
    }
  }
  return borders;
}

}  // namespace

TEST_CASE("the Markdown header names the directory, clock and measurement window") {
  const std::string markdown = MarkdownOf(SampleReport());
  CHECK(HasLine(markdown, "- **Directory:** /runs/demo&lt;&amp;&gt;"));
  CHECK(
      HasLine(markdown, "- **Measurement window:** steps 3-4 of 4 (steps 1-2, warmup, left out)"));
  CHECK(markdown.find("error bound ±2.50 µs") != std::string::npos);
}

TEST_CASE("the Markdown tables put each figure in its column") {
  const std::string markdown = MarkdownOf(SampleReport());
  CHECK(
      HasLine(markdown, "## Where the measured steps' time went, per rank (scope: actor window)"));
  CHECK(HasLine(markdown,
                "| rank | steps | window | compute | exposed comm | copy | idle | overlapped comm "
                "| file |"));
  CHECK(HasLine(markdown, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"));
  // Rank 0: 12 + 4 + 2 + 2 = 20 ms; overlapped 6 of 20 = 30%.
  CHECK(HasLine(markdown,
                "| 0 | 2 | 20.0 ms | 12.0 ms (60.0%) | 4.00 ms (20.0%) | 2.00 ms (10.0%) | 2.00 "
                "ms (10.0%) | 6.00 ms (30.0%) | rank0.vtrace |"));
  CHECK(HasLine(markdown, "## Step 3 per rank (scope: full step)"));
  CHECK(HasLine(markdown, "| 3 | 10.0 ms | 0 | 2.85 ms |"));  // full step 3
  CHECK(HasLine(markdown,
                "| 0 | forward | nvtx | 2 | 6.00 ms | 3.00 ms | 60.0% | 10.0 ms | rank0.vtrace |"));
  CHECK(HasLine(markdown, "## Collectives (scope: operator)"));
  CHECK(HasLine(markdown,
                "| 0xabc | ncclAllReduce | \\[1MiB,2MiB) | 8 | 100 µs | 12.50 | 20.0 µs | 80.0 µs "
                "| 1 ×6 |"));
}

TEST_CASE("Markdown candidates keep hostile text inside its cell") {
  const std::string markdown = MarkdownOf(SampleReport());
  CHECK(HasLine(
      markdown,
      "| 1 | Overlap TP all-reduce \\| with compute (tp\\_communication: "
      "tp\\_communication\\_change) | full step | 2.85 ms | 28.5% | - | 4 | needs contract | "
      "R3: changes collective order &lt;needs contract&gt; | fact one; fact two |"));
  CHECK(HasLine(markdown,
                "| 0 | gemm&lt;float, 128&gt; | gemm | 16 | 96.0 ms | 6.00 ms | rank0.vtrace |"));
  // Every row of every table has as many cell borders as its header.
  size_t header_borders = 0;
  for (const std::string& line : Lines(markdown)) {
    if (line.empty() || line[0] != '|') {
      header_borders = 0;
      continue;
    }
    if (header_borders == 0) header_borders = Borders(line);
    CHECK(Borders(line) == header_borders);
  }
}

TEST_CASE("a Markdown report without steps says the window is the whole trace") {
  Report report = SampleReport();
  report.steps.reset();
  const std::string markdown = MarkdownOf(report);
  CHECK(HasLine(markdown,
                "- **Measurement window:** whole trace (no GPU kernel records to cut into steps)"));
  CHECK(markdown.find("## Timeline") == std::string::npos);
}

TEST_CASE("Markdown shows coverage gaps and consistency mismatches when checked") {
  Report report = SampleReport();
  CHECK(MarkdownOf(report).find("## Coverage") == std::string::npos);  // not checked

  CoverageProcess process;
  process.file = "rank0.vtrace";
  process.rank = 0;
  process.wrapper_collectives = 10;
  process.wrapper_p2p = 2;
  process.plugin_attached = true;
  process.plugin_version = 5;
  process.plugin_collectives = 8;
  process.plugin_p2p = 2;
  process.gpu_captured = true;
  process.nccl_kernels = 10;
  CoverageGap gap;
  gap.kind = "wrappers_exceed_plugin";
  gap.file = "rank0.vtrace";
  gap.rank = 0;
  gap.detail = "10 vs 8";
  gap.causes = {"plugin dropped events"};
  report.coverage = CoverageReport{{process}, {gap}};

  ConsistencyReport consistency;
  consistency.mode = ConsistencyMode::kStrict;
  consistency.mode_source = "flag";
  consistency.requested_fingerprint = "req";
  consistency.actual_fingerprint = "act";
  consistency.violations = 1;
  ConsistencyMismatch mismatch;
  mismatch.axis = "nccl_algo";
  mismatch.kind = "undeclared_fallback";
  mismatch.source = "NCCL_ALGO";
  mismatch.requested = "Ring";
  mismatch.actual = "AllReduce TREE";
  mismatch.count = 4;
  mismatch.processes = 1;
  mismatch.violation = true;
  consistency.mismatches = {mismatch};
  report.consistency = consistency;

  const std::string markdown = MarkdownOf(report);
  CHECK(HasLine(markdown, "| 0 | 10/8 | 2/2 | 10 | v5 | rank0.vtrace |  |"));
  CHECK(
      HasLine(markdown,
              "| 0 |  |  |  |  | rank0.vtrace | wrappers\\_exceed\\_plugin: 10 vs 8 (cause: plugin "
              "dropped events) |"));
  CHECK(
      HasLine(markdown,
              "mode strict (--strict); requested req; actual act; 1 violation; strict run FAILED"));
  CHECK(
      HasLine(markdown,
              "| nccl\\_algo | undeclared fallback | NCCL\\_ALGO | Ring | AllReduce TREE | 4 | 1 | "
              "yes |"));
}
