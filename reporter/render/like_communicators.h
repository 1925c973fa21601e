// Communicators that are alike, for the text report of a large run: 128
// node-local communicators of 8 ranks each, created the same way and running
// the same collectives, are 128 sections of twenty lines that differ only in
// their members and timings. One is shown in full, the rest in one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reporter/model/report.h"

namespace vprof::reporter {

// Alike: the same size, ranks seen, creator and lifecycle calls, and the
// same (collective, size bucket, count) rows, in the same order. A
// communicator with incomplete collectives is like no other: its trouble is
// shown in full.
struct LikeCommunicators {
  size_t first = 0;            // index into the report's communicators
  std::vector<size_t> others;  // the rest of the group, in report order
};

// Every communicator in exactly one group; groups in the order of their first.
std::vector<LikeCommunicators> GroupLikeCommunicators(
    const std::vector<CommunicatorReport>& communicators);

// The sentence that stands for a group's others: how many, their comm ids
// (the first and the last), and the least, median and most total collective
// time over the whole group, naming the communicator at each extreme.
std::string LikeCommunicatorsText(const std::vector<CommunicatorReport>& communicators,
                                  const LikeCommunicators& group);

}  // namespace vprof::reporter
