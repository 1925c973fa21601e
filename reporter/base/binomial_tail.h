// The upper tail of the binomial distribution: how likely `k` or more
// successes in `n` trials of probability `p` are by chance. The straggler
// test asks it whether a rank that arrived last in k of its n collectives
// is late more often than chance.
#pragma once

#include <cstdint>

namespace vprof::reporter {

// P(X ≥ k) for X ~ Binomial(n, p), to about twelve significant digits; 1
// when k ≤ n·p (the tail holds half the mass or more, and no test here
// looks at such a tail), 0 when k > n.
double BinomialUpperTail(uint64_t k, uint64_t n, double p);

}  // namespace vprof::reporter
