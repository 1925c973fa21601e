#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>

#include "capture/core/spsc_ring.h"

using vprof::SpscRing;

TEST_CASE("capacity rounds down to a power of two") {
  CHECK(SpscRing<int>(1000).capacity() == 512);
  CHECK(SpscRing<int>(1024).capacity() == 1024);
  CHECK(SpscRing<int>(1).capacity() == 2);
}

TEST_CASE("a full ring drops and counts, and keeps the oldest records") {
  SpscRing<int> ring(4);
  for (int i = 0; i < 7; ++i) ring.Push(i);
  CHECK(ring.TakeDropped() == 3);
  CHECK(ring.TakeDropped() == 0);
  std::vector<int> seen;
  ring.Consume(100, [&](int v) { seen.push_back(v); });
  CHECK(seen == std::vector<int>{0, 1, 2, 3});
  CHECK(ring.empty());
  CHECK(ring.Push(9));
}

TEST_CASE("consume stops at max and resumes in order") {
  SpscRing<int> ring(8);
  for (int i = 0; i < 6; ++i) ring.Push(i);
  std::vector<int> seen;
  CHECK(ring.Consume(4, [&](int v) { seen.push_back(v); }) == 4);
  CHECK(ring.Consume(4, [&](int v) { seen.push_back(v); }) == 2);
  CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("discard empties what was pushed") {
  SpscRing<int> ring(8);
  ring.Push(1);
  ring.Push(2);
  ring.Discard();
  CHECK(ring.empty());
  int n = 0;
  ring.Consume(8, [&](int) { ++n; });
  CHECK(n == 0);
}

TEST_CASE(
    "one producer and one consumer thread: every record arrives once, in order, or is "
    "counted as dropped") {
  constexpr uint64_t kRecords = 200000;
  SpscRing<uint64_t> ring(64);
  std::thread producer([&] {
    for (uint64_t i = 1; i <= kRecords; ++i) ring.Push(i);
  });
  uint64_t received = 0, last = 0, dropped = 0;
  bool ordered = true;
  auto drain = [&] {
    ring.Consume(64, [&](uint64_t v) {
      ordered = ordered && v > last;
      last = v;
      ++received;
    });
    dropped += ring.TakeDropped();
  };
  while (received + dropped < kRecords) drain();
  producer.join();
  drain();
  CHECK(ordered);
  CHECK(received + dropped == kRecords);
  CHECK(received > 0);
}
