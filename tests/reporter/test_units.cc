// Size buckets and the units of the text report.
#include <catch2/catch.hpp>

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
