#include "reporter/base/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

#include <mutex>
#include <string>

namespace vprof::reporter {
namespace {

// libprotobuf's log handler is process-wide: the lock keeps each line whole
// for a program that links the reporter and reads on several threads (vprof
// itself reads on one).
std::mutex g_log_lock;
std::ostream* g_err = nullptr;
google::protobuf::LogHandler* g_previous = nullptr;

const char* LevelName(google::protobuf::LogLevel level) {
  switch (level) {
    case google::protobuf::LOGLEVEL_INFO:
      return "INFO";
    case google::protobuf::LOGLEVEL_WARNING:
      return "WARNING";
    case google::protobuf::LOGLEVEL_ERROR:
      return "ERROR";
    case google::protobuf::LOGLEVEL_FATAL:
      return "FATAL";
  }
  return "ERROR";
}

void WriteLine(google::protobuf::LogLevel level, const char*, int, const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::lock_guard<std::mutex> lock(g_log_lock);
  if (g_err) *g_err << "vprof: libprotobuf " << LevelName(level) << ": " << line << '\n';
}

}  // namespace

ScopedProtobufLog::ScopedProtobufLog(std::ostream& err) {
  std::lock_guard<std::mutex> lock(g_log_lock);
  g_err = &err;
  g_previous = google::protobuf::SetLogHandler(WriteLine);
}

ScopedProtobufLog::~ScopedProtobufLog() {
  std::lock_guard<std::mutex> lock(g_log_lock);
  google::protobuf::SetLogHandler(g_previous);
  g_err = nullptr;
}

}  // namespace vprof::reporter
