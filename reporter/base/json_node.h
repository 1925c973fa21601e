// A JSON document held in memory: read from a file a person wrote (the run
// contract), or built to be fingerprinted. Objects keep their keys sorted, so
// the canonical form (compact, sorted keys) falls out of the structure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

class JsonNode {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<JsonNode>;
  using Object = std::map<std::string, JsonNode>;  // byte order of the keys

  JsonNode() = default;  // null
  static JsonNode Boolean(bool value);
  static JsonNode Integer(int64_t value);
  static JsonNode Number(double value);
  static JsonNode Text(std::string value);
  static JsonNode EmptyArray();
  static JsonNode EmptyObject();

  Type type() const { return type_; }
  bool boolean() const { return boolean_; }
  // The number as written, when it is an integer literal that fits int64.
  const std::optional<int64_t>& integer() const { return integer_; }
  double number() const { return number_; }
  const std::string& text() const { return text_; }
  const Array& array() const { return array_; }
  const Object& object() const { return object_; }

  // For an array: appends; for an object: sets `key`. Return *this to chain.
  JsonNode& Append(JsonNode value);
  JsonNode& Set(std::string key, JsonNode value);

 private:
  Type type_ = Type::kNull;
  bool boolean_ = false;
  std::optional<int64_t> integer_;
  double number_ = 0;
  std::string text_;
  Array array_;
  Object object_;
};

// "null", "a boolean", "a number", "a string", "an array", "an object".
std::string_view JsonTypeName(JsonNode::Type type);

struct JsonParse {
  std::optional<JsonNode> value;
  std::string error;  // "line L, column C: what is wrong"; empty when value is set
};

// Strict RFC 8259: one value, nothing but whitespace around it; a key twice in
// one object is an error (which of the two was meant cannot be known).
JsonParse ParseJson(std::string_view text);

// Compact (no whitespace), object keys in byte order, strings escaped as the
// report escapes them, integers in decimal, other numbers in their shortest
// round-trip form: one text for one value, whatever order it was built in.
std::string CanonicalJson(const JsonNode& value);

}  // namespace vprof::reporter
