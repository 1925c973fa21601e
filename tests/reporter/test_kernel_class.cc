// Kernel classes from kernel names, and the short names the text report shows.
#include <catch2/catch.hpp>

#include "reporter/gpu/kernel_class.h"
#include "reporter/render/short_kernel_name.h"

using namespace vprof::reporter;

TEST_CASE("each class is recognised from names as CUPTI reports them") {
  CHECK(KernelClassOf(
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)") == "nccl");
  CHECK(KernelClassOf("ncclKernel_AllGather_RING_LL_Sum_int8_t") == "nccl");
  CHECK(KernelClassOf("_Z31ncclDevKernel_AllGather_RING_LLv") == "nccl");
  CHECK(KernelClassOf("void vllm::cross_device_reduce_1stage<float, 8>(vllm::RankData*)") ==
        "custom_allreduce");
  CHECK(KernelClassOf("void vllm::cross_device_reduce_2stage<half, 4>()") == "custom_allreduce");
  CHECK(KernelClassOf("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64") == "gemm");
  CHECK(KernelClassOf("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT") == "gemm");
  CHECK(KernelClassOf("void cublasLt::splitKreduce_kernel<32, 16, int>()") == "gemm");
  CHECK(KernelClassOf("void flash_fwd_kernel<Flash_fwd_kernel_traits<128>>()") == "attention");
  CHECK(KernelClassOf("fmha_cutlassF_f16_aligned_64x64_rf_sm80") == "attention");
  CHECK(KernelClassOf("void at::native::vectorized_elementwise_kernel<4, Add>()") == "elementwise");
  CHECK(KernelClassOf("void at::native::unrolled_elementwise_kernel<Copy>()") == "elementwise");
  CHECK(KernelClassOf("void at::native::reduce_kernel<512, 1>()") == "reduce");
  CHECK(KernelClassOf("void cub::DeviceSegmentedReduction()") == "reduce");
  CHECK(KernelClassOf("void at::native::CatArrayBatchedCopy<float>()") == "copy");
  CHECK(KernelClassOf("triton_poi_fused_add_mul_0") == "triton");
  CHECK(KernelClassOf("void my_kernel(float*)") == "other");
  CHECK(KernelClassOf("") == "other");
}

TEST_CASE("the first matching rule decides") {
  // A cutlass template around FlashAttention is attention, not gemm.
  CHECK(KernelClassOf("void cutlass::device_kernel<flash::FlashAttnFwdSm90<>>()") == "attention");
  // A fused Triton kernel named after a copy is Triton's.
  CHECK(KernelClassOf("triton_poi_fused__to_copy_0") == "triton");
  // "triton_" counts only at the start.
  CHECK(KernelClassOf("void not_triton_kernel()") == "other");
  // NCCL's reduce-scatter is NCCL's, not "reduce".
  CHECK(KernelClassOf("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL") == "nccl");
}

TEST_CASE("short kernel names drop return type, parameters and deep template arguments") {
  CHECK(ShortKernelName("void at::native::vectorized_elementwise_kernel<4, "
                        "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>>(int, "
                        "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)") ==
        "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<…>, "
        "at::detail::Array<…>>");
  CHECK(ShortKernelName("void at::native::(anonymous namespace)::fill_kernel<float>(float*)") ==
        "at::native::(anonymous namespace)::fill_kernel<float>");
  CHECK(ShortKernelName("_Z31ncclDevKernel_AllGather_RING_LLv") ==
        "ncclDevKernel_AllGather_RING_LL");
  CHECK(ShortKernelName("_ZN2at6native6kernelEv") == "at::native::kernel");
  // As a PyTorch foreach kernel reached CUPTI on an H200 (bench/RESULTS.md, 2026-12-01 (4b9477f)).
  CHECK(ShortKernelName("_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_"
                        "a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_"
                        "24BinaryOpListAlphaFunctorIN3c108BFloat16ELi2ELi2ELi0EEEJSt4plusIfEfEEEvT_"
                        "T0_DpT1_") ==
        "at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
        "namespace)::TensorListMetadata<…>, at::native::(anonymous "
        "namespace)::BinaryOpListAlphaFunctor<…>, std::plus<…>, float>");
  CHECK(ShortKernelName("_Zbroken") == "_Zbroken");
  CHECK(ShortKernelName("triton_poi_fused_add_0") == "triton_poi_fused_add_0");
}
