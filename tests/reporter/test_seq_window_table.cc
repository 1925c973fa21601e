// The table of entries by (channel, seq): windows of consecutive seqs, and a
// side map for seqs far from their channel's window.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <utility>

#include "reporter/collectives/seq_window_table.h"

namespace vprof::reporter {
namespace {

using Table = SeqWindowTable<uint64_t, uint64_t>;
using Key = std::pair<uint64_t, uint64_t>;  // (channel, seq)

std::map<Key, uint64_t> Contents(Table& table) {
  std::map<Key, uint64_t> contents;
  table.ForEach([&](uint64_t channel, uint64_t seq, uint64_t value) {
    CHECK(contents.emplace(Key{channel, seq}, value).second);
  });
  return contents;
}

TEST_CASE("SeqWindowTable agrees with a map under random use") {
  // Three channels, seqs mostly near the last one used, some far behind or
  // ahead (past kMaxGap), erased in random order: what a reader of many
  // ranks' collectives, some missing, does to it.
  Table table;
  std::map<Key, uint64_t> model;
  std::minstd_rand random(7);
  uint64_t next_seq[3] = {1, 1000, 1};
  for (int step = 0; step < 20000; ++step) {
    const uint64_t channel = random() % 3;
    uint64_t seq = next_seq[channel];
    switch (random() % 8) {
      case 0:
        seq += Table::kMaxGap + random() % 100;
        break;  // far ahead
      case 1:
        seq -= std::min(seq, uint64_t{random() % 10});
        break;  // just behind
      case 2:
        seq = random() % 20;
        break;  // far behind, or not
      default:
        break;
    }
    next_seq[channel] = std::max(next_seq[channel], seq + 1);
    if (random() % 3 == 0) {
      table.Erase(channel, seq);
      model.erase({channel, seq});
    } else {
      const auto [entry, inserted] = table.TryEmplace(channel, seq);
      const auto [expected, expected_inserted] = model.try_emplace({channel, seq}, 0);
      REQUIRE(inserted == expected_inserted);
      CHECK(*entry == expected->second);
      *entry = expected->second = static_cast<uint64_t>(step) + 1;
    }
    REQUIRE(table.size() == model.size());
  }
  CHECK(Contents(table) == model);
  for (const auto& [key, value] : model) {
    const uint64_t* found = table.Find(key.first, key.second);
    REQUIRE(found != nullptr);
    CHECK(*found == value);
  }
  CHECK(table.Find(3, 1) == nullptr);
  table.clear();
  CHECK(table.size() == 0);
  CHECK(Contents(table).empty());
}

TEST_CASE("SeqWindowTable entries stay in place while their window moves") {
  Table table;
  uint64_t* first = table.TryEmplace(5, 100).first;
  *first = 42;
  // The window grows behind and ahead of it, and loses entries at both ends.
  for (uint64_t seq = 99; seq >= 50; --seq) *table.TryEmplace(5, seq).first = seq;
  for (uint64_t seq = 101; seq < 3000; ++seq) *table.TryEmplace(5, seq).first = seq;
  for (uint64_t seq = 50; seq < 100; ++seq) table.Erase(5, seq);
  for (uint64_t seq = 2000; seq < 3000; ++seq) table.Erase(5, seq);
  CHECK(*first == 42);
  CHECK(table.Find(5, 100) == first);
  CHECK(table.Find(5, 99) == nullptr);
  CHECK(*table.Find(5, 1999) == 1999);
  CHECK(table.size() == 1900);
}

TEST_CASE("SeqWindowTable finds a far seq once its window has grown over it") {
  // One rank far ahead puts seq 1 + kMaxGap + 10 in the side map; a
  // lagging rank then fills the seqs in between, and reaches it.
  Table table;
  const uint64_t far_seq = 1 + Table::kMaxGap + 10;
  *table.TryEmplace(9, 1).first = 1;
  uint64_t* far = table.TryEmplace(9, far_seq).first;
  *far = 77;
  for (uint64_t seq = 2; seq < far_seq; ++seq) *table.TryEmplace(9, seq).first = seq;
  const auto [again, inserted] = table.TryEmplace(9, far_seq);
  CHECK_FALSE(inserted);
  CHECK(again == far);
  CHECK(*table.Find(9, far_seq) == 77);
  CHECK(table.size() == far_seq);
  table.Erase(9, far_seq);
  CHECK(table.Find(9, far_seq) == nullptr);
  CHECK(table.size() == far_seq - 1);
}

}  // namespace
}  // namespace vprof::reporter
