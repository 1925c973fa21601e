// A ReportTable laid out as text: the text report's form of a table the
// Markdown and HTML reports share (report_tables.h).
#pragma once

#include "reporter/base/text_layout.h"
#include "reporter/render/report_tables.h"

namespace vprof::reporter {

// The columns the text report shows (TableColumn::in_text), numbers right-aligned.
TextTable TextTableOf(const ReportTable& table);

}  // namespace vprof::reporter
