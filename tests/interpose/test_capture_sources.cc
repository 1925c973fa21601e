// The capture sources' table (interpose/sources.cc): each row is whole for its
// pass, its rules agree with each other, each lifecycle row does something,
// and the Footer's counts are the trace format's kinds in their order.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "interpose/core/capture_source.h"
#include "interpose/core/trace_writer.h"
#include "interpose/sources.h"

TEST_CASE("every drain has the function its pass calls, and nothing else") {
  std::set<std::string> names;
  for (const vprof::SourceDrain& row : vprof::RegisteredSources().drains) {
    INFO(row.name);
    CHECK(names.insert(row.name).second);
    if (row.pass == vprof::DrainPass::kEachThread) {
      CHECK(row.drain_thread != nullptr);
      CHECK(row.drain == nullptr);
    } else {
      CHECK(row.drain != nullptr);
      CHECK(row.drain_thread == nullptr);
    }
    // Async-signal-safe code cannot call malloc.
    CHECK_FALSE((row.signal_safe && row.may_allocate));
  }
}

TEST_CASE("the footer counts the sources in the trace format's order") {
  std::vector<std::string> kinds;
  for (const vprof::SourceCount* count : vprof::RegisteredSources().counts) {
    kinds.push_back(count->kind);
    // Only the wrappers' calls are counted in every trace.
    CHECK(count->always == (kinds.size() == 1));
  }
  CHECK(kinds ==
        std::vector<std::string>{"nccl", "cupti", "nvtx", "nccl_plugin", "cuda_graph_nodes"});
  CHECK(kinds.size() <= vprof::TraceWriter::kMaxCounts);
}

TEST_CASE("every hooks row does something, and names a stage only where it starts") {
  std::set<std::string> names;
  bool any_after_writer = false;
  std::vector<std::string> at_cuda_init;
  for (const vprof::SourceHooks& row : vprof::RegisteredSources().hooks) {
    INFO(row.name);
    CHECK(names.insert(row.name).second);
    CHECK((row.start || row.on_tick || row.before_flush || row.reset_in_child));
    if (row.stage == vprof::StartStage::kAfterWriter) {
      CHECK(row.start != nullptr);
      any_after_writer = true;
    }
    if (row.stage == vprof::StartStage::kAtCudaInit) {
      CHECK(row.start != nullptr);
      at_cuda_init.emplace_back(row.name);
    }
  }
  // The hooks through which CUDA and NVTX call in start once the writer runs.
  CHECK(any_after_writer);
  CHECK(names.count("injection hooks") == 1);
  // GPU capture starts when the CUDA driver calls the injection hook, and nothing else does.
  CHECK(at_cuda_init == std::vector<std::string>{"GPU activity"});
}
