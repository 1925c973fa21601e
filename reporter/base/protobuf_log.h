// libprotobuf's own messages ("String field ... contains invalid UTF-8"), which
// it prints to stderr by itself, routed to vprof's error stream as vprof's
// lines: "vprof: libprotobuf ERROR: ...", one line each.
#pragma once

#include <ostream>

namespace vprof::reporter {

// Routes them to `err` while it lives (one at a time; not nested across
// threads), then restores libprotobuf's previous handler.
class ScopedProtobufLog {
 public:
  explicit ScopedProtobufLog(std::ostream& err);
  ~ScopedProtobufLog();
  ScopedProtobufLog(const ScopedProtobufLog&) = delete;
  ScopedProtobufLog& operator=(const ScopedProtobufLog&) = delete;
};

}  // namespace vprof::reporter
