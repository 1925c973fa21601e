// A sorted window of recent items that is appended near its back and
// trimmed at its front: a vector whose front is dropped a batch at a time.
// Unlike a deque, its items stay contiguous, so a binary search over them
// touches few cache lines: a report interleaves 1,024 processes' windows, and
// searching their deques' blocks was mostly cache misses.
#pragma once

#include <cstddef>
#include <vector>

namespace vprof::reporter {

template <typename T>
class TrimmedVector {
 public:
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  // Dropped items stay allocated until they are removed together, once there
  // are `trim_batch` of them and at least a quarter as many as live ones: one
  // move of the rest per `trim_batch` pop_front calls, or fewer when it is
  // long, so that a pop costs O(1) moves on average whatever the length.
  explicit TrimmedVector(size_t trim_batch) : trim_batch_(trim_batch) {}

  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size() - head_; }
  bool empty() const { return size() == 0; }
  T& front() { return items_[head_]; }
  T& back() { return items_.back(); }
  // Room for `items` live ones and a batch of dropped ones.
  void reserve(size_t items) { items_.reserve(items + trim_batch_); }

  void push_back(T item) { items_.push_back(std::move(item)); }
  iterator insert(const_iterator at, T item) { return items_.insert(at, std::move(item)); }
  iterator erase(const_iterator first, const_iterator last) { return items_.erase(first, last); }
  void pop_front() {
    if (++head_ < trim_batch_ || head_ < size() / 4) return;
    items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  // Keeps the room: a window refilled after each clear allocates once.
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  size_t head_ = 0;  // items_[0, head_) are dropped
  size_t trim_batch_;
};

}  // namespace vprof::reporter
