// Kernel names as CUPTI reports them run to hundreds of characters of
// template arguments and parameter types; the text report shows them short.
#pragma once

#include <string>
#include <string_view>

namespace vprof::reporter {

// Demangled names lose their "void " return type and parameter list, and
// template arguments nested deeper than one level become "…":
//   "void at::native::vectorized_elementwise_kernel<4, at::native::Add<float>>(int, ...)"
//   → "at::native::vectorized_elementwise_kernel<4, at::native::Add<…>>".
// Mangled names (CUPTI reports __global__ functions so) are demangled first:
// "_Z36ncclDevKernel_AllReduce_Sum_f32_RINGv" → "ncclDevKernel_AllReduce_Sum_f32_RING",
// "_ZN2at6native6kernelEv" → "at::native::kernel"; one that does not
// demangle is kept whole.
std::string ShortKernelName(std::string_view name);

}  // namespace vprof::reporter
