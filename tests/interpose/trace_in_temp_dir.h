// Test helper: a fixture's trace, a TraceWriter begun in a fresh folder under
// /tmp that goes with the fixture, and the packets of the finished file.
#pragma once

#include <stdlib.h>
#include <sys/types.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/settings.h"
#include "interpose/core/trace_writer.h"
#include "interpose/sources.h"
#include "read_trace_file.h"

struct TraceInTempDir {
  TraceInTempDir(const char* host, pid_t pid) {
    settings.output_dir = dir;
    run.host = host;
    run.pid = pid;
    REQUIRE(writer.Init(settings, &run, vprof::RegisteredSources()));
  }
  ~TraceInTempDir() { std::filesystem::remove_all(dir); }
  TraceInTempDir(const TraceInTempDir&) = delete;
  TraceInTempDir& operator=(const TraceInTempDir&) = delete;

  // Ends the trace; every packet of its file.
  std::vector<vprof::trace::TracePacket> finished_packets() {
    REQUIRE(writer.Finish(vprof::EndReason::kExit));
    return read_trace_file(writer.path());
  }

  std::string dir = [] {
    char tmpl[] = "/tmp/vprof-test-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  vprof::Settings settings;
  vprof::RunInfo run;
  vprof::TraceWriter writer;
};
