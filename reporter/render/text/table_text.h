// A ReportTable laid out as text: the text report's form of a table the
// Markdown and HTML reports share (report_tables.h).
#pragma once

#include <vector>

#include "reporter/base/text_layout.h"
#include "reporter/render/report_tables.h"

namespace vprof::reporter {

// A table the text report lays out within a section in its own words: its
// columns, and rows added after; no title, note or anchor.
ReportTable UntitledTable(std::vector<TableColumn> columns);

// The columns the text report shows (TableColumn::in_text), numbers right-aligned.
TextTable TextTableOf(const ReportTable& table);

}  // namespace vprof::reporter
