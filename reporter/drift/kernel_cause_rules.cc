// The kernel families and their causes: the one place to change what the
// drift audit says made two runs launch different kernels. Names are matched
// demangled and lower-cased, on the patterns the libraries use:
//  - cuBLAS/cuDNN xmma kernels name their types input_math_output:
//    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_..._cublas" is
//    FP32 in, TF32 multiplies, FP32 out; "..._f32f32_f32f32_f32_..._ffma_..."
//    runs on FP32 FMA units. cutlass names "tensorop_s1688gemm" (FP32 data on
//    the m16n8k8 TF32 tensor-core op) against "simt_sgemm" (FP32 units);
//    older cuBLAS "ampere_sgemm_128x64_nn" is FP32. Any GEMM name with "tf32"
//    is TF32 (nvjet and cutlass spell it so where they do).
//  - cuBLASLt's split-K reduction, "cublasLt::splitKreduce_kernel<32, 16, int,
//    __half, __half, float, __half, ...>", adds the partial sums in the first
//    type argument after the integers: __half or __nv_bfloat16 where reduced
//    precision reductions are allowed, float where they are not.
//  - PyTorch's scaled_dot_product_attention backends: flash
//    ("pytorch_flash::flash_fwd_kernel<...>", FlashAttention 3's
//    "flash::FlashAttnFwdSm90"), memory-efficient
//    ("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::...)"),
//    cuDNN ("cudnn_generated_fort_native_sdpa_..."), and the math path, a
//    batched GEMM and "softmax_warp_forward" or "cunn_SoftMaxForward".
//  - NCCL kernels name algorithm and protocol:
//    "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "..._TREE_LL128",
//    "..._NVLS_TREE_SIMPLE" (older "ncclKernel_AllReduce_RING_LL_Sum_float").
// Families with a cause come before the ordinary ones of their axis only
// where a name could match both; the order of the axes decides which cause
// is named when a pair of kernels differs on two of them.
#include "reporter/drift/kernel_cause_rules.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

#include "reporter/gpu/export_names.h"

namespace vprof::reporter {
namespace {

bool Has(std::string_view name, std::string_view part) {
  return name.find(part) != std::string_view::npos;
}

bool HasAny(std::string_view name, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return Has(name, p); });
}

// Attention kernels are templates over cutlass and name their types as
// GEMMs do ("fmha_cutlassF_f16_aligned_..."): their own axis decides them.
bool IsAttention(std::string_view name) {
  return HasAny(name, {"fmha", "flash", "attention", "sdpa"});
}

// A matrix multiply (or a convolution run as one) of cuBLAS, cuDNN, cutlass
// or nvjet; not the split-K reduction that follows some of them.
bool IsGemm(std::string_view name) {
  return HasAny(name, {"gemm", "xmma", "cutlass", "nvjet"}) && !Has(name, "splitkreduce") &&
         !IsAttention(name);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The type a split-K reduction adds in: its first template argument that is
// neither a number nor "int"; empty when the name has no such argument.
std::string_view SplitKReductionType(std::string_view name) {
  constexpr std::string_view kKernel = "splitkreduce_kernel<";
  const size_t at = name.find(kKernel);
  if (at == std::string_view::npos) return "";
  std::string_view args = name.substr(at + kKernel.size());
  while (!args.empty()) {
    const size_t end = args.find_first_of(",>");
    const std::string_view arg = Trim(args.substr(0, end));
    const bool number = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (!number && arg != "int") return arg;
    if (end == std::string_view::npos || args[end] == '>') break;
    args.remove_prefix(end + 1);
  }
  return "";
}

bool ReducesInHalf(std::string_view name) {
  const std::string_view type = SplitKReductionType(name);
  return HasAny(type, {"half", "bfloat16", "bf16", "fp16"});
}

bool IsNccl(std::string_view name) { return Has(name, "nccl"); }

// "_ll" as a protocol of its own, not the start of "_ll128".
bool HasLowLatency(std::string_view name) {
  for (size_t at = name.find("_ll"); at != std::string_view::npos; at = name.find("_ll", at + 1)) {
    if (name.substr(at + 3, 3) != "128") return true;
  }
  return false;
}

constexpr std::string_view kReducedReduction =
    "reduced-precision reductions (torch.backends.cuda.matmul."
    "allow_fp16_reduced_precision_reduction / allow_bf16_reduced_precision_reduction)";
constexpr std::string_view kAttentionBackend =
    "a different attention backend (torch.nn.attention.sdpa_kernel, or inputs that rule a "
    "backend out)";
constexpr std::string_view kNcclAlgorithm =
    "a different NCCL algorithm (NCCL_ALGO, or NCCL's choice for the size, topology and "
    "channels)";
constexpr std::string_view kNcclProtocol =
    "a different NCCL protocol (NCCL_PROTO, or NCCL's choice for the size)";

constexpr KernelFamily kFamilies[] = {
    {"split-K reduction precision", "a split-K reduction in FP16/BF16", kReducedReduction,
     ReducesInHalf},
    {"split-K reduction precision", "a split-K reduction in FP32", "",
     [](std::string_view n) { return SplitKReductionType(n) == "float"; }},
    {"GEMM arithmetic", "a TF32 GEMM kernel",
     "TF32 arithmetic (torch.backends.cuda.matmul.allow_tf32 / cudnn.allow_tf32, "
     "torch.set_float32_matmul_precision, NVIDIA_TF32_OVERRIDE)",
     [](std::string_view n) {
       return IsGemm(n) && HasAny(n, {"tf32", "_tensorop_s1688gemm"});
     }},
    {"GEMM arithmetic", "an FP16/BF16 GEMM kernel",
     "FP16/BF16 arithmetic (autocast, or the model's dtype)",
     [](std::string_view n) {
       return IsGemm(n) && HasAny(n, {"hgemm", "h1688gemm", "h16816gemm", "f16f16_", "bf16bf16_",
                                      "_fp16_", "_bf16_", "_f16_"});
     }},
    {"GEMM arithmetic", "an FP32 GEMM kernel", "",
     [](std::string_view n) {
       return IsGemm(n) && HasAny(n, {"sgemm", "f32f32_f32f32", "ffma"});
     }},
    {"attention backend", "a cuDNN attention kernel", kAttentionBackend,
     [](std::string_view n) {
       return Has(n, "cudnn") && HasAny(n, {"sdpa", "fmha", "flash", "attention"});
     }},
    {"attention backend", "a flash attention kernel", kAttentionBackend,
     [](std::string_view n) {
       return HasAny(n, {"flash_fwd", "flash_bwd", "flashattn", "flash::", "pytorch_flash"});
     }},
    {"attention backend", "a memory-efficient attention kernel", kAttentionBackend,
     [](std::string_view n) {
       return HasAny(n, {"fmha_cutlass", "efficient_attention", "memeffattention"});
     }},
    {"attention backend", "a softmax kernel (the math attention path)", "",
     [](std::string_view n) {
       return HasAny(n, {"softmax_warp_forward", "softmax_warp_backward", "cunn_softmaxforward",
                         "cunn_softmaxbackward"});
     }},
    {"NCCL algorithm", "an NCCL NVLS-Tree kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_nvls_tree_"); }},
    {"NCCL algorithm", "an NCCL CollNet-Direct kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_collnet_direct_"); }},
    {"NCCL algorithm", "an NCCL CollNet-Chain kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_collnet_chain_"); }},
    {"NCCL algorithm", "an NCCL NVLS kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_nvls_") && !Has(n, "_nvls_tree_"); }},
    {"NCCL algorithm", "an NCCL Tree kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_tree_") && !Has(n, "_nvls_tree_"); }},
    {"NCCL algorithm", "an NCCL Ring kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_ring_"); }},
    {"NCCL algorithm", "an NCCL PAT kernel", kNcclAlgorithm,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_pat_"); }},
    {"NCCL protocol", "an NCCL LL128 kernel", kNcclProtocol,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_ll128"); }},
    {"NCCL protocol", "an NCCL LL kernel", kNcclProtocol,
     [](std::string_view n) { return IsNccl(n) && HasLowLatency(n); }},
    {"NCCL protocol", "an NCCL Simple kernel", kNcclProtocol,
     [](std::string_view n) { return IsNccl(n) && Has(n, "_simple"); }},
};

std::string Lower(std::string_view name) {
  std::string lower = DemangledKernelName(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// The first family of `axis` that `name` belongs to; empty when none.
std::string_view LabelOn(std::string_view axis, std::string_view name) {
  if (name.empty()) return "";
  for (const KernelFamily& f : kFamilies) {
    if (f.axis == axis && f.matches(name)) return f.label;
  }
  return "";
}

}  // namespace

std::span<const KernelFamily> KernelFamilies() { return kFamilies; }

KernelCause CauseOfKernelChange(std::string_view a, std::string_view b) {
  const std::string la = a.empty() ? "" : Lower(a), lb = b.empty() ? "" : Lower(b);
  for (const KernelFamily& f : kFamilies) {
    if (f.cause.empty()) continue;
    const bool in_a = !la.empty() && f.matches(la), in_b = !lb.empty() && f.matches(lb);
    if (in_a != in_b) return {f.cause, LabelOn(f.axis, la), LabelOn(f.axis, lb)};
  }
  return {};
}

}  // namespace vprof::reporter
