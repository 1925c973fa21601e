// RecordedSpans: which times lie in a span that deep windows had recording on.
#include <catch2/catch.hpp>

#include "cupti/recorded_spans.h"

using vprof::RecordedSpans;

TEST_CASE("no span holds nothing") {
  RecordedSpans spans;
  CHECK_FALSE(spans.Holds(0));
  CHECK_FALSE(spans.Holds(1000));
  spans.Close(500);  // none open: nothing changes
  CHECK_FALSE(spans.Holds(100));
}

TEST_CASE("a closed span holds [begin, end) and the open one everything after its begin") {
  RecordedSpans spans;
  spans.Open(100);
  CHECK_FALSE(spans.Holds(99));
  CHECK(spans.Holds(100));
  CHECK(spans.Holds(1'000'000));
  spans.Close(200);
  CHECK(spans.Holds(100));
  CHECK(spans.Holds(199));
  CHECK_FALSE(spans.Holds(200));
  CHECK_FALSE(spans.Holds(250));
  spans.Open(300);
  CHECK_FALSE(spans.Holds(250));
  CHECK(spans.Holds(150));
  CHECK(spans.Holds(301));
}

TEST_CASE("the oldest closed span is forgotten past kMaxSpans") {
  RecordedSpans spans;
  const size_t total = RecordedSpans::kMaxSpans + 3;
  for (uint64_t i = 0; i < total; ++i) {
    spans.Open(i * 100);
    spans.Close(i * 100 + 50);
  }
  // Spans 0, 1 and 2 were overwritten; 3 and later remain.
  for (uint64_t i = 0; i < 3; ++i) CHECK_FALSE(spans.Holds(i * 100 + 10));
  for (uint64_t i = 3; i < total; ++i) CHECK(spans.Holds(i * 100 + 10));
  for (uint64_t i = 3; i < total; ++i) CHECK_FALSE(spans.Holds(i * 100 + 60));
}
