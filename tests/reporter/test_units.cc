// Size buckets, the units of the text report, its wrapping, and the binomial tail.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "reporter/base/binomial_tail.h"
#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/collectives/size_bucket.h"

using namespace vprof::reporter;

TEST_CASE("sizes fall into power-of-two buckets") {
  CHECK(BucketOf(0).log2 == -1);
  CHECK(BucketOf(0).Label() == "[0B,1B)");
  CHECK(BucketOf(1).Label() == "[1B,2B)");
  CHECK(BucketOf(1023).Label() == "[512B,1KiB)");
  CHECK(BucketOf(1024).Label() == "[1KiB,2KiB)");
  CHECK(BucketOf(2047).Label() == "[1KiB,2KiB)");
  CHECK(BucketOf(1 << 20).Label() == "[1MiB,2MiB)");
  CHECK(BucketOf((1 << 21) - 1).Label() == "[1MiB,2MiB)");
  CHECK(BucketOf(3ULL << 30).Label() == "[2GiB,4GiB)");
  CHECK(BucketOf(UINT64_MAX).Label() == "[8EiB,16EiB)");

  const SizeBucket mib = BucketOf(1536 * 1024);
  CHECK(mib.min_bytes() == 1048576);
  CHECK(mib.max_bytes() == 2097152);
  CHECK(BucketOf(0).min_bytes() == 0);
  CHECK(BucketOf(0).max_bytes() == 1);
  CHECK(BucketOf(1000) < BucketOf(1024));
}

TEST_CASE("durations have three significant digits and a unit") {
  CHECK(FormatDuration(0) == "0 ns");
  CHECK(FormatDuration(850) == "850 ns");
  CHECK(FormatDuration(999.4) == "999 ns");
  CHECK(FormatDuration(999.6) == "1.00 µs");
  CHECK(FormatDuration(1234) == "1.23 µs");
  CHECK(FormatDuration(12'345) == "12.3 µs");
  CHECK(FormatDuration(123'456) == "123 µs");
  CHECK(FormatDuration(45'600'000) == "45.6 ms");
  CHECK(FormatDuration(2e9) == "2.00 s");
  CHECK(FormatDuration(-1500) == "-1.50 µs");
}

TEST_CASE("bytes use IEC units") {
  CHECK(FormatBytes(512) == "512 B");
  CHECK(FormatBytes(1024) == "1.00 KiB");
  CHECK(FormatBytes(100 << 20) == "100 MiB");
  CHECK(FormatBytes(1536ULL << 30) == "1.50 TiB");
}

TEST_CASE("counts take the noun of their number") {
  CHECK(FormatCount(0, "process", "processes") == "0 processes");
  CHECK(FormatCount(1, "process", "processes") == "1 process");
  CHECK(FormatCount(2, "deep window", "deep windows") == "2 deep windows");
}

TEST_CASE("bandwidth and ids") {
  CHECK(FormatGBps(15.72864) == "15.73");
  CHECK(FormatHexId(0xab12) == "0xab12");
  CHECK(FormatHexId(0) == "0x0");
  CHECK(FormatHexId(UINT64_MAX) == "0xffffffffffffffff");
}

TEST_CASE("the binomial upper tail against sums worked out by hand") {
  // P(X ≥ 3) for Binomial(4, 1/4): (4·3 + 1)/4^4 = 13/256.
  CHECK(BinomialUpperTail(3, 4, 0.25) == Approx(13.0 / 256).epsilon(1e-12));
  // P(X ≥ 20) for Binomial(20, 1/2): 2^-20.
  CHECK(BinomialUpperTail(20, 20, 0.5) == Approx(std::ldexp(1.0, -20)).epsilon(1e-12));
  // P(X ≥ 16) for Binomial(20, 1/2): (C(20,16) + C(20,17) + ... + 1) / 2^20 = 6196/2^20.
  CHECK(BinomialUpperTail(16, 20, 0.5) == Approx(6196.0 / 1048576).epsilon(1e-12));
  // A tail at or below the mean is not looked at: 1; beyond n: 0.
  CHECK(BinomialUpperTail(25, 100, 0.25) == 1);
  CHECK(BinomialUpperTail(101, 100, 0.25) == 0);
  // Large n from logarithms, no overflow: P(X ≥ 100) for Binomial(100, 1/1024) = 1024^-100.
  CHECK(BinomialUpperTail(100, 100, 1.0 / 1024) == Approx(std::pow(1024.0, -100)).epsilon(1e-9));
}

TEST_CASE("numbers with three significant digits") {
  CHECK(FormatNumber(24.75) == "24.8");
  CHECK(FormatNumber(1.2278016e-20) == "1.23e-20");
  CHECK(FormatNumber(12) == "12");
}

TEST_CASE("a wrapped line never parts a number from its unit") {
  std::ostringstream out;
  // At 28 columns the plain fill would break after "12.3"; the unit goes down with it.
  WriteWrapped(out, "the others wait for it 12.3 ms per step, 4.00 MiB each", "", "  ", 28);
  CHECK(out.str() == "the others wait for it\n  12.3 ms per step, 4.00 MiB\n  each\n");
}
