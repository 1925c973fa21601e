// What kind of work a GPU kernel does, guessed from its name as CUPTI reports
// it (mangled or demangled C++). The rules are one ordered table in
// kernel_class_rules.cc; the first rule that matches decides.
#pragma once

#include <string_view>

namespace vprof::reporter {

// The class for names no rule matches.
inline constexpr std::string_view kOtherKernelClass = "other";
// The class of NCCL's own kernels, which the NCCL linkage counts.
inline constexpr std::string_view kNcclKernelClass = "nccl";
// The class of optimizer kernels (PyTorch's and apex's multi_tensor_apply,
// fused Adam/SGD/LAMB): the step analysis ends inferred steps with their bursts.
inline constexpr std::string_view kOptimizerKernelClass = "optimizer";

// "nccl", "custom_allreduce", "optimizer", "attention", "gemm", "triton", "elementwise",
// "reduce", "copy", or kOtherKernelClass. Letter case is ignored.
std::string_view KernelClassOf(std::string_view kernel_name);

}  // namespace vprof::reporter
