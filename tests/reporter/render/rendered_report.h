// Test helper: a Report as the Markdown or HTML writer writes it, as one string.
#pragma once

#include <string>

#include "reporter/model/report.h"

namespace vprof::reporter::testing {

std::string MarkdownOf(const Report& report);
std::string HtmlOf(const Report& report);

}  // namespace vprof::reporter::testing
