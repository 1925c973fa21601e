// NcclLaunchLinks: which NCCL call a launch and its kernel belong to, whatever
// the order the call's event and the GPU records arrive in, keeping only what
// is in flight.
#include <catch2/catch.hpp>

#include "reporter/export/export_nccl_links.h"

using namespace vprof::reporter;

namespace {

NcclCallSite Call(uint64_t call_id, uint32_t group_depth = 0) {
  NcclCallSite call;
  call.event.set_call_id(call_id);
  call.event.set_group_depth(group_depth);
  call.event.set_seq(call_id * 10);
  call.name = "ncclAllReduce";
  call.function = NcclFunction::kAllReduce;
  call.tid = 7;
  call.enter_ns = 1000;
  call.exit_ns = 2000;
  return call;
}

vprof::trace::GpuKernel Kernel(uint32_t correlation_id) {
  vprof::trace::GpuKernel kernel;
  kernel.set_correlation_id(correlation_id);
  kernel.set_start_ns(5000 + correlation_id);
  return kernel;
}

}  // namespace

TEST_CASE("which calls launch kernels themselves") {
  CHECK(MayLaunchKernels(NcclFunction::kAllReduce, 0));
  CHECK(MayLaunchKernels(NcclFunction::kSend, 0));
  CHECK_FALSE(MayLaunchKernels(NcclFunction::kAllReduce, 1));  // queued in a group
  CHECK(MayLaunchKernels(NcclFunction::kGroupEnd, 1));         // closes the outermost group
  CHECK_FALSE(MayLaunchKernels(NcclFunction::kGroupEnd, 2));
  CHECK_FALSE(MayLaunchKernels(NcclFunction::kCommInitRank, 0));
}

TEST_CASE("a call read before its GPU records labels its API call and kernel") {
  NcclLaunchLinks links;
  CHECK(links.AddCall(Call(4), true).empty());
  links.AddExternalCorrelation(4, 40);
  CHECK(links.AddApiCall(40, true) == std::optional<uint64_t>(4));
  CHECK(links.AddApiCall(41, true) == std::nullopt);  // a launch outside any NCCL call

  const NcclLaunchLinks::KernelLink link = links.AddKernel(Kernel(40));
  CHECK_FALSE(link.held);
  CHECK(link.call_id == std::optional<uint64_t>(4));
  REQUIRE(link.call);
  CHECK(link.call->event.seq() == 40);
  CHECK(link.call->tid == 7);
  CHECK(links.held_entries() == 0);  // linked and closed: nothing left

  const NcclLaunchLinks::KernelLink other = links.AddKernel(Kernel(41));
  CHECK_FALSE(other.call_id);
  CHECK_FALSE(other.call);
}

TEST_CASE("a kernel read before its call's event is held until the event comes") {
  NcclLaunchLinks links;
  links.AddExternalCorrelation(9, 90);
  links.AddApiCall(90, true);
  const NcclLaunchLinks::KernelLink link = links.AddKernel(Kernel(90));
  CHECK(link.held);
  CHECK(link.call_id == std::optional<uint64_t>(9));
  CHECK(links.held_entries() == 1);  // the call, holding the kernel

  const auto released = links.AddCall(Call(9), true);
  REQUIRE(released.size() == 1);
  CHECK(released[0].correlation_id() == 90);
  CHECK(links.held_entries() == 0);
  CHECK(links.TakeHeld().empty());
}

TEST_CASE("an API record may come after its kernel") {
  NcclLaunchLinks links;
  links.AddCall(Call(3), true);
  links.AddExternalCorrelation(3, 30);
  CHECK(links.AddKernel(Kernel(30)).call);
  CHECK(links.held_entries() == 2);  // the correlation waits for its API record, the call for it
  CHECK(links.AddApiCall(30, true) == std::optional<uint64_t>(3));
  CHECK(links.held_entries() == 0);
}

TEST_CASE("API calls that put no work on the GPU close their correlation") {
  NcclLaunchLinks links;
  links.AddCall(Call(5), true);
  links.AddExternalCorrelation(5, 50);  // cudaEventRecord inside the call
  links.AddExternalCorrelation(5, 51);  // its kernel launch
  CHECK(links.AddApiCall(50, false) == std::optional<uint64_t>(5));
  CHECK(links.AddApiCall(51, true) == std::optional<uint64_t>(5));
  CHECK(links.held_entries() == 2);  // the call and the launch's correlation
  links.AddKernel(Kernel(51));
  CHECK(links.held_entries() == 0);
}

TEST_CASE("copies and memsets are labelled with their call but never held") {
  NcclLaunchLinks links;
  links.AddExternalCorrelation(6, 60);
  links.AddApiCall(60, true);
  CHECK(links.AddCopyOrSet(60) == std::optional<uint64_t>(6));
  CHECK(links.held_entries() == 0);  // no event yet, nothing held: not worth keeping
  CHECK(links.AddCopyOrSet(61) == std::nullopt);
}

TEST_CASE("calls that cannot launch are kept only while a correlation of theirs is open") {
  NcclLaunchLinks links;
  CHECK(links.AddCall(Call(8, 1), false).empty());  // inside a group
  CHECK(links.held_entries() == 0);
  links.AddExternalCorrelation(2, 20);
  links.AddCall(Call(2, 1), false);
  CHECK(links.held_entries() == 2);
  links.AddApiCall(20, false);
  CHECK(links.held_entries() == 0);
}

TEST_CASE("kernels whose call never came are handed back at the end") {
  NcclLaunchLinks links;
  links.AddExternalCorrelation(11, 110);
  links.AddApiCall(110, true);
  CHECK(links.AddKernel(Kernel(110)).held);
  const auto stranded = links.TakeHeld();
  REQUIRE(stranded.size() == 1);
  CHECK(stranded[0].correlation_id() == 110);
  CHECK(links.TakeHeld().empty());
}
