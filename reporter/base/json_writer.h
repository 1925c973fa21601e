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

  // A string, number or bool, by its type.
  template <typename T>
  void Scalar(const T& value);

  // Key and value together, for the common case.
  template <typename T>
  void Field(std::string_view key, const T& value);
  template <typename T>
  void Field(std::string_view key, const std::optional<T>& value);  // null when empty

  // Key, then an object whose members write_members() writes.
  template <typename WriteMembers>
  void Object(std::string_view key, WriteMembers write_members, Layout layout = Layout::kIndented);
  // Key, then an array of `items`, each written by write_item(item) as one
  // value: every list of a report has this shape.
  template <typename Items, typename WriteItem>
  void Array(std::string_view key, const Items& items, WriteItem write_item,
             Layout layout = Layout::kIndented);
  // Key, then an array with an object per item, begun `row_layout`, whose
  // members write_members(item) writes.
  template <typename Items, typename WriteMembers>
  void Objects(std::string_view key, const Items& items, WriteMembers write_members,
               Layout row_layout = Layout::kIndented);
  // Key, then `items` (strings, numbers or bools) as an array.
  template <typename Items>
  void Values(std::string_view key, const Items& items, Layout layout = Layout::kIndented);

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
void JsonWriter::Scalar(const T& value) {
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
void JsonWriter::Field(std::string_view key, const T& value) {
  Key(key);
  Scalar(value);
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

template <typename WriteMembers>
void JsonWriter::Object(std::string_view key, WriteMembers write_members, Layout layout) {
  Key(key);
  BeginObject(layout);
  write_members();
  EndObject();
}

template <typename Items, typename WriteItem>
void JsonWriter::Array(std::string_view key, const Items& items, WriteItem write_item,
                       Layout layout) {
  Key(key);
  BeginArray(layout);
  for (const auto& item : items) write_item(item);
  EndArray();
}

template <typename Items, typename WriteMembers>
void JsonWriter::Objects(std::string_view key, const Items& items, WriteMembers write_members,
                         Layout row_layout) {
  Array(key, items, [&](const auto& item) {
    BeginObject(row_layout);
    write_members(item);
    EndObject();
  });
}

template <typename Items>
void JsonWriter::Values(std::string_view key, const Items& items, Layout layout) {
  Array(
      key, items, [this](const auto& value) { this->Scalar(value); }, layout);
}

}  // namespace vprof::reporter
