#include "reporter/base/json_node.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "reporter/base/json_writer.h"

namespace vprof::reporter {

JsonNode JsonNode::Boolean(bool value) {
  JsonNode json;
  json.type_ = Type::kBool;
  json.boolean_ = value;
  return json;
}

JsonNode JsonNode::Integer(int64_t value) {
  JsonNode json;
  json.type_ = Type::kNumber;
  json.integer_ = value;
  json.number_ = static_cast<double>(value);
  return json;
}

JsonNode JsonNode::Number(double value) {
  JsonNode json;
  json.type_ = Type::kNumber;
  json.number_ = value;
  return json;
}

JsonNode JsonNode::Text(std::string value) {
  JsonNode json;
  json.type_ = Type::kString;
  json.text_ = std::move(value);
  return json;
}

JsonNode JsonNode::EmptyArray() {
  JsonNode json;
  json.type_ = Type::kArray;
  return json;
}

JsonNode JsonNode::EmptyObject() {
  JsonNode json;
  json.type_ = Type::kObject;
  return json;
}

JsonNode& JsonNode::Append(JsonNode value) {
  array_.push_back(std::move(value));
  return *this;
}

JsonNode& JsonNode::Set(std::string key, JsonNode value) {
  object_.insert_or_assign(std::move(key), std::move(value));
  return *this;
}

std::string_view JsonTypeName(JsonNode::Type type) {
  switch (type) {
    case JsonNode::Type::kNull:
      return "null";
    case JsonNode::Type::kBool:
      return "a boolean";
    case JsonNode::Type::kNumber:
      return "a number";
    case JsonNode::Type::kString:
      return "a string";
    case JsonNode::Type::kArray:
      return "an array";
    case JsonNode::Type::kObject:
      return "an object";
  }
  return "unknown";
}

namespace {

// Deeper nesting than any contract needs; the limit keeps a hostile file from
// exhausting the stack.
constexpr int kMaxDepth = 64;

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  JsonParse Parse() {
    JsonParse result;
    JsonNode value;
    SkipSpace();
    if (ParseValue(value, 0)) {
      SkipSpace();
      if (at_ == text_.size()) {
        result.value = std::move(value);
        return result;
      }
      Fail("unexpected text after the JSON value");
    }
    result.error = error_;
    return result;
  }

 private:
  bool Fail(std::string_view message) {
    if (!error_.empty()) return false;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < at_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) {
        ++column;
      }
    }
    error_ = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
             std::string(message);
    return false;
  }

  void SkipSpace() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  bool Consume(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  bool ParseValue(JsonNode& value, int depth) {
    if (depth > kMaxDepth) return Fail("nested too deeply");
    if (at_ >= text_.size()) return Fail("unexpected end of text, expected a value");
    const char c = text_[at_];
    if (c == '{') return ParseObject(value, depth);
    if (c == '[') return ParseArray(value, depth);
    if (c == '"') {
      std::string text;
      if (!ParseString(text)) return false;
      value = JsonNode::Text(std::move(text));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(value);
    if (Consume("true")) {
      value = JsonNode::Boolean(true);
      return true;
    }
    if (Consume("false")) {
      value = JsonNode::Boolean(false);
      return true;
    }
    if (Consume("null")) {
      value = JsonNode();
      return true;
    }
    return Fail("expected a value (object, array, string, number, true, false or null)");
  }

  bool ParseObject(JsonNode& value, int depth) {
    ++at_;  // '{'
    value = JsonNode::EmptyObject();
    SkipSpace();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (at_ >= text_.size() || text_[at_] != '"') return Fail("expected a key in double quotes");
      const size_t key_at = at_;
      std::string key;
      if (!ParseString(key)) return false;
      if (value.object().contains(key)) {
        at_ = key_at;
        return Fail("key \"" + key + "\" appears twice in one object");
      }
      SkipSpace();
      if (at_ >= text_.size() || text_[at_] != ':') return Fail("expected ':' after a key");
      ++at_;
      SkipSpace();
      JsonNode member;
      if (!ParseValue(member, depth + 1)) return false;
      value.Set(std::move(key), std::move(member));
      SkipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return true;
      }
      return Fail("expected ',' or '}' in an object");
    }
  }

  bool ParseArray(JsonNode& value, int depth) {
    ++at_;  // '['
    value = JsonNode::EmptyArray();
    SkipSpace();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return true;
    }
    while (true) {
      SkipSpace();
      JsonNode element;
      if (!ParseValue(element, depth + 1)) return false;
      value.Append(std::move(element));
      SkipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return true;
      }
      return Fail("expected ',' or ']' in an array");
    }
  }

  bool ParseHex4(uint32_t& code) {
    code = 0;
    for (int i = 0; i < 4; ++i, ++at_) {
      if (at_ >= text_.size()) return Fail("unexpected end of text in a \\u escape");
      const char c = text_[at_];
      code <<= 4;
      if (c >= '0' && c <= '9') {
        code |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        code |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        code |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Fail("expected four hex digits after \\u");
      }
    }
    return true;
  }

  static void AppendUtf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  bool ParseEscape(std::string& out) {
    if (at_ >= text_.size()) return Fail("unexpected end of text in an escape");
    const char c = text_[at_++];
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out += c;
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        break;
      default:
        --at_;
        return Fail("unknown escape '\\" + std::string(1, c) + "'");
    }
    uint32_t code = 0;
    if (!ParseHex4(code)) return false;
    if (code >= 0xD800 && code < 0xDC00) {  // a high surrogate: its low half must follow
      uint32_t low = 0;
      if (!Consume("\\u") || !ParseHex4(low) || low < 0xDC00 || low >= 0xE000) {
        return Fail("a \\u high surrogate without its low surrogate");
      }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    } else if (code >= 0xDC00 && code < 0xE000) {
      return Fail("a \\u low surrogate without its high surrogate");
    }
    AppendUtf8(out, code);
    return true;
  }

  bool ParseString(std::string& out) {
    ++at_;  // '"'
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '"') {
        ++at_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Fail("a control character in a string");
      ++at_;
      if (c == '\\') {
        if (!ParseEscape(out)) return false;
      } else {
        out += c;
      }
    }
    return Fail("unexpected end of text in a string");
  }

  bool ParseNumber(JsonNode& value) {
    const size_t start = at_;
    const auto digits = [&] {
      const size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      return at_ - from;
    };
    if (text_[at_] == '-') ++at_;
    const size_t int_start = at_;
    const size_t int_digits = digits();
    if (int_digits == 0) return Fail("expected a digit");
    if (int_digits > 1 && text_[int_start] == '0') {
      at_ = int_start;
      return Fail("a number with a leading zero");
    }
    bool integral = true;
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      integral = false;
      if (digits() == 0) return Fail("expected a digit after '.'");
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      integral = false;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (digits() == 0) return Fail("expected a digit in the exponent");
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + at_;
    int64_t integer = 0;
    if (integral && std::from_chars(first, last, integer).ec == std::errc()) {
      value = JsonNode::Integer(integer);
      return true;
    }
    double number = 0;
    const auto parsed = std::from_chars(first, last, number);
    if (parsed.ec != std::errc() || !std::isfinite(number)) {
      at_ = start;
      return Fail("a number out of range");
    }
    value = JsonNode::Number(number);
    return true;
  }

  std::string_view text_;
  size_t at_ = 0;
  std::string error_;
};

void WriteCanonical(std::ostream& out, const JsonNode& value) {
  switch (value.type()) {
    case JsonNode::Type::kNull:
      out << "null";
      return;
    case JsonNode::Type::kBool:
      out << (value.boolean() ? "true" : "false");
      return;
    case JsonNode::Type::kNumber: {
      if (value.integer()) {
        out << *value.integer();
        return;
      }
      char text[32];
      const auto result = std::to_chars(text, text + sizeof text, value.number());
      out << std::string_view(text, static_cast<size_t>(result.ptr - text));
      return;
    }
    case JsonNode::Type::kString:
      WriteJsonString(out, value.text());
      return;
    case JsonNode::Type::kArray: {
      out << '[';
      const char* separator = "";
      for (const JsonNode& element : value.array()) {
        out << separator;
        WriteCanonical(out, element);
        separator = ",";
      }
      out << ']';
      return;
    }
    case JsonNode::Type::kObject: {
      out << '{';
      const char* separator = "";
      for (const auto& [key, member] : value.object()) {
        out << separator;
        WriteJsonString(out, key);
        out << ':';
        WriteCanonical(out, member);
        separator = ",";
      }
      out << '}';
      return;
    }
  }
}

}  // namespace

JsonParse ParseJson(std::string_view text) { return JsonParser(text).Parse(); }

std::string CanonicalJson(const JsonNode& value) {
  std::ostringstream out;
  WriteCanonical(out, value);
  return out.str();
}

}  // namespace vprof::reporter
