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
// A mangled plain function name ("_Z36ncclDevKernel_AllReduce_Sum_f32_RINGv")
// becomes its identifier; other mangled names are kept whole.
std::string ShortKernelName(std::string_view name);

}  // namespace vprof::reporter
