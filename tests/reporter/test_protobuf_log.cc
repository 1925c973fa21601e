// libprotobuf's own complaints reach vprof's error stream as vprof's lines.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "reporter/base/protobuf_log.h"
#include "vprof_trace.pb.h"

TEST_CASE("a libprotobuf error becomes one 'vprof: libprotobuf' line on vprof's stream") {
  std::ostringstream err;
  // GpuCaptureStatus.activity_kinds (field 7) is a string field: 0xff in it is not UTF-8.
  const std::string bad_kind("\x3a\x01\xff", 3);
  {
    vprof::reporter::ScopedProtobufLog routed(err);
    vprof::trace::GpuCaptureStatus status;
    CHECK_FALSE(status.ParseFromString(bad_kind));
  }
  const std::string text = err.str();
  INFO(text);
  CHECK(text.rfind("vprof: libprotobuf ERROR: ", 0) == 0);
  CHECK(text.find("activity_kinds") != std::string::npos);
  CHECK(text.find('\n') == text.size() - 1);  // one line

  // After the scope, nothing more reaches the stream.
  err.str("");
  vprof::trace::GpuCaptureStatus status;
  (void)status.ParseFromString(bad_kind);
  CHECK(err.str().empty());
}
