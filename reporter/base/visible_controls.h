// Control characters of report text shown as visible escapes. Names in traces
// (NVTX ranges, kernel names, argv, host names) may hold any character; on a
// terminal an ESC or C1 byte starts an escape sequence (OSC can retitle the
// window or write the clipboard), and a line break inside a name splits a table
// row. HTML and JSON escape them in their own syntax; text and Markdown show
// them with this.
#pragma once

#include <string>
#include <string_view>

namespace vprof::reporter {

enum class LineBreaks : bool { kEscape, kKeep };

// `utf8` (valid UTF-8) with each C0 control (U+0000–U+001F), DEL (U+007F) and
// C1 control (U+0080–U+009F) written as \xNN, NN its code point in upper-case
// hex ("\x1B", "\x9B"); line feeds stay when `line_breaks` is kKeep (the
// layout's own line ends).
std::string ShowControlCharacters(std::string_view utf8, LineBreaks line_breaks);

}  // namespace vprof::reporter
