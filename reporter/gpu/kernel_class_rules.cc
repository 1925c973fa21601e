// The class rules: the one place to change how kernels (and the CUDA API calls
// that move data between GPUs outside NCCL) are classed.
#include <algorithm>
#include <cctype>
#include <string>

#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"

namespace vprof::reporter {
namespace {

enum class Match { kPrefix, kSubstring };
enum class Subject { kKernel, kApi };  // what the name names

struct ClassRule {
  Subject subject;
  std::string_view name_class;
  Match match;
  std::string_view pattern;  // lower case: names are compared lower-cased
};

constexpr Subject kKernel = Subject::kKernel;
constexpr Subject kApi = Subject::kApi;

// Ordered: the first match wins, so the more specific classes come first.
// NCCL kernels ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_...",
// or mangled "_Z32ncclDevKernel_...") all contain "nccl". vLLM's custom
// all-reduce (cross_device_reduce_1stage/_2stage) precedes "reduce".
// Optimizer kernels come next: torch.optim's foreach and fused paths and apex
// run as multi_tensor_apply_kernel<..., FusedAdamMathFunctor/AdamFunctor/
// LAMBStage1Functor...>, whose template arguments would otherwise match the
// later classes; the functor names are matched whole because "adam" alone is
// in "hadamard" and "lamb" in every "lambda". Attention
// precedes gemm because FlashAttention 3 and cutlass FMHA kernels are
// templates over cutlass ("cutlass::device_kernel<flash::FlashAttnFwdSm90...>").
// Triton precedes elementwise/reduce/copy, whose words its fused kernel names
// repeat ("triton_poi_fused__to_copy_0").
// API rows: CUDA IPC calls, runtime (cudaIpc*) and driver (cuIpc*), which
// colocated weight sync makes instead of NCCL calls.
constexpr ClassRule kRules[] = {
    {kKernel, kNcclKernelClass, Match::kSubstring, "nccl"},
    {kKernel, kCustomAllReduceKernelClass, Match::kSubstring, "cross_device_reduce_1stage"},
    {kKernel, kCustomAllReduceKernelClass, Match::kSubstring, "cross_device_reduce_2stage"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "multi_tensor_apply"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "fused_adam"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "adamfunctor"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "adammathfunctor"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "fused_sgd"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "sgdfunctor"},
    {kKernel, kOptimizerKernelClass, Match::kSubstring, "lambstage"},
    {kKernel, "attention", Match::kSubstring, "flash"},
    {kKernel, "attention", Match::kSubstring, "fmha"},
    {kKernel, "attention", Match::kSubstring, "attention"},
    {kKernel, "gemm", Match::kSubstring, "gemm"},
    {kKernel, "gemm", Match::kSubstring, "cutlass"},
    {kKernel, "gemm", Match::kSubstring, "cublas"},
    {kKernel, "gemm", Match::kSubstring, "sm90_xmma"},
    {kKernel, "gemm", Match::kSubstring, "nvjet"},
    {kKernel, "triton", Match::kPrefix, "triton_"},
    // Also vectorized_elementwise_kernel and unrolled_elementwise_kernel.
    {kKernel, "elementwise", Match::kSubstring, "elementwise"},
    {kKernel, "reduce", Match::kSubstring, "reduce_kernel"},
    {kKernel, "reduce", Match::kSubstring, "reduction"},
    {kKernel, "copy", Match::kSubstring, "copy"},
    {kKernel, "copy", Match::kSubstring, "memcpy"},
    {kApi, kIpcApiClass, Match::kPrefix, "cudaipc"},
    {kApi, kIpcApiClass, Match::kPrefix, "cuipc"},
};

bool Matches(const ClassRule& rule, std::string_view lower_name) {
  return rule.match == Match::kPrefix ? lower_name.starts_with(rule.pattern)
                                      : lower_name.find(rule.pattern) != std::string_view::npos;
}

// The class of the first rule for `subject` that matches, or `none`.
std::string_view ClassOf(Subject subject, std::string_view name, std::string_view none) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ClassRule& rule : kRules) {
    if (rule.subject == subject && Matches(rule, lower)) return rule.name_class;
  }
  return none;
}

}  // namespace

std::string_view KernelClassOf(std::string_view kernel_name) {
  return ClassOf(kKernel, kernel_name, kOtherKernelClass);
}

std::string_view ApiClassOf(std::string_view api_name) {
  return ClassOf(kApi, api_name, kOtherApiClass);
}

}  // namespace vprof::reporter
