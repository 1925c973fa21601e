// The kernel family table against kernel names real libraries launch (as profiles of
// PyTorch, cuBLAS, cuDNN and NCCL print them), each with what it is known to be: the family
// each falls in, and the cause a pair of them names.
#include <catch2/catch.hpp>
#include <string>

#include "reporter/drift/kernel_cause_rules.h"

namespace vprof::reporter {
namespace {

struct Pair {
  const char* a;
  const char* b;
  const char* family_a;
  const char* family_b;
  const char* cause;  // its start; "" when no rule names one
};

// Ground truth: how each kernel came to run.
constexpr Pair kPairs[] = {
    // H100, torch.backends.cuda.matmul.allow_tf32 False / True.
    {"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_warpgroupsize1x1x1_ffma_aligna4_"
     "alignc4_execute_kernel__5x_cublas",
     "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     "an FP32 GEMM kernel", "a TF32 GEMM kernel", "TF32 arithmetic"},
    // A100: cuBLAS's FP32 SIMT kernel, and cutlass's TF32 tensor-op SGEMM.
    {"ampere_sgemm_128x64_nn", "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
     "an FP32 GEMM kernel", "a TF32 GEMM kernel", "TF32 arithmetic"},
    // cuDNN convolutions with cudnn.allow_tf32.
    {"cutlass_80_simt_sgemm_128x128_8x4_nn_align1",
     "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
     "warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
     "an FP32 GEMM kernel", "a TF32 GEMM kernel", "TF32 arithmetic"},
    // Autocast to bf16.
    {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_aligna4_"
     "alignc4_execute_kernel__5x_cublas",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     "an FP32 GEMM kernel", "an FP16/BF16 GEMM kernel", "FP16/BF16 arithmetic"},
    // cuBLASLt split-K: FP32 partial sums, then FP16 ones (reduced precision allowed).
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, true, "
     "false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*)",
     "void cublasLt::splitKreduce_kernel<32, 16, int, __half, __half, float, __half, true, false, "
     "false>(cublasLt::cublasSplitKParams<__half>, __half const*, __half const*, __half*)",
     "a split-K reduction in FP32", "a split-K reduction in FP16/BF16",
     "reduced-precision reductions"},
    // scaled_dot_product_attention: flash, memory-efficient, cuDNN, math.
    {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
     "cutlass::bfloat16_t>, false, true, false>(pytorch_flash::Flash_fwd_params)",
     "fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::"
     "bfloat16_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)",
     "a flash attention kernel", "a memory-efficient attention kernel",
     "a different attention backend"},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, "
     "false>(float*, float const*, int, int, int, bool const*, int, bool)",
     "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x64_4x1x1_cga1x1x1_"
     "kernel0_0",
     "a softmax kernel (the math attention path)", "a cuDNN attention kernel",
     "a different attention backend"},
    // NCCL_ALGO=Ring / Tree, and NCCL_PROTO=LL / LL128 (mangled, as CUPTI names them).
    {"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
     "_Z39ncclDevKernel_AllReduce_Sum_f32_TREE_LL24ncclDevKernelArgsStorageILm4096EE",
     "an NCCL Ring kernel", "an NCCL Tree kernel", "a different NCCL algorithm"},
    {"ncclKernel_AllReduce_RING_LL_Sum_float", "ncclKernel_AllReduce_RING_LL128_Sum_float",
     "an NCCL LL kernel", "an NCCL LL128 kernel", "a different NCCL protocol"},
    {"ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE",
     "ncclDevKernel_AllReduce_Sum_bf16_TREE_SIMPLE", "an NCCL NVLS-Tree kernel",
     "an NCCL Tree kernel", "a different NCCL algorithm"},
    // Two TF32 GEMMs with other tiles (another shape): no family tells them apart.
    {"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize32x32x64_stage3_warpsize2x1x2_tensor16x8x8",
     "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize64x32x64_stage4_warpsize2x1x2_tensor16x8x8",
     "", "", ""},
};

}  // namespace

TEST_CASE("kernel pairs of known origin name their families and cause") {
  for (const Pair& p : kPairs) {
    INFO(p.a << " / " << p.b);
    const KernelCause forward = CauseOfKernelChange(p.a, p.b);
    CHECK(std::string(forward.label_a) == p.family_a);
    CHECK(std::string(forward.label_b) == p.family_b);
    CHECK(std::string(forward.cause).starts_with(p.cause));
    CHECK(forward.cause.empty() == (*p.cause == '\0'));
    // The same cause whichever run the kernel was in.
    const KernelCause backward = CauseOfKernelChange(p.b, p.a);
    CHECK(backward.cause == forward.cause);
    CHECK(backward.label_a == forward.label_b);
  }
}

TEST_CASE("a kernel one run launched and the other did not names its family's cause") {
  const KernelCause extra = CauseOfKernelChange(
      "",
      "void cublasLt::splitKreduce_kernel<32, 16, int, __nv_bfloat16, __nv_bfloat16, float, "
      "__nv_bfloat16, true, false, false>(cublasLt::cublasSplitKParams<float>)");
  CHECK(std::string(extra.cause).starts_with("reduced-precision reductions"));
  CHECK(extra.label_a.empty());
  CHECK(extra.label_b == "a split-K reduction in FP16/BF16");
  // A family without a cause of its own names none.
  CHECK(CauseOfKernelChange("ampere_sgemm_128x64_nn", "").cause.empty());
}

TEST_CASE("every family of the table has an axis, a label with its article, and a matcher") {
  for (const KernelFamily& f : KernelFamilies()) {
    CHECK(!f.axis.empty());
    CHECK((f.label.starts_with("a ") || f.label.starts_with("an ")));
    CHECK(f.matches != nullptr);
  }
}

}  // namespace vprof::reporter
