// Why two runs drifted, on pairs of one-rank runs written as trace files: two fingerprinted
// all-reduces (seq 1 returns at 1,100 ns, seq 2 runs from 5,000 to 5,100 ns) and kernels
// launched around them, each an ApiCall at its launch time and a GpuKernel with its
// correlation id. `vprof diff --bitwise` must name the first kernels launched between the last
// agreeing call and the first differing one that differ, and the family table's cause;
// kernels outside that window and vprof's own kernels must not count.
#include <array>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "mini_json.h"
#include "reporter/drift/bitwise_output.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

namespace vprof::reporter {
namespace {

namespace pb = vprof::trace;
using testing::JsonValue;
using testing::ScratchDir;
using testing::TraceFileBuilder;

constexpr uint64_t kComm = 77;

struct Launch {
  std::string name;
  uint64_t at_ns;
  std::array<uint32_t, 3> grid{}, block{};
};

struct Call {
  uint64_t seq, enter_ns, exit_ns, input, output;
};

// The two calls of every run; a test changes the fingerprints of one of them.
std::vector<Call> Calls(uint64_t input2 = 20, uint64_t output1 = 11) {
  return {{1, 1000, 1100, 10, output1}, {2, 5000, 5100, input2, input2 + 1}};
}

void WriteRun(const std::string& dir, const std::vector<Call>& calls,
              const std::vector<Launch>& launches) {
  pb::RunHeader header = testing::RankHeader("host", 100, 0, 1);
  header.mutable_settings()->set_audit("fingerprint");
  header.mutable_versions()->set_nccl(22809);
  TraceFileBuilder trace(header);
  trace.AddCommunicator(kComm, 1, 0, "ncclCommInitRank");
  std::vector<pb::NcclEvent> events;
  pb::TracePacket fingerprints;
  for (const Call& c : calls) {
    pb::NcclEvent e = trace.Event("ncclAllReduce", kComm, 1, 0, c.seq, 4096, c.enter_ns, c.exit_ns);
    e.set_count(1024);
    e.set_datatype(7);
    e.set_red_op(0);
    events.push_back(e);
    pb::CollectiveFingerprint& f = *fingerprints.mutable_fingerprints()->add_fingerprint();
    f.set_comm_id(kComm);
    f.set_seq(c.seq);
    f.set_function_iid(e.function_iid());
    f.set_state(pb::FINGERPRINTED);
    f.set_input(c.input);
    f.set_output(c.output);
  }
  trace.AddBatch(events);
  trace.AddPacket(fingerprints);
  if (!launches.empty()) {
    // As CUPTI hands them over: the launches' API records, then the kernels.
    pb::TracePacket apis, kernels;
    uint32_t correlation = 1;
    for (const Launch& l : launches) {
      pb::ApiCall& api = *apis.mutable_gpu_batch()->add_api();
      api.set_name_iid(trace.Intern("cudaLaunchKernel_v7000"));
      api.set_start_ns(l.at_ns);
      api.set_duration_ns(5);
      api.set_correlation_id(correlation);
      pb::GpuKernel& k = *kernels.mutable_gpu_batch()->add_kernel();
      k.set_name_iid(trace.Intern(l.name));
      k.set_start_ns(l.at_ns + 500);
      k.set_duration_ns(100);
      k.set_correlation_id(correlation++);
      k.set_grid_x(l.grid[0]);
      k.set_grid_y(l.grid[1]);
      k.set_grid_z(l.grid[2]);
      k.set_block_x(l.block[0]);
      k.set_block_y(l.block[1]);
      k.set_block_z(l.block[2]);
    }
    trace.AddPacket(kernels);
    trace.AddPacket(apis);
  }
  trace.AddFooter();
  trace.WriteTo(dir + "/rank0.vtrace");
}

struct Output {
  std::string text;
  JsonValue json;
};

Output Compare(const ScratchDir& a, const ScratchDir& b) {
  std::ostringstream text, json, err;
  REQUIRE(RunBitwiseDiff(a.path(), b.path(), false, text, err) == 0);
  REQUIRE(RunBitwiseDiff(a.path(), b.path(), true, json, err) == 0);
  return {text.str(), JsonValue::Parse(json.str())};
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

constexpr const char* kFp32Gemm =
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_"
    "alignc4_execute_kernel__5x_cublas";
constexpr const char* kTf32Gemm =
    "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x8_"
    "execute_kernel__5x_cublas";
constexpr const char* kElementwise =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_"
    "T1_";

}  // namespace

TEST_CASE("a TF32 GEMM where A ran an FP32 one, before the first differing all-reduce") {
  ScratchDir a, b;
  // Written as capture writes them: a dimension of 1 is left out (0), and reads as 1.
  const std::array<uint32_t, 3> grid{16, 8, 0}, block{128, 0, 0};
  // Before the window and after it the runs differ too, and vprof's own kernels differ in
  // count inside it: none of that may count.
  WriteRun(a.path(), Calls(20),
           {{"kernel_before_a", 500},
            {kElementwise, 2000, {4, 1, 1}, {128, 1, 1}},
            {"vprof_fingerprint", 2500},
            {"vprof_fingerprint", 2600},
            {kFp32Gemm, 3000, grid, block},
            {kFp32Gemm, 3500, grid, block},
            {"kernel_after_a", 6000}});
  WriteRun(b.path(), Calls(21),
           {{"kernel_before_b", 500},
            {kElementwise, 2000, {4, 1, 1}, {128, 1, 1}},
            {"vprof_fingerprint", 2500},
            {kTf32Gemm, 3000, {16, 8, 1}, {256, 1, 1}},
            {kTf32Gemm, 3500, {16, 8, 1}, {256, 1, 1}},
            {"kernel_after_b", 6000}});
  const Output out = Compare(a, b);
  const JsonValue& why = out.json["why_drifted"];
  CHECK(out.json["drift"].string() == "upstream");
  CHECK(why["rank"].number() == 0);
  CHECK(why["after"]["seq"].number() == 1);
  CHECK(why["through"]["seq"].number() == 2);
  CHECK(why["a"]["kernels"].number() == 3);
  CHECK(why["b"]["kernels"].number() == 3);
  CHECK(why["first_a"]["name"].string() == kFp32Gemm);
  CHECK(why["first_a"]["launches"].number() == 2);
  CHECK(why["first_a"]["launches_other"].number() == 0);
  CHECK(why["first_a"]["grid"][0].number() == 16);
  CHECK(why["first_a"]["grid"][2].number() == 1);
  CHECK(why["first_a"]["block"][1].number() == 1);
  CHECK(why["first_b"]["name"].string() == kTf32Gemm);
  CHECK(why["first_b"]["block"][0].number() == 256);
  CHECK(why["family_a"].string() == "an FP32 GEMM kernel");
  CHECK(why["family_b"].string() == "a TF32 GEMM kernel");
  CHECK(why["cause"].string().starts_with("TF32 arithmetic"));
  CHECK(why["finding"].string().starts_with(
      "run B launched a TF32 GEMM kernel where run A launched an FP32 GEMM kernel: TF32 "
      "arithmetic"));
  CHECK(Has(out.text,
            "Why it drifted (the GPU work rank 0 launched after ncclAllReduce seq 1 "
            "returned, through ncclAllReduce seq 2):"));
  CHECK(Has(out.text, "A launched 3 kernels of 2 kinds; B 3 kernels of 2 kinds"));
  CHECK(Has(out.text, std::string("first in A: ") + kFp32Gemm +
                          " (grid 16x8x1, block 128x1x1): 2 launches in A, 0 in B"));
  CHECK(Has(out.text, std::string("first in B: ") + kTf32Gemm));
}

TEST_CASE("flash attention against memory-efficient attention is an attention backend change") {
  ScratchDir a, b;
  WriteRun(a.path(), Calls(20),
           {{"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
             "false, cutlass::half_t>, false, true>(pytorch_flash::Flash_fwd_params)",
             2000}});
  WriteRun(b.path(), Calls(21),
           {{"fmha_cutlassF_f16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
             "cutlass::half_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)",
             2000}});
  const Output out = Compare(a, b);
  const JsonValue& why = out.json["why_drifted"];
  CHECK(why["family_a"].string() == "a flash attention kernel");
  CHECK(why["family_b"].string() == "a memory-efficient attention kernel");
  CHECK(why["cause"].string().starts_with("a different attention backend"));
  CHECK(why["finding"].string().starts_with(
      "run B launched a memory-efficient attention kernel where run A launched a flash attention "
      "kernel: a different attention backend"));
}

TEST_CASE("a Ring kernel against a Tree kernel in the first collective is an NCCL algorithm") {
  ScratchDir a, b;
  // Inputs agree and outputs differ at the first call: the window runs from the start of the
  // trace through that call, whose own kernel (mangled, as CUPTI names it) is in it.
  WriteRun(a.path(), Calls(20, 11),
           {{"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
             1050,
             {2, 1, 1},
             {512, 1, 1}}});
  WriteRun(b.path(), Calls(20, 12),
           {{"_Z39ncclDevKernel_AllReduce_Sum_f32_TREE_LL24ncclDevKernelArgsStorageILm4096EE",
             1050,
             {2, 1, 1},
             {512, 1, 1}}});
  const Output out = Compare(a, b);
  const JsonValue& why = out.json["why_drifted"];
  CHECK(out.json["drift"].string() == "reduction");
  CHECK(why["after"].is_null());
  CHECK(why["through"]["seq"].number() == 1);
  CHECK(why["family_a"].string() == "an NCCL Ring kernel");
  CHECK(why["family_b"].string() == "an NCCL Tree kernel");
  CHECK(why["cause"].string().starts_with("a different NCCL algorithm"));
  CHECK(Has(out.text, "launched from the start, through ncclAllReduce seq 1"));
  CHECK(Has(out.text, "first in A: ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  CHECK(Has(out.text, "first in B: ncclDevKernel_AllReduce_Sum_f32_TREE_LL"));
}

TEST_CASE("kernels no rule knows are still named, and the same kernels are said to be the same") {
  ScratchDir a, b, same;
  WriteRun(a.path(), Calls(20), {{"my_custom_kernel_v1", 2000}, {"shared_kernel", 2100}});
  WriteRun(b.path(), Calls(21), {{"shared_kernel", 2100}, {"my_custom_kernel_v2", 2200}});
  const Output out = Compare(a, b);
  const JsonValue& why = out.json["why_drifted"];
  CHECK(why["cause"].string() == "");
  CHECK(why["finding"].string() ==
        "run B launched my_custom_kernel_v2 where run A launched my_custom_kernel_v1: no rule "
        "names a cause");
  // No dimension written: each is 1, as capture leaves 1 out.
  CHECK(Has(out.text,
            "first in A: my_custom_kernel_v1 (grid 1x1x1, block 1x1x1): 1 launch in A, 0 in B"));
  CHECK(Has(out.text,
            "first in B: my_custom_kernel_v2 (grid 1x1x1, block 1x1x1): 1 launch in B, 0 in A"));

  WriteRun(same.path(), Calls(22), {{"my_custom_kernel_v1", 2000}, {"shared_kernel", 2100}});
  const Output same_out = Compare(a, same);
  const JsonValue& alike = same_out.json["why_drifted"];
  CHECK(alike["first_a"].is_null());
  CHECK(alike["first_b"].is_null());
  CHECK(alike["finding"].string().starts_with("both runs launched the same kernels"));
}

TEST_CASE("a window without GPU records says so, and why") {
  ScratchDir a, b, outside;
  WriteRun(a.path(), Calls(20), {});
  WriteRun(b.path(), Calls(21), {});
  const Output none = Compare(a, b);
  CHECK(none.json["why_drifted"]["a"]["kernels"].number() == 0);
  CHECK(Has(none.json["why_drifted"]["a"]["no_kernels"].string(), "no kernel records"));
  CHECK(Has(none.text, "no GPU records in the window: in A its trace holds no kernel records"));

  // Kernels recorded, but none launched between the calls (lost, or run elsewhere).
  WriteRun(outside.path(), Calls(21), {{"kernel_before", 500}, {"kernel_after", 6000}});
  const Output lost = Compare(a, outside);
  const JsonValue& why = lost.json["why_drifted"];
  CHECK(why["b"]["no_kernels"].string() == "no kernel it launched there was recorded");
  CHECK(why["first_a"].is_null());
  CHECK(why["first_b"].is_null());
}

TEST_CASE("a differing call one run did not make leaves no window to compare") {
  ScratchDir a, b;
  WriteRun(a.path(), Calls(20), {{"my_custom_kernel_v1", 2000}});
  std::vector<Call> more = Calls(20);
  more.push_back({3, 8000, 8100, 30, 31});
  WriteRun(b.path(), more, {{"my_custom_kernel_v2", 2000}});
  const Output out = Compare(a, b);
  const JsonValue& why = out.json["why_drifted"];
  CHECK(out.json["drift"].string() == "metadata");
  CHECK(why["unavailable"].string() == "the call was made in one run only on rank 0");
  CHECK(why["a"].is_null());
  CHECK(why["first_a"].is_null());
  CHECK(Has(out.text, "the call was made in one run only on rank 0: no window to compare"));
}

}  // namespace vprof::reporter
