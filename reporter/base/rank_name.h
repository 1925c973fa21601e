// How the report names a process: "rank 3", or its trace file where it has
// no rank.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vprof::reporter {

inline std::string RankName(const std::optional<int32_t>& rank, const std::string& file) {
  return rank ? "rank " + std::to_string(*rank) : file;
}

}  // namespace vprof::reporter
