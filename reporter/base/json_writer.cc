#include "reporter/base/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "common/utf8_repair.h"

namespace vprof::reporter {
namespace {

// Bytes that need a closer look than "copy as is": controls, '"', '\\'
// (escaped) and bytes of 0x80 and up (kept when well-formed UTF-8). One
// table load per byte rather than four compares: a report writes millions
// of keys.
constexpr std::array<bool, 256> kEndsPlainRun = [] {
  std::array<bool, 256> ends{};
  for (size_t c = 0; c < 256; ++c) ends[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return ends;
}();

}  // namespace

void AppendJsonString(std::string& out, std::string_view value) {
  out += '"';
  // Plain characters go out a run at a time.
  size_t plain_from = 0;
  const auto flush_plain = [&](size_t up_to) {
    out.append(value.data() + plain_from, up_to - plain_from);
  };
  for (size_t i = 0; i < value.size();) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (!kEndsPlainRun[c]) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const Utf8Char character = Utf8Next(value.substr(i));
      if (character.valid) {  // stays in the run
        i += character.bytes;
        continue;
      }
      flush_plain(i);
      out += "\\ufffd";
      i += character.bytes;
      plain_from = i;
      continue;
    }
    flush_plain(i);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      }
    }
    plain_from = ++i;
  }
  flush_plain(value.size());
  out += '"';
}

void WriteJsonString(std::ostream& out, std::string_view value) {
  std::string text;
  AppendJsonString(text, value);
  out << text;
}

void JsonWriter::BeginObject(Layout layout) { Open('{', layout); }

void JsonWriter::EndObject() { Close('}'); }

void JsonWriter::BeginArray(Layout layout) { Open('[', layout); }

void JsonWriter::EndArray() { Close(']'); }

void JsonWriter::Open(char bracket, Layout layout) {
  BeforeValue();
  buffer_ += bracket;
  const bool in_one_line = !levels_.empty() && levels_.back().one_line;
  levels_.push_back({.one_line = in_one_line || layout == Layout::kOneLine});
}

void JsonWriter::Key(std::string_view key) {
  Level& level = levels_.back();
  const bool comma = !level.empty;
  level.empty = false;
  after_key_ = true;
  const bool plain = std::none_of(
      key.begin(), key.end(), [](char c) { return kEndsPlainRun[static_cast<unsigned char>(c)]; });
  if (!plain) {
    Separate(comma);
    AppendJsonString(buffer_, key);
    buffer_ += ": ";
    return;
  }
  // Keys are nearly always plain: `,\n<indent>"key": ` (or `, "key": `) in
  // one piece. A report writes millions of them, and appending a character
  // at a time took one in twenty of a report's instructions.
  const bool one_line = level.one_line;
  const size_t indent = one_line ? 0 : 2 * levels_.size();
  const size_t separator = one_line ? (comma ? 2 : 0) : (comma ? 1 : 0) + 1 + indent;
  const size_t at = buffer_.size();
  buffer_.resize(at + separator + key.size() + 4);
  char* out = buffer_.data() + at;
  if (comma) *out++ = ',';
  if (!one_line) {
    *out++ = '\n';
    out = std::fill_n(out, indent, ' ');
  } else if (comma) {
    *out++ = ' ';
  }
  *out++ = '"';
  out = std::copy(key.begin(), key.end(), out);
  *out++ = '"';
  *out++ = ':';
  *out = ' ';
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(buffer_, value);
  Spill();
}

void JsonWriter::Int(int64_t value) { Number(value); }

void JsonWriter::Uint(uint64_t value) { Number(value); }

void JsonWriter::Double(double value) {
  if (!std::isfinite(value)) return Null();
  Number(value);
}

template <typename T>
void JsonWriter::Number(T value) {
  BeforeValue();
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  buffer_.append(text, static_cast<size_t>(result.ptr - text));
  Spill();
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  buffer_ += value ? "true" : "false";
  Spill();
}

void JsonWriter::Null() {
  BeforeValue();
  buffer_ += "null";
  Spill();
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;  // the top-level value
  const bool comma = !levels_.back().empty;
  levels_.back().empty = false;
  Separate(comma);
}

void JsonWriter::Close(char bracket) {
  const Level closed = levels_.back();
  levels_.pop_back();
  if (!closed.empty && !closed.one_line) Newline();
  buffer_ += bracket;
  Spill();
}

void JsonWriter::Separate(bool comma) {
  if (comma) buffer_ += ',';
  if (!levels_.back().one_line) {
    Newline();
  } else if (comma) {
    buffer_ += ' ';
  }
}

void JsonWriter::Newline() {
  buffer_ += '\n';
  buffer_.append(2 * levels_.size(), ' ');
}

void JsonWriter::Spill() {
  if (!levels_.empty() && buffer_.size() < kSpillBytes) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

}  // namespace vprof::reporter
