// Nanoseconds by key, for the few keys a step's time is split by (exposure
// reasons, communicators). A report holds one per rank and step, and a step
// has a handful of keys: a sorted vector of them costs a fraction of a
// std::map's nodes. Iterates in key order, like a map.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace vprof::reporter {

template <typename Key>
class NsByKey {
 public:
  using value_type = std::pair<Key, int64_t>;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  NsByKey() = default;
  // Keys given twice add up.
  NsByKey(std::initializer_list<value_type> entries) {
    for (const auto& [key, ns] : entries) (*this)[key] += ns;
  }

  // The key's nanoseconds, added at 0 when absent.
  int64_t& operator[](const Key& key) {
    auto at = std::lower_bound(entries_.begin(), entries_.end(), key, KeyBefore);
    if (at == entries_.end() || at->first != key) at = entries_.insert(at, {key, 0});
    return at->second;
  }
  const_iterator find(const Key& key) const {
    const auto at = std::lower_bound(entries_.begin(), entries_.end(), key, KeyBefore);
    return at != entries_.end() && at->first == key ? at : entries_.end();
  }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  bool empty() const { return entries_.empty(); }
  // Room for `keys` keys: a step's analysis knows how many it will add.
  void reserve(size_t keys) { entries_.reserve(keys); }
  size_t size() const { return entries_.size(); }
  bool operator==(const NsByKey&) const = default;

 private:
  static bool KeyBefore(const value_type& entry, const Key& key) { return entry.first < key; }

  std::vector<value_type> entries_;
};

}  // namespace vprof::reporter
