// The rings a thread records into, and the pool of them every thread shares.
#include <catch2/catch.hpp>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "interpose/core/spsc_ring.h"
#include "interpose/core/thread_buffers.h"

using vprof::SpscRing;

namespace {

// A ring with zeroed slots of its own.
template <typename T>
struct OwnedRing {
  explicit OwnedRing(size_t records)
      : slots(SpscRing<T>::CapacityFor(records)), ring(slots.data(), records) {}
  std::vector<T> slots;
  SpscRing<T> ring;
};

}  // namespace

TEST_CASE("capacity rounds down to a power of two") {
  CHECK(SpscRing<int>::CapacityFor(1000) == 512);
  CHECK(OwnedRing<int>(1000).ring.capacity() == 512);
  CHECK(OwnedRing<int>(1024).ring.capacity() == 1024);
  CHECK(OwnedRing<int>(1).ring.capacity() == 2);
}

TEST_CASE("a full ring drops and counts, and keeps the oldest records") {
  OwnedRing<int> owned(4);
  SpscRing<int>& ring = owned.ring;
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
  OwnedRing<int> owned(8);
  SpscRing<int>& ring = owned.ring;
  for (int i = 0; i < 6; ++i) ring.Push(i);
  std::vector<int> seen;
  CHECK(ring.Consume(4, [&](int v) { seen.push_back(v); }) == 4);
  CHECK(ring.Consume(4, [&](int v) { seen.push_back(v); }) == 2);
  CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("discard empties what was pushed") {
  OwnedRing<int> owned(8);
  SpscRing<int>& ring = owned.ring;
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
  OwnedRing<uint64_t> owned(64);
  SpscRing<uint64_t>& ring = owned.ring;
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

TEST_CASE("the pool of thread buffers: threads up to its bound get one, the next is turned away") {
  vprof::ThreadBuffers& buffers = vprof::GlobalThreadBuffers();
  // At the default ring sizes the pool holds 184 buffers.
  buffers.Configure(1024 * 1024 / sizeof(vprof::NcclRecord),
                    1024 * 1024 / sizeof(vprof::NvtxRecord));
  CHECK(buffers.buffer_bytes() > 1024 * 1024);
  CHECK(buffers.max_buffers() == vprof::ThreadBuffers::kPoolBytes / buffers.buffer_bytes());
  CHECK(buffers.max_buffers() * buffers.buffer_bytes() <= vprof::ThreadBuffers::kPoolBytes);
  // Rings of 2^20 NCCL records (104 MiB): two buffers fit the pool's 256 MiB, a third does not.
  buffers.Configure(1 << 20, 2);
  REQUIRE(buffers.max_buffers() == 2);

  std::latch both_hold(3), first_may_exit(1), third_may_retry(1), done(1);
  vprof::ThreadBuffer* held[2] = {};
  std::thread first([&] {
    held[0] = buffers.Current();
    both_hold.count_down();
    first_may_exit.wait();
  });
  std::thread second([&] {
    held[1] = buffers.Current();
    both_hold.count_down();
    done.wait();
  });
  vprof::ThreadBuffer* third_before = nullptr;
  vprof::ThreadBuffer* third_again = nullptr;
  vprof::ThreadBuffer* third_after = nullptr;
  uint64_t turned_away = 0;
  std::thread third([&] {
    both_hold.arrive_and_wait();
    third_before = buffers.Current();
    third_again = buffers.Current();  // asks no lock and counts no new thread
    turned_away = buffers.threads_without_buffer();
    first_may_exit.count_down();
    third_may_retry.wait();
    third_after = buffers.Current();
  });
  first.join();
  buffers.ForEach([](vprof::ThreadBuffer&) {});  // the writer frees the retired buffer
  third_may_retry.count_down();
  third.join();
  done.count_down();
  second.join();
  CHECK(held[0] != nullptr);
  CHECK(held[1] != nullptr);
  CHECK(held[0] != held[1]);
  CHECK(third_before == nullptr);
  CHECK(third_again == nullptr);
  CHECK(turned_away == 1);
  CHECK(third_after == held[0]);  // the freed buffer, handed on
  CHECK(buffers.threads_without_buffer() == 1);
}
