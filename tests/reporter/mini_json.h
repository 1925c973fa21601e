// Just enough of a JSON parser to read the reporter's output back in tests,
// independent of the writer it checks.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vprof::reporter::testing {

class JsonValue {
 public:
  using Array = std::vector<JsonValue>;
  using Object = std::map<std::string, JsonValue>;

  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  bool boolean() const { return std::get<bool>(value_); }
  double number() const { return std::get<double>(value_); }
  const std::string& string() const { return std::get<std::string>(value_); }
  const Array& array() const { return *std::get<std::shared_ptr<Array>>(value_); }
  const Object& object() const { return *std::get<std::shared_ptr<Object>>(value_); }
  // Throws std::out_of_range for a missing key or index.
  const JsonValue& operator[](const std::string& key) const { return object().at(key); }
  const JsonValue& operator[](size_t index) const { return array().at(index); }

  // Throws std::runtime_error on malformed input or trailing bytes.
  static JsonValue Parse(std::string_view text);

 private:
  friend class JsonParser;
  std::variant<std::monostate, bool, double, std::string, std::shared_ptr<Array>,
               std::shared_ptr<Object>>
      value_;
};

}  // namespace vprof::reporter::testing
