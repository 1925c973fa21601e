// The report as Markdown: the sections of the text report as Markdown tables,
// for pull requests, wikis and chat.
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

void WriteMarkdownReport(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
