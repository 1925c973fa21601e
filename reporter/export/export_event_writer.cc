#include "reporter/export/export_event_writer.h"

#include <charconv>

#include "reporter/base/json_writer.h"

namespace vprof::reporter {
namespace {

template <typename Integer>
void AppendInteger(std::string& line, Integer value, int base = 10) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value, base).ptr;
  line.append(digits, end);
}

}  // namespace

std::string MicrosText(int64_t ns) {
  std::string text;
  // Through uint64_t, so that the most negative value has a magnitude too.
  const uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) text.push_back('-');
  AppendInteger(text, magnitude / 1000);
  const uint64_t fraction = magnitude % 1000;
  text.push_back('.');
  text.push_back(static_cast<char>('0' + fraction / 100));
  text.push_back(static_cast<char>('0' + fraction / 10 % 10));
  text.push_back(static_cast<char>('0' + fraction % 10));
  return text;
}

std::string HexText(uint64_t value) {
  std::string text = "0x";
  AppendInteger(text, value, 16);
  return text;
}

TraceEventWriter& TraceEventWriter::Begin(char phase) {
  line_.clear();
  line_.append(events_written_ == 0 ? "{" : ",\n{");
  first_field_ = true;
  Key("ph");
  line_.push_back('"');
  line_.push_back(phase);
  line_.push_back('"');
  return *this;
}

TraceEventWriter& TraceEventWriter::String(std::string_view key, std::string_view value) {
  Key(key);
  AppendJsonString(line_, value);
  return *this;
}

TraceEventWriter& TraceEventWriter::Int(std::string_view key, int64_t value) {
  Key(key);
  AppendInteger(line_, value);
  return *this;
}

TraceEventWriter& TraceEventWriter::Uint(std::string_view key, uint64_t value) {
  Key(key);
  AppendInteger(line_, value);
  return *this;
}

TraceEventWriter& TraceEventWriter::Bool(std::string_view key, bool value) {
  Key(key);
  line_.append(value ? "true" : "false");
  return *this;
}

TraceEventWriter& TraceEventWriter::Micros(std::string_view key, int64_t ns) {
  Key(key);
  line_.append(MicrosText(ns));
  return *this;
}

TraceEventWriter& TraceEventWriter::Hex(std::string_view key, uint64_t value) {
  Key(key);
  line_.push_back('"');
  line_.append(HexText(value));
  line_.push_back('"');
  return *this;
}

TraceEventWriter& TraceEventWriter::Dims(std::string_view key, uint32_t x, uint32_t y, uint32_t z) {
  Key(key);
  line_.push_back('[');
  AppendInteger(line_, x);
  line_.append(", ");
  AppendInteger(line_, y);
  line_.append(", ");
  AppendInteger(line_, z);
  line_.push_back(']');
  return *this;
}

TraceEventWriter& TraceEventWriter::BeginArgs() {
  Key("args");
  line_.push_back('{');
  first_field_ = true;
  return *this;
}

TraceEventWriter& TraceEventWriter::EndArgs() {
  line_.push_back('}');
  first_field_ = false;
  return *this;
}

void TraceEventWriter::End() {
  line_.push_back('}');
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  ++events_written_;
}

void TraceEventWriter::Key(std::string_view key) {
  if (!first_field_) line_.append(", ");
  first_field_ = false;
  AppendJsonString(line_, key);
  line_.append(": ");
}

}  // namespace vprof::reporter
