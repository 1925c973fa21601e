// The table of records waiting for their match, by growing id.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "reporter/base/in_flight_table.h"

using vprof::reporter::InFlightTable;

namespace {

std::map<uint64_t, int> Contents(const InFlightTable<int>& table) {
  std::map<uint64_t, int> contents;
  table.ForEach([&](uint64_t id, int value) { CHECK(contents.emplace(id, value).second); });
  return contents;
}

}  // namespace

TEST_CASE("in-flight table: ids put out of order are found, replaced and erased") {
  InFlightTable<int> table;
  for (const uint64_t id : {5, 3, 9, 4, 12}) table.Put(id, static_cast<int>(id) * 10);
  table.Put(9, 91);  // replaces
  CHECK(table.size() == 5);
  CHECK(*table.Find(3) == 30);
  CHECK(*table.Find(9) == 91);
  CHECK(table.Find(6) == nullptr);
  CHECK(table.Find(13) == nullptr);
  table.Erase(4);
  table.Erase(4);  // twice: nothing more
  table.Erase(7);  // never put
  CHECK(table.Find(4) == nullptr);
  CHECK(table.size() == 4);
  // An erased id put again is a new entry, value-initialized by GetOrAdd.
  CHECK(table.GetOrAdd(4) == 0);
  ++table.GetOrAdd(4);
  CHECK(Contents(table) == std::map<uint64_t, int>{{3, 30}, {4, 1}, {5, 50}, {9, 91}, {12, 120}});
}

TEST_CASE("in-flight table: past its cap, the lowest ids go first") {
  InFlightTable<int> table(3);
  for (uint64_t id = 1; id <= 5; ++id) table.Put(id, static_cast<int>(id));
  CHECK(Contents(table) == std::map<uint64_t, int>{{3, 3}, {4, 4}, {5, 5}});
  table.Erase(4);
  table.Put(8, 8);  // room: two live entries before it
  CHECK(Contents(table) == std::map<uint64_t, int>{{3, 3}, {5, 5}, {8, 8}});
  table.LimitTo(1);
  table.Put(9, 9);
  CHECK(Contents(table) == std::map<uint64_t, int>{{9, 9}});
}

TEST_CASE("in-flight table: matches a std::map under a random stream, one id held throughout") {
  // Ids come nearly in order and leave nearly in order, as records do; id 1
  // is never erased (a graph launch), so erased entries pile up behind it
  // until swept.
  InFlightTable<int> table;
  std::map<uint64_t, int> expected;
  std::mt19937_64 random(7);
  table.Put(1, -1);
  expected[1] = -1;
  std::vector<uint64_t> open;
  uint64_t next = 2;
  for (int round = 0; round < 20000; ++round) {
    const uint64_t id = next + random() % 4;  // a little out of order
    next += 2;
    table.Put(id, round);
    expected[id] = round;
    open.push_back(id);
    while (open.size() > 50 || (!open.empty() && random() % 3 == 0)) {
      const size_t index = random() % std::min<size_t>(open.size(), 8);  // nearly the oldest
      table.Erase(open[index]);
      expected.erase(open[index]);
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(index));
    }
  }
  CHECK(Contents(table) == expected);
  CHECK(table.size() == expected.size());
}
