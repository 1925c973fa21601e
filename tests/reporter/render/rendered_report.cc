#include "rendered_report.h"

#include <sstream>

#include "reporter/render/html/html_page.h"
#include "reporter/render/markdown/markdown_page.h"

namespace vprof::reporter::testing {

std::string MarkdownOf(const Report& report) {
  std::ostringstream out;
  WriteMarkdownReport(report, out);
  return out.str();
}

std::string HtmlOf(const Report& report) {
  std::ostringstream out;
  WriteHtmlReport(report, out);
  return out.str();
}

}  // namespace vprof::reporter::testing
