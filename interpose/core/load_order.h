// Objects the library needs from its first instruction.
//
// LoadFirst<T> objects are constructed before every other static initialiser
// (init_priority 101), so before vprof's own constructor runs
// EnsureInitialized(), whatever the link order; they are never destroyed
// (CUPTI and NCCL threads may still use them while static destructors run).
// They live at namespace scope, not as function-local statics, so no
// first-use guard exists for a fork() to freeze half-taken in the child.
#pragma once

#include <utility>

#define VPROF_LOAD_FIRST __attribute__((init_priority(101)))

namespace vprof {

template <typename T>
class LoadFirst {
 public:
  template <typename... Args>
  explicit LoadFirst(Args&&... args) : p_(new T(std::forward<Args>(args)...)) {}
  T& operator*() const { return *p_; }
  T* operator->() const { return p_; }
  // In a forked child: a fresh object instead of the parent's copy (for
  // locks another thread of the parent may have held at the fork).
  void RenewInChild() { p_ = new T(); }

 private:
  T* p_;  // never deleted
};

}  // namespace vprof
