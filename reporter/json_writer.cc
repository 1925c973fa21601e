#include "reporter/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace vprof::reporter {
namespace {

// Length of the well-formed UTF-8 sequence at text[i], or 0 if there is none
// (stray continuation byte, overlong form, surrogate, beyond U+10FFFF, cut).
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong
    if (lead == 0xED) second_max = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong
    if (lead == 0xF4) second_max = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < second_min || byte(i + 1) > second_max) return 0;
  for (size_t k = i + 2; k < i + length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

void WriteJsonString(std::ostream& out, std::string_view value) {
  out.put('"');
  // Plain characters go out a run at a time: a report writes millions of
  // strings, and a stream call per character was most of the writing.
  size_t plain_from = 0;
  const auto flush_plain = [&](size_t up_to) {
    out.write(value.data() + plain_from, static_cast<std::streamsize>(up_to - plain_from));
  };
  for (size_t i = 0; i < value.size();) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(value, i);
      if (length > 0) {  // valid UTF-8 stays in the run
        i += length;
        continue;
      }
      flush_plain(i);
      out << "\\ufffd";
      plain_from = ++i;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    flush_plain(i);
    switch (c) {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\n':
        out << "\\n";
        break;
      case '\r':
        out << "\\r";
        break;
      case '\t':
        out << "\\t";
        break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        out << "\\u00" << kHex[c >> 4] << kHex[c & 0xF];
      }
    }
    plain_from = ++i;
  }
  flush_plain(value.size());
  out.put('"');
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_ << '{';
  levels_.push_back({});
}

void JsonWriter::EndObject() { Close('}'); }

void JsonWriter::BeginArray() {
  BeforeValue();
  out_ << '[';
  levels_.push_back({});
}

void JsonWriter::EndArray() { Close(']'); }

void JsonWriter::Key(std::string_view key) {
  if (!levels_.back().empty) out_ << ',';
  levels_.back().empty = false;
  Newline();
  WriteJsonString(out_, key);
  out_ << ": ";
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  WriteJsonString(out_, value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_ << value;
}

void JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  out_ << value;
}

void JsonWriter::Double(double value) {
  if (!std::isfinite(value)) return Null();
  BeforeValue();
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  out_ << std::string_view(text, static_cast<size_t>(result.ptr - text));
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ << (value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_ << "null";
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;  // the top-level value
  if (!levels_.back().empty) out_ << ',';
  levels_.back().empty = false;
  Newline();
}

void JsonWriter::Close(char bracket) {
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) Newline();
  out_ << bracket;
}

void JsonWriter::Newline() {
  static constexpr std::string_view kSpaces = "                                ";
  out_.put('\n');
  for (size_t indent = 2 * levels_.size(); indent > 0;) {
    const size_t run = std::min(indent, kSpaces.size());
    out_.write(kSpaces.data(), static_cast<std::streamsize>(run));
    indent -= run;
  }
}

}  // namespace vprof::reporter
