// Escaping report text for the page formats: names in traces (kernel names
// with templates, file names, NVTX ranges) may hold any character, and must
// show as written instead of becoming markup.
#pragma once

#include <string>
#include <string_view>

namespace vprof::reporter {

// Text safe inside an HTML element or a double- or single-quoted attribute,
// control characters but the line feed shown as \xNN (visible_controls.h).
std::string HtmlEscape(std::string_view text);

// Text safe inside a GitHub Markdown table cell: the characters that would
// end the cell, start emphasis, code, links or HTML are escaped, and line
// breaks become spaces (a table row is one line).
std::string MarkdownEscape(std::string_view text);

// JSON safe inside a <script> element: '<' only occurs inside its strings,
// where \u003c means the same and no "</script" or "<!--" can end the element.
std::string ScriptSafeJson(std::string_view json);

}  // namespace vprof::reporter
