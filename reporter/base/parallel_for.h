// Runs body(i) for every i below n on up to `jobs` threads, the caller's
// among them, each taking the next i not yet taken. The bodies must touch
// only what is theirs (slot i of a result vector): which thread runs which i
// is not fixed. Returns once all have run; rethrows the first exception a
// body threw, after the others stopped.
#pragma once

#include <cstddef>
#include <functional>

namespace vprof::reporter {

void ParallelFor(unsigned jobs, size_t n, const std::function<void(size_t)>& body);

}  // namespace vprof::reporter
