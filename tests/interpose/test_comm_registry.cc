#include <catch2/catch.hpp>
#include <set>

#include "interpose/nccl/comm_registry.h"

using vprof::CommInfo;
using vprof::CommRegistry;

namespace {

CommInfo* make(uintptr_t addr, uint64_t id) {
  auto* c = new CommInfo;  // the registry keeps infos forever, as in the library
  c->comm = reinterpret_cast<const void*>(addr);
  c->id = id;
  return c;
}

}  // namespace

TEST_CASE("find returns what was inserted, nothing for unknown pointers") {
  CommRegistry reg;
  reg.insert(make(0x1000, 11));
  reg.insert(make(0x2000, 22));
  REQUIRE(reg.find(reinterpret_cast<void*>(0x1000)) != nullptr);
  CHECK(reg.find(reinterpret_cast<void*>(0x1000))->id == 11);
  CHECK(reg.find(reinterpret_cast<void*>(0x2000))->id == 22);
  CHECK(reg.find(reinterpret_cast<void*>(0x3000)) == nullptr);
  CHECK(reg.find(nullptr) == nullptr);
}

TEST_CASE("a reused address maps to the newest communicator") {
  CommRegistry reg;
  reg.insert(make(0x1000, 1));
  reg.find(reinterpret_cast<void*>(0x1000))->destroyed = true;
  reg.insert(make(0x1000, 2));
  CHECK(reg.find(reinterpret_cast<void*>(0x1000))->id == 2);
}

TEST_CASE("destroyed communicators make room when the table is full") {
  CommRegistry reg;
  for (uintptr_t i = 1; i <= CommRegistry::kSlots; ++i) {
    REQUIRE(reg.insert(make(i * 64, i)));
  }
  CHECK_FALSE(reg.insert(make(0xdead0000, 99)));
  reg.find(reinterpret_cast<void*>(64 * 7))->destroyed = true;
  REQUIRE(reg.insert(make(0xdead0000, 99)));
  CHECK(reg.find(reinterpret_cast<void*>(0xdead0000))->id == 99);
  CHECK(reg.find(reinterpret_cast<void*>(64 * 8))->id == 8);
}

TEST_CASE("the writer sees each new communicator once, in creation order") {
  CommRegistry reg;
  size_t cursor = 0;
  reg.insert(make(0x10, 1));
  reg.insert(make(0x20, 2));
  std::vector<uint64_t> seen;
  reg.ForEachNew(&cursor, [&](const CommInfo& c) { seen.push_back(c.id); });
  reg.insert(make(0x30, 3));
  reg.ForEachNew(&cursor, [&](const CommInfo& c) { seen.push_back(c.id); });
  reg.ForEachNew(&cursor, [&](const CommInfo& c) { seen.push_back(c.id); });
  CHECK(seen == std::vector<uint64_t>{1, 2, 3});
}

TEST_CASE("communicator ids: equal inputs agree, different inputs differ, never zero") {
  unsigned char a[128] = {1, 2, 3}, b[128] = {1, 2, 4};
  CHECK(vprof::CommIdFromBytes(a, sizeof a) == vprof::CommIdFromBytes(a, sizeof a));
  CHECK(vprof::CommIdFromBytes(a, sizeof a) != vprof::CommIdFromBytes(b, sizeof b));
  std::set<uint64_t> ids;
  for (int color = 0; color < 4; ++color) {
    for (uint64_t ordinal = 1; ordinal <= 4; ++ordinal) {
      ids.insert(vprof::CommIdDerived(42, 0, ordinal, color));
    }
  }
  ids.insert(vprof::CommIdDerived(42, 1, 1, 0));  // a shrink is not a split
  CHECK(ids.size() == 17);
  CHECK(ids.count(0) == 0);
}
