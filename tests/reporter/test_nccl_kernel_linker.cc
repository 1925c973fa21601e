// Linking NCCL calls to their kernels, and stream waits to event records, in
// any order the records arrive, keeping only what is in flight.
#include <catch2/catch.hpp>

#include "reporter/gpu/nccl_kernel_linker.h"
#include "reporter/gpu/stream_wait_matcher.h"

using namespace vprof::reporter;

namespace {

vprof::trace::NcclEvent Call(uint64_t call_id, uint32_t group_depth = 0) {
  vprof::trace::NcclEvent event;
  event.set_call_id(call_id);
  event.set_comm_id(0xabc);
  event.set_comm_size(2);
  event.set_bytes(1 << 20);
  event.set_group_depth(group_depth);
  event.set_enter_ns(1000);
  event.set_exit_ns(3000);
  return event;
}

const NcclFunctionGpuTime& Function(const NcclLinkage& linkage, NcclFunction function) {
  return linkage.functions.at(function);
}

}  // namespace

TEST_CASE("a call is linked whether its event comes before or after its kernel") {
  NcclKernelLinker linker;
  // Call 7: event first. Call 8: correlation and kernel first.
  linker.AddCall(Call(7), NcclFunction::kAllReduce);
  linker.AddExternalCorrelation(7, 42);
  linker.AddApiCall(42, true);
  linker.AddKernel(42, 0, 30000, true);
  linker.AddExternalCorrelation(8, 43);
  linker.AddKernel(43, 0, 50000, true);
  CHECK(linker.held_entries() == 1);  // call 8 waits for its event
  linker.AddCall(Call(8), NcclFunction::kAllReduce);
  CHECK(linker.held_entries() == 0);

  const NcclLinkage linkage = linker.Result();
  CHECK(linkage.calls == 2);
  CHECK(linkage.linked_calls == 2);
  CHECK(linkage.linked_kernels == 2);
  CHECK(linkage.nccl_kernels == 2);
  CHECK(linkage.unlinked_nccl_kernels == 0);
  const NcclFunctionGpuTime& all_reduce = Function(linkage, NcclFunction::kAllReduce);
  CHECK(all_reduce.calls == 2);
  CHECK(all_reduce.host_ns == 4000);
  CHECK(all_reduce.linked.linked_calls == 2);
  CHECK(all_reduce.linked.gpu_ns == 80000);
  const LinkedGpuTime& row =
      linkage.collectives.at(OpKey{0xabc, NcclFunction::kAllReduce, BucketOf(1 << 20)});
  CHECK(row.linked_calls == 2);
  CHECK(row.kernels == 2);
}

TEST_CASE("correlations of API calls that launch no kernel are dropped") {
  NcclKernelLinker linker;
  for (uint32_t i = 0; i < 1000; ++i) {
    const uint64_t call_id = i + 1;
    const uint32_t correlation = 10 * i;
    linker.AddCall(Call(call_id), NcclFunction::kAllReduce);
    // cudaEventRecord and cudaStreamWaitEvent inside the call, then the launch.
    linker.AddExternalCorrelation(call_id, correlation + 1);
    linker.AddExternalCorrelation(call_id, correlation + 2);
    linker.AddExternalCorrelation(call_id, correlation + 3);
    linker.AddApiCall(correlation + 1, false);
    linker.AddApiCall(correlation + 2, false);
    linker.AddApiCall(correlation + 3, true);
    linker.AddKernel(correlation + 3, 0, 10, true);
  }
  CHECK(linker.held_entries() == 0);
  CHECK(linker.Result().linked_calls == 1000);
}

TEST_CASE("a call that launches several kernels stays until the last has come") {
  NcclKernelLinker linker;
  linker.AddCall(Call(5, 1), NcclFunction::kGroupEnd);
  linker.AddExternalCorrelation(5, 1);
  linker.AddExternalCorrelation(5, 2);
  linker.AddKernel(1, 0, 100, true);
  CHECK(linker.held_entries() == 2);  // correlation 2 and call 5
  linker.AddKernel(2, 0, 200, true);
  CHECK(linker.held_entries() == 0);
  const NcclLinkage linkage = linker.Result();
  const NcclFunctionGpuTime& group_end = Function(linkage, NcclFunction::kGroupEnd);
  CHECK(group_end.linked.linked_calls == 1);
  CHECK(group_end.linked.kernels == 2);
  CHECK(group_end.linked.gpu_ns == 300);
  CHECK(linkage.linked_calls == 0);  // ncclGroupEnd is not a collective
  CHECK(linkage.collectives.empty());
}

TEST_CASE("calls that cannot launch kernels are not kept; unmatched ones are") {
  NcclKernelLinker linker;
  // A send inside a group: its kernel comes from ncclGroupEnd.
  linker.AddCall(Call(1, 1), NcclFunction::kSend);
  // A group start: never launches.
  linker.AddCall(Call(2), NcclFunction::kGroupStart);
  CHECK(linker.held_entries() == 0);
  // An all-reduce whose kernel never comes stays until the end.
  linker.AddCall(Call(3), NcclFunction::kAllReduce);
  CHECK(linker.held_entries() == 1);
  // An unlinked NCCL kernel (called through a handle vprof does not wrap).
  linker.AddKernel(77, 0, 5000, true);
  const NcclLinkage linkage = linker.Result();
  CHECK(linkage.calls == 2);
  CHECK(linkage.grouped_calls == 1);
  CHECK(linkage.linked_calls == 0);
  CHECK(linkage.nccl_kernels == 1);
  CHECK(linkage.unlinked_nccl_kernels == 1);
}

TEST_CASE("kernels whose call's event never comes are counted as such") {
  NcclKernelLinker linker;
  linker.AddExternalCorrelation(9, 1);
  linker.AddKernel(1, 0, 100, true);
  const NcclLinkage linkage = linker.Result();
  CHECK(linkage.linked_kernels == 1);
  CHECK(linkage.linked_kernels_without_call == 1);
}

TEST_CASE("kernel launch APIs are told from the others by name") {
  CHECK(LaunchesKernel("cudaLaunchKernel"));
  CHECK(LaunchesKernel("cudaLaunchKernelExC_v11060"));
  CHECK(LaunchesKernel("cuLaunchKernelEx"));
  CHECK(LaunchesKernel("cudaGraphLaunch"));
  CHECK_FALSE(LaunchesKernel("cudaLaunchHostFunc"));
  CHECK_FALSE(LaunchesKernel("cudaEventRecord"));
  CHECK_FALSE(LaunchesKernel("cudaMemcpyAsync"));
}

TEST_CASE("stream waits match their event's record, also when records come first") {
  StreamWaitMatcher matcher;
  vprof::trace::CudaEventRecord record;
  record.set_cuda_event(1);
  vprof::trace::GpuSync wait;
  wait.set_type(kStreamWaitEventSync);
  wait.set_stream(7);
  // One CUDA event recorded 300 times, all records read before any wait (one
  // batch groups them): only the latest 256 records can still be named.
  for (uint64_t sync_id = 1; sync_id <= 300; ++sync_id) {
    record.set_stream(sync_id % 2 == 0 ? 5 : 6);
    record.set_event_sync_id(sync_id);
    matcher.AddRecord(record);
  }
  CHECK(matcher.held_records() == 256);
  for (uint64_t sync_id = 201; sync_id <= 300; ++sync_id) {
    wait.set_event_sync_id(sync_id);
    matcher.AddSync(wait);
  }
  wait.set_event_sync_id(1);  // pushed out by newer records of its event
  matcher.AddSync(wait);
  vprof::trace::GpuSync host_wait;
  host_wait.set_type(3);  // a host thread waiting: not a stream wait
  matcher.AddSync(host_wait);

  const StreamWaits& waits = matcher.result();
  CHECK(waits.event_records == 300);
  CHECK(waits.waits == 101);
  CHECK(waits.matched_waits == 100);
  CHECK(waits.edges ==
        std::map<std::pair<uint32_t, uint32_t>, uint64_t>{{{5, 7}, 50}, {{6, 7}, 50}});
}

TEST_CASE("a linked ungrouped collective sends its kernels' span; grouped calls do not") {
  std::vector<CollectiveKernelSpan> spans;
  NcclKernelLinker linker([&](const CollectiveKernelSpan& span) { spans.push_back(span); });
  vprof::trace::NcclEvent call = Call(7);
  call.set_seq(11);
  call.set_comm_rank(1);
  // Two kernels for one call: the span is the first start to the last end.
  linker.AddExternalCorrelation(7, 42);
  linker.AddExternalCorrelation(7, 43);
  linker.AddKernel(42, 5000, 1000, true);  // 5000..6000
  linker.AddKernel(43, 7000, 500, true);   // 7000..7500
  CHECK(spans.empty());                    // its event is not read yet
  linker.AddCall(call, NcclFunction::kAllReduce);
  REQUIRE(spans.size() == 1);
  CHECK(spans[0].key == OpKey{0xabc, NcclFunction::kAllReduce, BucketOf(1 << 20)});
  CHECK(spans[0].seq == 11);
  CHECK(spans[0].comm_rank == 1);
  CHECK(spans[0].comm_size == 2);
  CHECK(spans[0].start_ns == 5000);
  CHECK(spans[0].end_ns == 7500);

  // Inside a group the ncclGroupEnd launches the kernels: no collective span.
  linker.AddCall(Call(8, 1), NcclFunction::kAllReduce);
  linker.AddCall(Call(9, 1), NcclFunction::kGroupEnd);
  linker.AddExternalCorrelation(9, 44);
  linker.AddKernel(44, 9000, 100, true);
  CHECK(spans.size() == 1);
}
