#include "reporter/base/visible_controls.h"

namespace vprof::reporter {
namespace {

void AppendEscaped(unsigned code_point, std::string& out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += "\\x";
  out += kHex[code_point >> 4];
  out += kHex[code_point & 0xF];
}

}  // namespace

std::string ShowControlCharacters(std::string_view utf8, LineBreaks line_breaks) {
  std::string shown;
  shown.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size(); ++i) {
    const auto byte = static_cast<unsigned char>(utf8[i]);
    if (byte == '\n' && line_breaks == LineBreaks::kKeep) {
      shown += '\n';
    } else if (byte < 0x20 || byte == 0x7F) {
      AppendEscaped(byte, shown);
    } else if (byte == 0xC2 && i + 1 < utf8.size() &&
               (static_cast<unsigned char>(utf8[i + 1]) & 0xE0) == 0x80) {
      // U+0080–U+009F are 0xC2 0x80–0x9F in UTF-8; the second byte is the
      // code point.
      AppendEscaped(static_cast<unsigned char>(utf8[++i]), shown);
    } else {
      shown += utf8[i];
    }
  }
  return shown;
}

}  // namespace vprof::reporter
