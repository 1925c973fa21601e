// The paged table of values by interned-string id.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>

#include "reporter/trace/iid_table.h"

namespace vprof::reporter {
namespace {

// Iids as a capture writes them (NCCL functions from 1, other names from
// 2^16), and one past the paged range, as another writer might.
constexpr uint64_t kIids[] = {
    1, 7, 255, 256, 65536, 65537, 70000, uint64_t{1} << 20, uint64_t{1} << 40};

TEST_CASE("IidTable keeps one value per iid, paged or not") {
  IidTable<int> table;
  for (const uint64_t iid : kIids) {
    auto [value, added] = table.try_emplace(iid);
    CHECK(added);
    CHECK(value == 0);
    value = static_cast<int>(iid % 1000) + 1;
  }
  for (const uint64_t iid : kIids) {
    auto [value, added] = table.try_emplace(iid);
    CHECK_FALSE(added);
    CHECK(value == static_cast<int>(iid % 1000) + 1);
    const int* found = table.find(iid);
    REQUIRE(found != nullptr);
    CHECK(*found == value);
  }
  for (const uint64_t absent : {uint64_t{0}, uint64_t{2}, uint64_t{65535}, uint64_t{65538},
                                uint64_t{1} << 30, (uint64_t{1} << 20) + 1}) {
    CHECK(table.find(absent) == nullptr);
  }
}

TEST_CASE("IidTable visits each iid added, once") {
  IidTable<int> table;
  std::map<uint64_t, int> expected;
  for (const uint64_t iid : kIids) {
    table.try_emplace(iid).first = static_cast<int>(iid & 0xffff) + 3;
    expected[iid] = static_cast<int>(iid & 0xffff) + 3;
  }
  std::map<uint64_t, int> visited;
  table.ForEach([&](uint64_t iid, int value) { CHECK(visited.emplace(iid, value).second); });
  CHECK(visited == expected);
}

TEST_CASE("IidTable's references outlive later additions") {
  IidTable<uint64_t> table;
  uint64_t& first = table.try_emplace(65536).first;
  first = 42;
  for (uint64_t iid = 1; iid < 5000; ++iid) table.try_emplace(65536 + iid * 3).first = iid;
  CHECK(first == 42);
  CHECK(*table.find(65536) == 42);
  CHECK(*table.find(65536 + 4999 * 3) == 4999);
}

}  // namespace
}  // namespace vprof::reporter
