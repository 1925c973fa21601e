// Writes trace events in the Chrome Trace Event Format (the JSON that Perfetto
// UI and chrome://tracing load and that Kineto writes), one event per line,
// straight to a stream. Only the event being written is held, so a timeline of
// any length costs the memory of one event.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace vprof::reporter {

// "1234.567": a count of nanoseconds as microseconds with three decimals,
// exact (no floating point), negative values with a leading '-'.
std::string MicrosText(int64_t ns);

// "0x1f": ids and handles in the form the viewers read as an id.
std::string HexText(uint64_t value);

class TraceEventWriter {
 public:
  // The events become the elements of a JSON array: the caller writes its
  // "[" before the first event and its "]" after the last.
  explicit TraceEventWriter(std::ostream& out) : out_(out) {}

  // Starts an event with its phase ("ph"); fields follow in the order added.
  TraceEventWriter& Begin(char phase);
  TraceEventWriter& String(std::string_view key, std::string_view value);
  TraceEventWriter& Int(std::string_view key, int64_t value);
  TraceEventWriter& Uint(std::string_view key, uint64_t value);
  TraceEventWriter& Bool(std::string_view key, bool value);
  // A time or duration in microseconds (MicrosText) from nanoseconds.
  TraceEventWriter& Micros(std::string_view key, int64_t ns);
  // HexText as a string: JSON numbers lose bits past 2^53.
  TraceEventWriter& Hex(std::string_view key, uint64_t value);
  // [x, y, z]: grid and block dimensions.
  TraceEventWriter& Dims(std::string_view key, uint32_t x, uint32_t y, uint32_t z);
  // "args": {...}; the fields between them go inside.
  TraceEventWriter& BeginArgs();
  TraceEventWriter& EndArgs();
  // Ends the event and writes it out.
  void End();

  uint64_t events_written() const { return events_written_; }

 private:
  void Key(std::string_view key);

  std::ostream& out_;
  std::string line_;  // the event being written, reused
  bool first_field_ = true;
  uint64_t events_written_ = 0;
};

}  // namespace vprof::reporter
