// Markdown and HTML reports of many ranks: beyond kFoldAbove the per-rank
// tables fold into least / median / most rows and the per-rank charts draw
// only the ranks that stand out. ManyRanksReport (sample_report.h) says which
// ranks those are and why; the expectations below are worked out from it,
// not from the code under test.
#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "rendered_report.h"
#include "reporter/base/text_layout.h"
#include "reporter/render/ranks_shown.h"
#include "sample_report.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// The Markdown section whose heading starts with `heading`, to the next heading.
std::string MarkdownSection(const std::string& markdown, const std::string& heading) {
  const size_t start = markdown.find("\n## " + heading);
  REQUIRE(start != std::string::npos);
  return markdown.substr(start, markdown.find("\n## ", start + 1) - start);
}

// Table rows, header and separator excluded.
size_t TableRows(const std::string& section) {
  size_t lines = 0;
  std::istringstream in(section);
  for (std::string line; std::getline(in, line);) lines += !line.empty() && line[0] == '|';
  return lines < 2 ? 0 : lines - 2;
}

std::string HtmlSection(const std::string& html, const std::string& id) {
  const size_t start = html.find("<section id=\"" + id + "\">");
  REQUIRE(start != std::string::npos);
  return html.substr(start, html.find("</section>", start) - start);
}

// The ranks a chart labels its rows with, in row order.
std::vector<int> ChartRanks(const std::string& section) {
  std::vector<int> ranks;
  const std::regex label("<text x=\"4\" y=\"\\d+\">rank (\\d+)</text>");
  for (std::sregex_iterator m(section.begin(), section.end(), label), end; m != end; ++m) {
    ranks.push_back(std::stoi((*m)[1]));
  }
  return ranks;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

}  // namespace

TEST_CASE("the sample's extremes are the ranks the folding is tested against") {
  // Independently of RanksThatStandOut: sort the 40 windows.
  std::vector<std::pair<int64_t, int>> windows;
  const Report report = ManyRanksReport(40);
  for (const RankStepsReport& rank : report.steps->ranks) {
    windows.emplace_back(rank.total.window_ns, *rank.rank);
  }
  std::sort(windows.begin(), windows.end());
  CHECK(windows.front().second == 5);
  CHECK(windows[20].second == 25);
  CHECK(windows.back().second == 22);
}

TEST_CASE("40 ranks: the Markdown per-rank tables fold to a row per figure") {
  const std::string markdown = MarkdownOf(ManyRanksReport(40));
  // Window and the five segments.
  const std::string segments = MarkdownSection(markdown, "Where the measured steps");
  INFO(segments);
  CHECK(TableRows(segments) == 6);
  CHECK(
      segments.find("40 ranks: least, median and most over them; the JSON report has every rank") !=
      std::string::npos);
  // Window: least 10.0 ms (rank 5), median 10.2 ms (rank 25's), most 10.39 ms (rank 22).
  CHECK(segments.find("| window | 10.0 ms (rank 5) | 10.2 ms | 10.4 ms (rank 22) |") !=
        std::string::npos);
  // Start, window and the five segments.
  CHECK(TableRows(MarkdownSection(markdown, "Step 3 per rank")) == 7);
  // forward and backward.
  const std::string phases = MarkdownSection(markdown, "Phases");
  INFO(phases);
  CHECK(TableRows(phases) == 2);
  CHECK(phases.find("| forward | nvtx | 40 | 80 |") != std::string::npos);
  // One kernel, listed by all 40 processes.
  const std::string kernels = MarkdownSection(markdown, "Top GPU kernels");
  CHECK(TableRows(kernels) == 1);
  CHECK(kernels.find("| gemm | gemm | 40 | 160 |") != std::string::npos);
  // Processes: the first (0), the fewest events (0), the median (20), the most
  // (39) and the one that dropped events (31).
  const std::string processes = MarkdownSection(markdown, "Processes");
  CHECK(TableRows(processes) == 4);
  for (const std::string rank : {"0", "20", "31", "39"}) {
    CHECK(processes.find("\n| " + rank + " | node-") != std::string::npos);
  }
  CHECK(processes.find("4 of 40 processes shown") != std::string::npos);
  CHECK(processes.find("(1 of 1)") != std::string::npos);
}

TEST_CASE("40 ranks: the HTML charts draw only the ranks that stand out") {
  const std::string html = HtmlOf(ManyRanksReport(40));
  // The first (0), least window (5), median (25), most (22), lost records (12, 31).
  const std::vector<int> steps_shown = {0, 5, 12, 22, 25, 31};
  const std::string segments = HtmlSection(html, "segments");
  CHECK(ChartRanks(segments) == steps_shown);
  CHECK(segments.find("6 of 40 ranks shown: the first, those with the least and the most "
                      "window, the median, and those that lost records (2 of 2)") !=
        std::string::npos);
  const std::string timeline = HtmlSection(html, "timeline");
  CHECK(ChartRanks(timeline) == steps_shown);
  CHECK(timeline.find("6 of 40 ranks shown") != std::string::npos);
  // Phases: the same span extremes; ranges dropped by 7 and 12.
  const std::string phases = HtmlSection(html, "phases");
  CHECK(ChartRanks(phases) == std::vector<int>{0, 5, 7, 12, 22, 25});
  CHECK(phases.find("6 of 40 ranks shown") != std::string::npos);
  CHECK(phases.find("dropped NVTX ranges (2 of 2)") != std::string::npos);
  // The folded tables have no row per rank either.
  CHECK(Count(segments, "<tr>") == 1 + 6);
  CHECK(Count(phases, "<tr>") == 1 + 2);
}

TEST_CASE("a chart of many ranks in trouble shows at most kFoldAbove, the extremes first") {
  Report report = ManyRanksReport(40);
  for (RankStepsReport& rank : report.steps->ranks) rank.unlaunched_records = 1;
  const std::vector<int> shown = ChartRanks(HtmlSection(HtmlOf(report), "segments"));
  REQUIRE(shown.size() == kFoldAbove);
  CHECK(std::is_sorted(shown.begin(), shown.end()));
  // 0, 5, 22, 25, then the first troubled ranks not yet shown: 1-4, 6-13.
  CHECK(shown == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 22, 25});
  CHECK(HtmlOf(report).find("16 of 40 ranks shown") != std::string::npos);
  CHECK(HtmlOf(report).find("lost records (16 of 40)") != std::string::npos);
}

TEST_CASE("RanksThatStandOut picks SpreadOver's extremes: the first of equals") {
  std::vector<RankFigure> figures(20, RankFigure{.value = 7, .trouble = false});
  figures[3].value = 1;
  figures[9].value = 1;
  figures[4].value = 9;
  figures[15].value = 9;
  figures[18].trouble = true;
  const RanksShown shown = RanksThatStandOut(figures);
  // First 0; least 3 (before 9); most 4 (before 15); median 7 is rank 0's; trouble 18.
  CHECK(shown.indices == std::vector<size_t>{0, 3, 4, 18});
  CHECK(shown.of == 20);
  CHECK(shown.troubled == 1);
  CHECK(shown.troubled_shown == 1);
}

TEST_CASE("RanksThatStandOut of equal figures: the first stands for them, and says so") {
  std::vector<RankFigure> figures(20, RankFigure{.value = 644, .trouble = false});
  figures[11].trouble = true;
  const RanksShown shown = RanksThatStandOut(figures);
  CHECK(shown.indices == std::vector<size_t>{0, 11});
  CHECK(shown.all_equal);
  CHECK(RanksShownCaption(shown, "processes", "events", "dropped events") ==
        "2 of 20 processes shown: the first (all have the same events) and those that dropped "
        "events (1 of 1); the JSON report has every one");
  figures[6].value = 645;
  CHECK_FALSE(RanksThatStandOut(figures).all_equal);
}

TEST_CASE("16 ranks keep a row and a bar per rank") {
  const Report report = ManyRanksReport(16);
  const std::string markdown = MarkdownOf(report);
  CHECK(TableRows(MarkdownSection(markdown, "Where the measured steps")) == 16);
  CHECK(TableRows(MarkdownSection(markdown, "Step 3 per rank")) == 16);
  CHECK(TableRows(MarkdownSection(markdown, "Phases")) == 32);
  CHECK(TableRows(MarkdownSection(markdown, "Processes")) == 16);
  CHECK(TableRows(MarkdownSection(markdown, "Top GPU kernels")) == 16);
  CHECK(markdown.find("least, median and most") == std::string::npos);
  const std::string html = HtmlOf(report);
  std::vector<int> all(16);
  for (int i = 0; i < 16; ++i) all[static_cast<size_t>(i)] = i;
  for (const std::string id : {"segments", "timeline", "phases"}) {
    CHECK(ChartRanks(HtmlSection(html, id)) == all);
  }
  CHECK(html.find("ranks shown") == std::string::npos);
}
