// The HTML report of a hand-built Report: the figures in the right cells, the
// chart rectangles where the arithmetic in sample_report.cc puts them, names
// escaped, and nothing fetched or run.
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "rendered_report.h"
#include "reporter/render/html/svg_charts.h"
#include "sample_report.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// The text of <section id="id">…</section>.
std::string Section(const std::string& html, const std::string& id) {
  const size_t start = html.find("<section id=\"" + id + "\">");
  REQUIRE(start != std::string::npos);
  return html.substr(start, html.find("</section>", start) - start);
}

// Each <tr>'s cells (th or td), as written (escaped).
std::vector<std::vector<std::string>> Rows(const std::string& section) {
  std::vector<std::vector<std::string>> rows;
  const std::regex row("<tr>(.*?)</tr>");
  const std::regex cell("<t[hd][^>]*>(.*?)</t[hd]>");
  for (std::sregex_iterator r(section.begin(), section.end(), row), end; r != end; ++r) {
    const std::string cells = (*r)[1];
    std::vector<std::string> texts;
    for (std::sregex_iterator c(cells.begin(), cells.end(), cell); c != end; ++c) {
      texts.push_back((*c)[1]);
    }
    rows.push_back(texts);
  }
  return rows;
}

struct Rect {
  int x, y, width;
  std::string fill;
  auto operator<=>(const Rect&) const = default;
};

std::vector<Rect> Rects(const std::string& section) {
  std::vector<Rect> rects;
  const std::regex rect(
      "<rect x=\"(\\d+)\" y=\"(\\d+)\" width=\"(\\d+)\" height=\"\\d+\" fill=\"([^\"]+)\"");
  for (std::sregex_iterator r(section.begin(), section.end(), rect), end; r != end; ++r) {
    rects.push_back({std::stoi((*r)[1]), std::stoi((*r)[2]), std::stoi((*r)[3]), (*r)[4]});
  }
  return rects;
}

bool Has(const std::vector<Rect>& rects, const Rect& rect) {
  return std::find(rects.begin(), rects.end(), rect) != rects.end();
}

// Bars start after the label column; row r's bar top is r × 28 + 6.
constexpr int kX = kChartLabelPx;
static_assert(kChartRowPx == 28 && kChartBarHeightPx == 16);

}  // namespace

TEST_CASE("the HTML header names the directory, clock and measurement window, escaped") {
  const std::string html = HtmlOf(SampleReport());
  CHECK(html.find("<title>vprof report: /runs/demo&lt;&amp;&gt;</title>") != std::string::npos);
  CHECK(html.find(
            "<dt>Measurement window</dt><dd>steps 3-4 of 4 (steps 1-2, warmup, left out)</dd>") !=
        std::string::npos);
  CHECK(html.find("error bound ±2.50 µs") != std::string::npos);
  CHECK(html.find("/runs/demo<&>") == std::string::npos);
}

TEST_CASE("the HTML page is self-contained: inline scripts only, no fetched resource") {
  const std::string html = HtmlOf(SampleReport());
  // Without a timeline, two scripts, the rank × step view's and the sortable tables', and the
  // view's data (JSON, not run).
  size_t scripts = 0, data = 0;
  for (size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1)) {
    const bool json =
        html.compare(at, 56, "<script type=\"application/json\" id=\"vprof-heatmap-data\">") == 0;
    CHECK((html.compare(at, 8, "<script>") == 0 || json));
    ++(json ? data : scripts);
  }
  CHECK(scripts == 2);
  CHECK(data == 1);
  CHECK(html.find("src=") == std::string::npos);
  // Links go to the page's own sections only, and each to one that is there.
  for (size_t at = html.find("href=\""); at != std::string::npos;
       at = html.find("href=\"", at + 1)) {
    const size_t begin = at + 6;
    const std::string target = html.substr(begin, html.find('"', begin) - begin);
    INFO(target);
    REQUIRE(target.starts_with("#"));
    CHECK(html.find("id=\"" + target.substr(1) + "\"") != std::string::npos);
  }
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("<style>") != std::string::npos);
}

TEST_CASE("the HTML page leads with the Summary") {
  const std::string html = HtmlOf(SampleReport());
  const size_t summary = html.find("<section id=\"summary\">");
  REQUIRE(summary != std::string::npos);
  CHECK(summary < html.find("<section id=\"processes\">"));
  CHECK(html.find("href=\"#candidates\"") != std::string::npos);
}

TEST_CASE("the HTML tables put each figure in its column") {
  const std::string html = HtmlOf(SampleReport());
  const auto segments = Rows(Section(html, "segments"));
  REQUIRE(segments.size() == 3);
  CHECK(segments[0] == std::vector<std::string>{"rank", "steps", "window", "compute",
                                                "exposed comm", "copy", "idle", "overlapped comm",
                                                "file"});
  // Rank 0: 12 + 4 + 2 + 2 = 20 ms; overlapped 6 of 20 = 30%.
  CHECK(segments[1] == std::vector<std::string>{"0", "2", "20.0 ms", "12.0 ms (60.0%)",
                                                "4.00 ms (20.0%)", "2.00 ms (10.0%)",
                                                "2.00 ms (10.0%)", "6.00 ms (30.0%)",
                                                "rank0.vtrace"});
  // Rank 1: overlapped 2 of 19 ms = 10.5%.
  CHECK(segments[2][7] == "2.00 ms (10.5%)");

  const auto timeline = Rows(Section(html, "timeline"));
  REQUIRE(timeline.size() == 3);
  // Rank 1's step 2 starts at 1.5 ms, 0.5 ms after rank 0's.
  CHECK(timeline[2][0] == "1");
  CHECK(timeline[2][1] == "+500 µs");
  CHECK(timeline[2][2] == "9.50 ms");

  const auto phases = Rows(Section(html, "phases"));
  CHECK(phases[1] == std::vector<std::string>{"0", "forward", "nvtx", "2", "6.00 ms", "3.00 ms",
                                              "60.0%", "10.0 ms", "rank0.vtrace"});

  // A process without NVTX ranges: its inferred phases say so in the source column, under a
  // heading that does not call them NVTX.
  Report inferred = SampleReport();
  inferred.phases[1].inferred = true;
  inferred.phases[1].phases[0].source = "inferred:optimizer_kernels";
  const std::string inferred_html = HtmlOf(inferred);
  CHECK(Rows(Section(inferred_html, "phases"))[3][2] == "inferred:optimizer_kernels");
  CHECK(inferred_html.find("Phases (NVTX)") == std::string::npos);

  const auto collectives = Rows(Section(html, "collectives"));
  CHECK(collectives[1] == std::vector<std::string>{"0xabc", "ncclAllReduce", "[1MiB,2MiB)", "8",
                                                   "100 µs", "12.50", "20.0 µs", "80.0 µs",
                                                   "1 ×6"});
}

TEST_CASE("the HTML candidates table colours the strict tag and escapes the rule") {
  const std::string section = Section(HtmlOf(SampleReport()), "candidates");
  const auto rows = Rows(section);
  REQUIRE(rows.size() == 4);
  CHECK(rows[1][0] == "1");
  CHECK(rows[1][1] ==
        "Overlap TP all-reduce | with compute (tp_communication: tp_communication_change)");
  CHECK(rows[1][2] == "full step");
  CHECK(rows[1][3] == "2.85 ms");
  CHECK(rows[1][4] == "28.5%");
  CHECK(rows[1][5] == "-");  // the sample's candidates carry no projection
  CHECK(rows[1][8] == "R3: changes collective order &lt;needs contract&gt;");
  CHECK(rows[2][8] == "R1: same kernels &amp; same order");
  CHECK(section.find("<td class=\"tag\" style=\"background:#ffca28\">needs contract</td>") !=
        std::string::npos);
  CHECK(section.find("<td class=\"tag\" style=\"background:#66bb6a\">eligible</td>") !=
        std::string::npos);
  CHECK(section.find("<td class=\"tag\" style=\"background:#ef5350\">not eligible</td>") !=
        std::string::npos);
}

TEST_CASE("the HTML GPU table escapes template kernel names") {
  const std::string html = HtmlOf(SampleReport());
  const auto rows = Rows(Section(html, "gpu-kernels"));
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][1] == "gemm&lt;float, 128&gt;");
  CHECK(html.find("gemm<float") == std::string::npos);
}

TEST_CASE("the HTML charts put each rectangle where the values say") {
  const std::string html = HtmlOf(SampleReport());
  // Phase bars, 600 px per span: rank 0 forward 60% = 360 px then backward
  // 240; rank 1 forward 50% = 300, backward 30% = 180, outside 20% = 120.
  const std::vector<Rect> phases = Rects(Section(html, "phases"));
  CHECK(phases.size() == 5);
  CHECK(Has(phases, {kX, 6, 360, "#00897b"}));
  CHECK(Has(phases, {kX + 360, 6, 240, "#8d6e63"}));
  CHECK(Has(phases, {kX, 34, 300, "#00897b"}));
  CHECK(Has(phases, {kX + 300, 34, 180, "#8d6e63"}));
  CHECK(Has(phases, {kX + 480, 34, 120, "#e0e0e0"}));

  // Timeline of step 3, 10 ms = 600 px: rank 1 from 0.5 ms (30 px), compute
  // 4.75 ms to 5.25 (315 px), exposed to 8.1 ms (486 px); overlapped 1 ms =
  // 60 px on the thin bar at 34 + 16 + 1.
  const std::vector<Rect> timeline = Rects(Section(html, "timeline"));
  CHECK(Has(timeline, {kX + 30, 34, 285, "#2e7d32"}));
  CHECK(Has(timeline, {kX + 315, 34, 171, "#d32f2f"}));
  CHECK(Has(timeline, {kX + 30, 51, 60, "#f9a825"}));
  // Rank 0: compute 6 of 10 ms = 360 px from the start.
  CHECK(Has(timeline, {kX, 6, 360, "#2e7d32"}));

  // Skew, 80 µs = 600 px: all-reduce max 600, mean 20 µs = 150; all-gather
  // max 40 µs = 300, mean 10 µs = 75. The label column is as wide as its longest label,
  // whole, needs at 7 px a character and 8 of padding: 31 characters, 225 px.
  const std::string longest = "0xabc ncclAllReduce [1MiB,2MiB)";
  const int skew_x = static_cast<int>(longest.size()) * 7 + 8;
  const std::string collectives = Section(html, "collectives");
  CHECK(collectives.find(">" + longest + "</text>") != std::string::npos);
  const std::vector<Rect> skew = Rects(collectives);
  CHECK(skew == std::vector<Rect>{{skew_x, 6, 600, "#ce93d8"},
                                  {skew_x, 6, 150, "#6a1b9a"},
                                  {skew_x, 34, 300, "#ce93d8"},
                                  {skew_x, 34, 75, "#6a1b9a"}});
}

TEST_CASE("the HTML phases chart puts nested phases on a row of their own") {
  Report report = SampleReport();
  // Rank 0: a step of 8 of its 10 ms, forward (3 ms) and backward (5 ms) inside it. Rank 1
  // keeps its two outermost phases on one row.
  const auto phase = [](const std::string& name, int64_t total_ns, uint32_t depth) {
    PhaseReport made;
    made.name = name;
    made.source = "nvtx";
    made.count = 1;
    made.total_ns = made.mean_ns = total_ns;
    made.depth = depth;
    return made;
  };
  constexpr int64_t kMs = 1'000'000;
  report.phases[0].phases = {phase("step", 8 * kMs, 0), phase("forward", 3 * kMs, 1),
                             phase("backward", 5 * kMs, 1)};
  const std::string section = Section(HtmlOf(report), "phases");
  const std::vector<Rect> phases = Rects(section);
  // Row 0 (y 6): step 8 ms = 480 px, the 2 ms outside phases 120. Row 1 (y 34), rank 0's
  // nested phases on the same scale: forward 180 px, backward 300 after it. Row 2: rank 1.
  // The colours follow first-seen order: step, forward, backward.
  CHECK(phases.size() == 7);
  CHECK(Has(phases, {kX, 6, 480, "#00897b"}));
  CHECK(Has(phases, {kX + 480, 6, 120, "#e0e0e0"}));
  CHECK(Has(phases, {kX, 34, 180, "#8d6e63"}));
  CHECK(Has(phases, {kX + 180, 34, 300, "#3949ab"}));
  CHECK(Has(phases, {kX, 62, 300, "#8d6e63"}));
  CHECK(section.find(">rank 0, nested</text>") != std::string::npos);
  CHECK(section.find("inside the row above: 8.00 ms") != std::string::npos);
}

TEST_CASE("every HTML section says its scope") {
  const std::string html = HtmlOf(SampleReport());
  CHECK(Section(html, "timeline").find("scope: full step") != std::string::npos);
  CHECK(Section(html, "full-steps").find("scope: full step") != std::string::npos);
  CHECK(Section(html, "segments").find("scope: actor window") != std::string::npos);
  CHECK(Section(html, "phases").find("scope: actor window") != std::string::npos);
  CHECK(Section(html, "collectives").find("scope: operator") != std::string::npos);
  CHECK(Section(html, "gpu-kernels").find("scope: operator") != std::string::npos);
}

TEST_CASE("an HTML report without steps says the window is the whole trace") {
  Report report = SampleReport();
  report.steps.reset();
  report.candidates.clear();
  const std::string html = HtmlOf(report);
  CHECK(html.find("<dt>Measurement window</dt><dd>whole trace (no GPU kernel records to cut into "
                  "steps)</dd>") != std::string::npos);
  CHECK(html.find("id=\"timeline\"") == std::string::npos);
  CHECK(Section(html, "candidates").find("no candidates") != std::string::npos);
}
