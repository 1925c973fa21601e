#include "reporter/render/text_escape.h"

namespace vprof::reporter {

std::string HtmlEscape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
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
    switch (c) {
      // GitHub decodes entities outside code spans, and a backslash before
      // '<' would not stop an HTML tag.
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
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

}  // namespace vprof::reporter
