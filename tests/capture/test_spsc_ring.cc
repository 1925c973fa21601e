#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>

#include "spsc_ring.h"

using vprof::SpscRing;

TEST_CASE("capacity rounds down to a power of two") {
  CHECK(SpscRing<int>(1000).capacity() == 512);
  CHECK(SpscRing<int>(1024).capacity() == 1024);
  CHECK(SpscRing<int>(1).capacity() == 2);
}

TEST_CASE("a full ring drops and counts, and keeps the oldest records") {
  SpscRing<int> ring(4);
  for (int i = 0; i < 7; ++i) ring.push(i);
  CHECK(ring.take_dropped() == 3);
  CHECK(ring.take_dropped() == 0);
  std::vector<int> seen;
  ring.consume(100, [&](int v) { seen.push_back(v); });
  CHECK(seen == std::vector<int>{0, 1, 2, 3});
  CHECK(ring.empty());
  CHECK(ring.push(9));
}

TEST_CASE("consume stops at max and resumes in order") {
  SpscRing<int> ring(8);
  for (int i = 0; i < 6; ++i) ring.push(i);
  std::vector<int> seen;
  CHECK(ring.consume(4, [&](int v) { seen.push_back(v); }) == 4);
  CHECK(ring.consume(4, [&](int v) { seen.push_back(v); }) == 2);
  CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("discard empties what was pushed") {
  SpscRing<int> ring(8);
  ring.push(1);
  ring.push(2);
  ring.discard();
  CHECK(ring.empty());
  int n = 0;
  ring.consume(8, [&](int) { ++n; });
  CHECK(n == 0);
}

TEST_CASE(
    "one producer and one consumer thread: every record arrives once, in order, or is "
    "counted as dropped") {
  constexpr uint64_t kRecords = 200000;
  SpscRing<uint64_t> ring(64);
  std::thread producer([&] {
    for (uint64_t i = 1; i <= kRecords; ++i) ring.push(i);
  });
  uint64_t received = 0, last = 0, dropped = 0;
  bool ordered = true;
  auto drain = [&] {
    ring.consume(64, [&](uint64_t v) {
      ordered = ordered && v > last;
      last = v;
      ++received;
    });
    dropped += ring.take_dropped();
  };
  while (received + dropped < kRecords) drain();
  producer.join();
  drain();
  CHECK(ordered);
  CHECK(received + dropped == kRecords);
  CHECK(received > 0);
}
