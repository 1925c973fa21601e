// Entries keyed by (channel, seq), where each channel numbers its entries
// 1, 2, 3... on every member: a communicator's collectives, or one rank's
// sends to one peer. Each channel keeps its live seqs in a window of
// consecutive slots, so a lookup is a small table's probe and an index, and
// entries near in seq are near in memory. A report over 1,024 ranks looks
// each collective up once per rank, from traces read a batch at a time; in a
// node-based hash map nearly every one of those lookups missed the cache.
//
// A seq more than kMaxGap from its channel's window (a numbering restarted,
// or corrupt) goes to a side map instead, so that it costs no run of empty
// slots. A channel whose entries are all erased is forgotten.
//
// Entry pointers hold until their entry is erased (a deque keeps its
// elements in place when it grows or shrinks at either end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

namespace vprof::reporter {

template <typename Channel, typename Entry, typename ChannelHash = std::hash<Channel>>
class SeqWindowTable {
 public:
  static constexpr uint64_t kMaxGap = 4096;

  // The entry of (channel, seq), made when new (second: whether it was).
  std::pair<Entry*, bool> TryEmplace(const Channel& channel, uint64_t seq) {
    Window& window = windows_[channel];
    if (std::optional<Entry>* slot = window.SlotFor(seq)) {
      if (*slot) return {&**slot, false};
      // The window may have grown over a seq that was far when it came.
      if (Entry* far = FindFar(channel, seq)) return {far, false};
      slot->emplace();
      ++size_;
      return {&**slot, true};
    }
    const auto [far, inserted] = far_.try_emplace({channel, seq});
    size_ += inserted;
    return {&far->second, inserted};
  }

  // An entry lives in its window's slot or in the side map, never both.
  Entry* Find(const Channel& channel, uint64_t seq) {
    const auto window = windows_.find(channel);
    if (window != windows_.end()) {
      std::optional<Entry>* slot = window->second.Existing(seq);
      if (slot && *slot) return &**slot;
    }
    return FindFar(channel, seq);
  }

  // Erases (channel, seq) when present.
  void Erase(const Channel& channel, uint64_t seq) {
    const auto window = windows_.find(channel);
    if (window != windows_.end()) {
      std::optional<Entry>* slot = window->second.Existing(seq);
      if (slot && *slot) {
        slot->reset();
        --size_;
        window->second.TrimEmptyEnds();
        if (window->second.slots.empty()) windows_.erase(window);
        return;
      }
    }
    size_ -= far_.erase({channel, seq});
  }

  size_t size() const { return size_; }

  // Calls visit(channel, seq, entry) for each entry, in no set order.
  template <typename Visit>
  void ForEach(Visit&& visit) {
    for (auto& [channel, window] : windows_) {
      for (size_t i = 0; i < window.slots.size(); ++i) {
        if (window.slots[i]) visit(channel, window.first_seq + i, *window.slots[i]);
      }
    }
    for (auto& [key, entry] : far_) visit(key.first, key.second, entry);
  }

  void clear() {
    windows_.clear();
    far_.clear();
    size_ = 0;
  }

 private:
  struct Window {
    uint64_t first_seq = 0;
    std::deque<std::optional<Entry>> slots;  // slots[i]: seq first_seq + i

    // The slot of `seq` when it lies in the window.
    std::optional<Entry>* Existing(uint64_t seq) {
      if (seq < first_seq || seq - first_seq >= slots.size()) return nullptr;
      return &slots[seq - first_seq];
    }
    // The slot of `seq`, the window grown to it; none when that would add
    // more than kMaxGap empty slots.
    std::optional<Entry>* SlotFor(uint64_t seq) {
      if (slots.empty()) {
        first_seq = seq;
        slots.emplace_back();
        return &slots.front();
      }
      if (seq < first_seq) {
        if (first_seq - seq > kMaxGap) return nullptr;
        for (; first_seq > seq; --first_seq) slots.emplace_front();
        return &slots.front();
      }
      const uint64_t index = seq - first_seq;
      if (index < slots.size()) return &slots[index];
      if (index - slots.size() >= kMaxGap) return nullptr;
      while (slots.size() <= index) slots.emplace_back();
      return &slots.back();
    }
    void TrimEmptyEnds() {
      while (!slots.empty() && !slots.front()) {
        slots.pop_front();
        ++first_seq;
      }
      while (!slots.empty() && !slots.back()) slots.pop_back();
    }
  };

  Entry* FindFar(const Channel& channel, uint64_t seq) {
    if (far_.empty()) return nullptr;
    const auto far = far_.find({channel, seq});
    return far != far_.end() ? &far->second : nullptr;
  }

  std::unordered_map<Channel, Window, ChannelHash> windows_;
  std::map<std::pair<Channel, uint64_t>, Entry> far_;
  size_t size_ = 0;
};

}  // namespace vprof::reporter
