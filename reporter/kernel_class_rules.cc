// The kernel class rules: the one place to change how kernels are classed.
#include <algorithm>
#include <cctype>
#include <string>

#include "reporter/kernel_class.h"

namespace vprof::reporter {
namespace {

enum class Match { kPrefix, kSubstring };

struct KernelClassRule {
  std::string_view kernel_class;
  Match match;
  std::string_view pattern;  // lower case: names are compared lower-cased
};

// Ordered: the first match wins, so the more specific classes come first.
// NCCL kernels ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_...",
// or mangled "_Z32ncclDevKernel_...") all contain "nccl". vLLM's custom
// all-reduce (cross_device_reduce_1stage/_2stage) precedes "reduce". Attention
// precedes gemm because FlashAttention 3 and cutlass FMHA kernels are
// templates over cutlass ("cutlass::device_kernel<flash::FlashAttnFwdSm90...>").
// Triton precedes elementwise/reduce/copy, whose words its fused kernel names
// repeat ("triton_poi_fused__to_copy_0").
constexpr KernelClassRule kRules[] = {
    {kNcclKernelClass, Match::kSubstring, "nccl"},
    {"custom_allreduce", Match::kSubstring, "cross_device_reduce_1stage"},
    {"custom_allreduce", Match::kSubstring, "cross_device_reduce_2stage"},
    {"attention", Match::kSubstring, "flash"},
    {"attention", Match::kSubstring, "fmha"},
    {"attention", Match::kSubstring, "attention"},
    {"gemm", Match::kSubstring, "gemm"},
    {"gemm", Match::kSubstring, "cutlass"},
    {"gemm", Match::kSubstring, "cublas"},
    {"gemm", Match::kSubstring, "sm90_xmma"},
    {"gemm", Match::kSubstring, "nvjet"},
    {"triton", Match::kPrefix, "triton_"},
    // Also vectorized_elementwise_kernel and unrolled_elementwise_kernel.
    {"elementwise", Match::kSubstring, "elementwise"},
    {"reduce", Match::kSubstring, "reduce_kernel"},
    {"reduce", Match::kSubstring, "reduction"},
    {"copy", Match::kSubstring, "copy"},
    {"copy", Match::kSubstring, "memcpy"},
};

bool Matches(const KernelClassRule& rule, std::string_view lower_name) {
  return rule.match == Match::kPrefix ? lower_name.starts_with(rule.pattern)
                                      : lower_name.find(rule.pattern) != std::string_view::npos;
}

}  // namespace

std::string_view KernelClassOf(std::string_view kernel_name) {
  std::string lower(kernel_name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const KernelClassRule& rule : kRules) {
    if (Matches(rule, lower)) return rule.kernel_class;
  }
  return kOtherKernelClass;
}

}  // namespace vprof::reporter
