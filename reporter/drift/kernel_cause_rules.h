// Why two runs launched different kernels, guessed from the kernels' names:
// one ordered table (kernel_cause_rules.cc) of kernel families, each on an
// axis (GEMM arithmetic, split-K reduction precision, attention backend,
// NCCL algorithm, NCCL protocol), most with the likely cause of finding a
// kernel of that family in one run and not in the other.
#pragma once

#include <span>
#include <string_view>

namespace vprof::reporter {

struct KernelFamily {
  std::string_view axis;   // "GEMM arithmetic"
  std::string_view label;  // "a TF32 GEMM kernel"
  // Empty for the axis's ordinary family (FP32 GEMM, a softmax): a kernel of
  // it in one run only names no cause of its own.
  std::string_view cause;
  // On the name demangled and lower-cased.
  bool (*matches)(std::string_view name);
};

// The table, in the order it is tried.
std::span<const KernelFamily> KernelFamilies();

struct KernelCause {
  std::string_view cause;  // empty: no rule names one
  // The family of each kernel on the cause's axis; empty: none of them.
  std::string_view label_a, label_b;
};

// The cause of run A launching `a` where run B launched `b` (names as CUPTI
// reports them, mangled or not; empty: that run launched nothing there): the
// first family with a cause that matches exactly one of the two.
KernelCause CauseOfKernelChange(std::string_view a, std::string_view b);

}  // namespace vprof::reporter
