// The trace event writer: exact microsecond text, one event per line, fields
// and args that an independent parser reads back, escaping.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <sstream>

#include "mini_json.h"
#include "reporter/export/export_event_writer.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

TEST_CASE("nanoseconds become microseconds with three exact decimals") {
  CHECK(MicrosText(0) == "0.000");
  CHECK(MicrosText(1) == "0.001");
  CHECK(MicrosText(999) == "0.999");
  CHECK(MicrosText(1000) == "1.000");
  CHECK(MicrosText(1234567) == "1234.567");
  CHECK(MicrosText(-500) == "-0.500");
  CHECK(MicrosText(-1234567) == "-1234.567");
  // Past 2^53 ns, where a double would already round.
  CHECK(MicrosText(9'007'199'254'740'993) == "9007199254740.993");
  CHECK(MicrosText(std::numeric_limits<int64_t>::min()) == "-9223372036854775.808");
}

TEST_CASE("ids are hex strings") {
  CHECK(HexText(0) == "0x0");
  CHECK(HexText(0xC0FFEE) == "0xc0ffee");
  CHECK(HexText(std::numeric_limits<uint64_t>::max()) == "0xffffffffffffffff");
}

TEST_CASE("events are the elements of an array, one per line, read back whole") {
  std::ostringstream out;
  out << "[";
  TraceEventWriter events(out);
  events.Begin('X')
      .String("name", "ncclAllReduce")
      .Uint("pid", 3)
      .Int("tid", -1)
      .Micros("ts", 1500)
      .Micros("dur", 250)
      .BeginArgs()
      .Hex("comm id", 0xC0FFEE)
      .Dims("grid", 4, 1, 1)
      .Bool("graph captured", true)
      .EndArgs()
      .End();
  events.Begin('M').String("name", "thread_name").BeginArgs().EndArgs().End();
  out << "]";
  CHECK(events.events_written() == 2);

  const std::string text = out.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);  // between the two events
  const JsonValue parsed = JsonValue::Parse(text);
  REQUIRE(parsed.array().size() == 2);
  const JsonValue& slice = parsed[0];
  CHECK(slice["ph"].string() == "X");
  CHECK(slice["name"].string() == "ncclAllReduce");
  CHECK(slice["pid"].number() == 3);
  CHECK(slice["tid"].number() == -1);
  CHECK(slice["ts"].number() == Approx(1.5));
  CHECK(slice["dur"].number() == Approx(0.25));
  CHECK(slice["args"]["comm id"].string() == "0xc0ffee");
  CHECK(slice["args"]["grid"][0].number() == 4);
  CHECK(slice["args"]["grid"][2].number() == 1);
  CHECK(slice["args"]["graph captured"].boolean());
  CHECK(parsed[1]["args"].object().empty());
  // The key and the value are separated by ": " (HTA finds a rank that way).
  CHECK(text.find("\"pid\": 3") != std::string::npos);
}

TEST_CASE("names that need escaping stay valid JSON") {
  std::ostringstream out;
  TraceEventWriter events(out);
  const std::string name = std::string("say \"hi\"\\\n\t") + '\x01' + "\xff" + "µs";
  events.Begin('X').String("name", name).End();
  const JsonValue parsed = JsonValue::Parse(out.str());
  CHECK(parsed["name"].string() ==
        "say \"hi\"\\\n\t\x01\xef\xbf\xbd"
        "µs");
}
