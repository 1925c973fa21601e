// The most ranks vprof believes a count read from a file: NCCL worlds of
// today's largest clusters hold some 10^5 GPUs. A comm_size, nranks or
// world_size above it is a damaged or hostile file, and is refused before
// anything is sized by it (a bit per rank of 2^32 − 1 ranks is 512 MiB for
// each collective waiting for a member).
#pragma once

#include <cstdint>

namespace vprof::reporter {

inline constexpr uint32_t kMostRanks = 1u << 20;

}  // namespace vprof::reporter
