// The report as text for people, at most 100 columns wide.
#pragma once

#include <ostream>

#include "reporter/model/report.h"
#include "reporter/render/text_sections.h"

namespace vprof::reporter {

// `sections`: which of its sections (text_sections.h); every one by default.
void WriteTextReport(const Report& report, std::ostream& out,
                     TextSections sections = kAllTextSections);
// Its Summary alone: each line with the section that backs it.
void WriteTextSummary(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
