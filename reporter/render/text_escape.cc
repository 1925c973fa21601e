#include "reporter/render/text_escape.h"

#include "reporter/base/visible_controls.h"

namespace vprof::reporter {
namespace {

// Appends the HTML entity for '&', '<' or '>' and returns true; false for any
// other character. Both escapes need these: GitHub's Markdown decodes
// entities outside code spans, and a backslash before '<' would not stop an
// HTML tag there.
bool AppendMarkupEntity(char c, std::string& out) {
  switch (c) {
    case '&':
      out += "&amp;";
      return true;
    case '<':
      out += "&lt;";
      return true;
    case '>':
      out += "&gt;";
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  // Control characters are no markup, but a page should not carry them raw
  // (HTML calls most of them parse errors): shown as the text report shows
  // them. A line feed is white space there.
  const std::string shown = ShowControlCharacters(text, LineBreaks::kKeep);
  std::string escaped;
  escaped.reserve(shown.size());
  for (const char c : shown) {
    if (AppendMarkupEntity(c, escaped)) continue;
    switch (c) {
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string MarkdownEscape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    if (AppendMarkupEntity(c, escaped)) continue;
    switch (c) {
      case '\\':
      case '|':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '#':
      case '~':
        escaped += '\\';
        escaped += c;
        break;
      case '\n':
      case '\r':
        escaped += ' ';
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string ScriptSafeJson(std::string_view json) {
  std::string safe;
  safe.reserve(json.size());
  for (const char c : json) {
    if (c == '<') {
      safe += "\\u003c";
    } else {
      safe += c;
    }
  }
  return safe;
}

}  // namespace vprof::reporter
