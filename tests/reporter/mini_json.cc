#include "mini_json.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace vprof::reporter::testing {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  JsonValue ParseDocument() {
    JsonValue value = ParseValue();
    SkipSpace();
    if (pos_ != text_.size()) Fail("trailing bytes");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(pos_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           std::string_view(" \t\r\n").find(text_[pos_]) != std::string_view::npos)
      ++pos_;
  }
  bool Consume(std::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void Expect(std::string_view token) {
    if (!Consume(token)) Fail("expected '" + std::string(token) + "'");
  }

  JsonValue ParseValue() {
    JsonValue value;
    SkipSpace();
    if (Consume("null")) return value;
    if (Consume("true")) {
      value.value_ = true;
    } else if (Consume("false")) {
      value.value_ = false;
    } else if (Consume("{")) {
      auto object = std::make_shared<JsonValue::Object>();
      if (!Consume("}")) {
        do {
          SkipSpace();
          std::string key = ParseString();
          Expect(":");
          if (!object->emplace(key, ParseValue()).second) Fail("duplicate key " + key);
        } while (Consume(","));
        Expect("}");
      }
      value.value_ = object;
    } else if (Consume("[")) {
      auto array = std::make_shared<JsonValue::Array>();
      if (!Consume("]")) {
        do array->push_back(ParseValue());
        while (Consume(","));
        Expect("]");
      }
      value.value_ = array;
    } else if (pos_ < text_.size() && text_[pos_] == '"') {
      value.value_ = ParseString();
    } else {
      value.value_ = ParseNumber();
    }
    return value;
  }

  std::string ParseString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') Fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      const char c = text_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) Fail("raw control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) Fail("cut escape");
      const char escaped = text_[pos_++];
      switch (escaped) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) Fail("cut \\u escape");
          const unsigned code = std::stoul(std::string(text_.substr(pos_, 4)), nullptr, 16);
          pos_ += 4;
          // Tests only need the Basic Multilingual Plane, encoded back to UTF-8.
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          Fail("bad escape");
      }
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }

  double ParseNumber() {
    if (pos_ >= text_.size() || (text_[pos_] != '-' && !std::isdigit(text_[pos_]))) {
      Fail("expected a value");
    }
    const std::string rest(text_.substr(pos_, 64));
    char* end = nullptr;
    const double number = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) Fail("expected a value");
    pos_ += static_cast<size_t>(end - rest.c_str());
    return number;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

JsonValue JsonValue::Parse(std::string_view text) { return JsonParser(text).ParseDocument(); }

}  // namespace vprof::reporter::testing
