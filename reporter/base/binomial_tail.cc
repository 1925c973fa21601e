#include "reporter/base/binomial_tail.h"

#include <cmath>

namespace vprof::reporter {

double BinomialUpperTail(uint64_t k, uint64_t n, double p) {
  if (k > n || p <= 0) return 0;
  if (p >= 1) return 1;
  const double kd = static_cast<double>(k);
  const double nd = static_cast<double>(n);
  if (kd <= nd * p) return 1;
  // The first term from logarithms (C(n, k) overflows a double from n ≈ 1030);
  // past the mean each term is the last times (n − j)/(j + 1) · p/(1 − p) < 1,
  // so the sum ends once a term no longer moves it.
  double term = std::exp(std::lgamma(nd + 1) - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) +
                         kd * std::log(p) + (nd - kd) * std::log1p(-p));
  double sum = 0;
  const double odds = p / (1 - p);
  for (uint64_t j = k; j <= n && term > 0; ++j) {
    sum += term;
    if (term < sum * 1e-13) break;
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1) * odds;
  }
  return sum < 1 ? sum : 1;
}

}  // namespace vprof::reporter
