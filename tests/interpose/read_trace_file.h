// Test helper: every whole packet of a trace file, decoded by libprotobuf.
#pragma once

#include <google/protobuf/io/coded_stream.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "vprof_trace.pb.h"

inline std::vector<vprof::trace::TracePacket> read_trace_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // The whole file must also parse as one Trace message: that is the format.
  vprof::trace::Trace whole;
  if (!whole.ParseFromString(bytes)) return {};
  return {whole.packet().begin(), whole.packet().end()};
}
