// A small streaming JSON writer: pretty-printed (two-space indent, or one
// line for an object or array begun so: a row of a long table), keys in the
// order written, strings escaped (invalid UTF-8 becomes U+FFFD), so the
// output is valid JSON whatever bytes a host name or path holds.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace vprof::reporter {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  // kOneLine: the object or array and all it holds on one line,
  // `{"a": 1, "b": [2, 3]}`. A report lists a row per rank and step, a
  // million rows for a large job: indented, each took 47 lines.
  enum class Layout : uint8_t { kIndented, kOneLine };

  void BeginObject(Layout layout = Layout::kIndented);
  void EndObject();
  void BeginArray(Layout layout = Layout::kIndented);
  void EndArray();
  // Names the next value; only inside an object.
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Double(double value);  // shortest round-trip form; null when not finite
  void Bool(bool value);
  void Null();

  // Key and value together, for the common case.
  template <typename T>
  void Field(std::string_view key, const T& value);
  template <typename T>
  void Field(std::string_view key, const std::optional<T>& value);  // null when empty

 private:
  void BeforeValue();
  void Open(char bracket, Layout layout);
  void Close(char bracket);
  // Before a member of the innermost level: the comma after the one before
  // it (when there is one), then a new line and indent or, on one line, a
  // space after the comma.
  void Separate(bool comma);
  void Newline();
  template <typename T>
  void Number(T value);
  // Writes the buffer out once the outermost value is complete, or when it
  // holds kSpillBytes.
  void Spill();

  // The text is built in a string and written in large pieces: a stream call
  // per token was most of the time of writing a large report.
  static constexpr size_t kSpillBytes = 64 * 1024;

  struct Level {
    bool empty = true;
    bool one_line = false;  // it, or a level it is in, was begun kOneLine
  };
  std::ostream& out_;
  std::string buffer_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

// `value` as a JSON string, quoted and escaped.
void AppendJsonString(std::string& out, std::string_view value);
void WriteJsonString(std::ostream& out, std::string_view value);

template <typename T>
void JsonWriter::Field(std::string_view key, const T& value) {
  Key(key);
  if constexpr (std::is_same_v<T, bool>) {
    Bool(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    Double(value);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    Int(value);
  } else if constexpr (std::is_integral_v<T>) {
    Uint(value);
  } else {
    String(value);
  }
}

template <typename T>
void JsonWriter::Field(std::string_view key, const std::optional<T>& value) {
  if (value) {
    Field(key, *value);
  } else {
    Key(key);
    Null();
  }
}

}  // namespace vprof::reporter
