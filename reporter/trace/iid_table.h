// Values by interned-string id (iid), looked up once per record. The capture
// side numbers a process's strings in runs (NCCL function names from 1, other
// names from 2^16 up), so iids index small pages of a vector: two loads,
// where a hash map's lookup was a chain of cache misses across the 1,024
// processes' tables a report interleaves. Iids past kPagedIids (another
// writer's numbering) go to a hash map, so no iid can make the table huge.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vprof::reporter {

template <typename T>
class IidTable {
 public:
  // The value of `iid` and whether this call added it (value-initialized).
  std::pair<T&, bool> try_emplace(uint64_t iid) {
    if (iid >= kPagedIids) {
      auto [entry, added] = sparse_.try_emplace(iid);
      return {entry->second, added};
    }
    const size_t page_index = iid / kPageSize;
    if (page_index >= pages_.size()) pages_.resize(page_index + 1);
    if (!pages_[page_index]) pages_[page_index] = std::make_unique<Page>();
    Page& page = *pages_[page_index];
    const bool added = !page.present[iid % kPageSize];
    page.present[iid % kPageSize] = true;
    return {page.values[iid % kPageSize], added};
  }

  // The value of `iid`, or null when it was never added.
  const T* find(uint64_t iid) const {
    if (iid >= kPagedIids) {
      const auto entry = sparse_.find(iid);
      return entry == sparse_.end() ? nullptr : &entry->second;
    }
    const size_t page_index = iid / kPageSize;
    if (page_index >= pages_.size() || !pages_[page_index]) return nullptr;
    const Page& page = *pages_[page_index];
    return page.present[iid % kPageSize] ? &page.values[iid % kPageSize] : nullptr;
  }

  // Calls visit(iid, value) for each iid added.
  template <typename Visit>
  void ForEach(Visit visit) const {
    for (size_t page_index = 0; page_index < pages_.size(); ++page_index) {
      if (!pages_[page_index]) continue;
      for (size_t i = 0; i < kPageSize; ++i) {
        if (pages_[page_index]->present[i])
          visit(page_index * kPageSize + i, pages_[page_index]->values[i]);
      }
    }
    for (const auto& [iid, value] : sparse_) visit(iid, value);
  }

 private:
  static constexpr size_t kPageSize = 256;
  // 4,096 page slots (32 KiB of pointers at most): far above the iids a
  // capture writes (a few thousand past 2^16).
  static constexpr uint64_t kPagedIids = uint64_t{1} << 20;
  struct Page {
    std::array<T, kPageSize> values{};
    std::bitset<kPageSize> present;
  };

  std::vector<std::unique_ptr<Page>> pages_;  // by iid / kPageSize; null: none added
  std::unordered_map<uint64_t, T> sparse_;
};

}  // namespace vprof::reporter
