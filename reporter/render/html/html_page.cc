#include "reporter/render/html/html_page.h"

#include <string_view>

#include "reporter/render/chart_palette.h"
#include "reporter/render/chart_ranks.h"
#include "reporter/render/html/html_heatmap.h"
#include "reporter/render/html/html_timeline.h"
#include "reporter/render/html/svg_charts.h"
#include "reporter/render/html/web_assets.h"
#include "reporter/render/page_sections.h"
#include "reporter/render/text_escape.h"
#include "reporter/render/timeline_step.h"
#include "reporter/summary/report_summary.h"

namespace vprof::reporter {
namespace {

// Inline, so the page stands alone; no colour here is in a chart palette.
constexpr std::string_view kStyle =
    R"(body{font-family:sans-serif;margin:16px;color:#212121;background:#ffffff}
h1{font-size:22px;margin:0 0 8px}
h2{font-size:17px;margin:24px 0 4px}
.scope{display:inline-block;font-size:12px;font-weight:normal;border:1px solid #757575;border-radius:3px;padding:0 4px;margin-left:8px}
.note{font-size:13px;color:#424242;margin:2px 0 6px;max-width:1100px}
dl.facts{display:grid;grid-template-columns:160px auto;gap:2px 8px;font-size:13px;margin:0}
dl.facts dt{font-weight:bold}
dl.facts dd{margin:0}
table{border-collapse:collapse;font-size:12px;margin:4px 0}
th,td{border:1px solid #bdbdbd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f5f5f5}
td.num{text-align:right;white-space:nowrap}
td.tag{white-space:nowrap}
.legend{font-size:12px;margin:2px 0}
.swatch{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 4px 0 10px}
input.table-filter{display:block;font-size:12px;margin:4px 0 0;padding:1px 4px;width:220px}
th[aria-sort=ascending]::after{content:" \25B2"}
th[aria-sort=descending]::after{content:" \25BC"}
.timeline-controls{margin:4px 0}
#vprof-tooltip,#vprof-heatmap-tip{display:none;position:absolute;white-space:pre;font-size:12px;background:#fffde7;border:1px solid #757575;padding:4px 6px;pointer-events:none;max-width:700px;overflow:hidden}
)";

void WriteHeading(const std::string& title, const std::string& scope, std::ostream& out) {
  out << "<h2>" << HtmlEscape(title);
  if (!scope.empty()) out << "<span class=\"scope\">scope: " << HtmlEscape(scope) << "</span>";
  out << "</h2>\n";
}

void WriteNote(const ReportTable& table, std::ostream& out) {
  if (!table.note.empty()) out << "<p class=\"note\">" << HtmlEscape(table.note) << "</p>\n";
}

// The rows, or why there are none.
void WriteTable(const ReportTable& table, std::ostream& out) {
  if (table.rows.empty()) {
    out << "<p class=\"note\">" << HtmlEscape(table.empty_text) << "</p>\n";
    return;
  }
  out << "<table class=\"sortable\">\n<tr>";
  for (const TableColumn& column : table.columns)
    out << "<th>" << HtmlEscape(column.header) << "</th>";
  out << "</tr>\n";
  for (const std::vector<TableCell>& row : table.rows) {
    out << "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      out << "<td";
      if (!row[i].colour.empty()) {
        out << " class=\"tag\" style=\"background:" << row[i].colour << '"';
      } else if (table.columns[i].numeric) {
        out << " class=\"num\"";
      }
      out << '>' << HtmlEscape(row[i].text) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void WriteLegend(const std::vector<std::pair<std::string, std::string_view>>& entries,
                 std::ostream& out) {
  out << "<div class=\"legend\">";
  for (const auto& [name, colour] : entries) {
    out << "<span class=\"swatch\" style=\"background:" << colour << "\"></span>"
        << HtmlEscape(name);
  }
  out << "</div>\n";
}

// Which ranks a folded chart draws, and why those; nothing when it draws all.
void WriteChartCaption(const ChartRanks& ranks, std::ostream& out) {
  if (!ranks.caption.empty()) {
    out << "<p class=\"note\">" << HtmlEscape(ranks.caption) << "</p>\n";
  }
}

void WriteSegmentLegend(std::ostream& out) {
  std::vector<std::pair<std::string, std::string_view>> entries;
  for (const SegmentStyle& style : kSegmentStyles) {
    entries.push_back(
        {std::string(style.name) + (style.part_of_window ? "" : " (thin bar)"), style.colour});
  }
  WriteLegend(entries, out);
}

// The chart of a section (page_sections.h).
void DrawChart(const Report& report, SectionChart chart, std::ostream& out) {
  switch (chart) {
    case SectionChart::kNone:
    case SectionChart::kRankStepHeatmap:  // a section of its own
      return;
    case SectionChart::kStepTimeline: {
      const uint32_t step = *TimelineStep(*report.steps);
      const ChartRanks ranks = TimelineRanks(*report.steps, step);
      WriteChartCaption(ranks, out);
      WriteSegmentLegend(out);
      WriteTimelineSvg(*report.steps, step, ranks.shown.indices, out);
      return;
    }
    case SectionChart::kStepSegments: {
      const ChartRanks ranks = SegmentBarRanks(*report.steps);
      WriteChartCaption(ranks, out);
      WriteSegmentLegend(out);
      WriteSegmentBarsSvg(*report.steps, ranks.shown.indices, out);
      return;
    }
    case SectionChart::kPhases: {
      std::vector<std::pair<std::string, std::string_view>> entries;
      const std::vector<std::string> names = PhaseNames(report.phases);
      for (size_t i = 0; i < names.size(); ++i) {
        entries.push_back({names[i], kPhaseColours[i % kPhaseColours.size()]});
      }
      entries.push_back({"outside phases", kOutsidePhasesColour});
      const ChartRanks ranks = PhaseBarRanks(report.phases);
      WriteChartCaption(ranks, out);
      WriteLegend(entries, out);
      WritePhaseBarsSvg(report.phases, ranks.shown.indices, out);
      return;
    }
    case SectionChart::kCollectives:
      WriteLegend({{"mean arrival skew", kSkewMeanColour}, {"max arrival skew", kSkewMaxColour}},
                  out);
      WriteSkewSvg(report.communicators, out);
      return;
  }
}

// A section: heading, note, the chart (only when the table has rows: it
// draws the same figures), and the rows or why there are none.
void WriteSection(const Report& report, const PageSection& section, std::ostream& out) {
  if (!section.table) {
    if (section.chart == SectionChart::kRankStepHeatmap) {
      WriteHtmlHeatmap(
          *report.steps,
          report.step_timeline ? std::optional(report.step_timeline->number) : std::nullopt, out);
    } else {
      WriteHtmlTimeline(*report.step_timeline, out);
    }
    return;
  }
  const ReportTable& table = *section.table;
  out << "<section id=\"" << HtmlEscape(table.id) << "\">\n";
  WriteHeading(table.title, table.scope, out);
  WriteNote(table, out);
  if (!table.rows.empty()) DrawChart(report, section.chart, out);
  WriteTable(table, out);
  out << "</section>\n";
}

// The Summary first, each line linking to the section behind it.
void WriteSummary(const Report& report, std::ostream& out) {
  out << "<section id=\"summary\">\n<h2>Summary</h2>\n<dl class=\"facts\">\n";
  for (const SummaryLine& line : SummarizeReport(report).lines) {
    out << "<dt>" << HtmlEscape(line.label) << "</dt><dd>" << HtmlEscape(line.text)
        << " <a href=\"#" << HtmlEscape(line.section_id) << "\">→ "
        << HtmlEscape(line.section_title) << "</a></dd>\n";
  }
  out << "</dl>\n</section>\n";
}

}  // namespace

void WriteHtmlReport(const Report& report, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>vprof "
         "report: "
      << HtmlEscape(report.directory) << "</title>\n<style>\n"
      << kStyle << "</style>\n</head>\n<body>\n<h1>vprof report</h1>\n";
  WriteSummary(report, out);
  out << "<dl class=\"facts\">\n";
  for (const auto& [label, text] : HeaderFacts(report)) {
    out << "<dt>" << HtmlEscape(label) << "</dt><dd>" << HtmlEscape(text) << "</dd>\n";
  }
  out << "</dl>\n";
  for (const PageSection& section : PageSections(report)) WriteSection(report, section, out);
  out << "<script>" << kTablesScript << "</script>\n</body>\n</html>\n";
}

}  // namespace vprof::reporter
