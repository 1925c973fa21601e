// Names read from a trace (interned strings, the host, thread names) as the
// reporter keeps them: cut to kMaxNameBytes between characters, "…" marking
// the cut. A report or an export writes a name once for every row or event
// that holds it, so a name of 60 MiB in one trace, uncut, could make output
// thousands of times the trace's size. No name vprof writes comes near it:
// NVTX messages are at most 95 bytes, host names 255, kernel names a few KiB.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vprof::reporter {

inline constexpr size_t kMaxNameBytes = 8192;

std::string TraceName(std::string_view name);

}  // namespace vprof::reporter
