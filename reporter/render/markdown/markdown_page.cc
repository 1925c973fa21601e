#include "reporter/render/markdown/markdown_page.h"

#include "reporter/render/page_sections.h"
#include "reporter/render/text_escape.h"
#include "reporter/summary/report_summary.h"

namespace vprof::reporter {
namespace {

void WriteSection(const ReportTable& table, std::ostream& out) {
  out << "\n## " << MarkdownEscape(table.title);
  if (!table.scope.empty()) out << " (scope: " << MarkdownEscape(table.scope) << ")";
  out << "\n\n";
  if (!table.note.empty()) out << MarkdownEscape(table.note) << "\n\n";
  if (table.rows.empty()) {
    out << MarkdownEscape(table.empty_text) << '\n';
    return;
  }
  out << '|';
  for (const TableColumn& column : table.columns)
    out << ' ' << MarkdownEscape(column.header) << " |";
  out << "\n|";
  for (const TableColumn& column : table.columns) out << (column.numeric ? " ---: |" : " --- |");
  out << '\n';
  for (const std::vector<TableCell>& row : table.rows) {
    out << '|';
    for (const TableCell& cell : row) out << ' ' << MarkdownEscape(cell.text) << " |";
    out << '\n';
  }
}

}  // namespace

void WriteMarkdownReport(const Report& report, std::ostream& out) {
  out << "# vprof report\n\n## Summary\n\n";
  for (const SummaryLine& line : SummarizeReport(report).lines) {
    out << "- **" << MarkdownEscape(line.label) << ":** " << MarkdownEscape(line.text) << " ("
        << MarkdownEscape(line.section_title) << ")\n";
  }
  out << '\n';
  for (const auto& [label, text] : HeaderFacts(report)) {
    out << "- **" << MarkdownEscape(label) << ":** " << MarkdownEscape(text) << '\n';
  }
  for (const PageSection& section : PageSections(report)) {
    if (section.table && !section.html_only) WriteSection(*section.table, out);
  }
}

}  // namespace vprof::reporter
