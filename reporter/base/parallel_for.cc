#include "reporter/base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace vprof::reporter {

void ParallelFor(unsigned jobs, size_t n, const std::function<void(size_t)>& body) {
  const size_t threads = std::min<size_t>(std::max(1u, jobs), n);
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_lock;  // guards error
  std::exception_ptr error;
  const auto run = [&] {
    for (size_t i = next++; i < n && !failed; i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(error_lock);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(run);
  run();
  for (std::thread& helper : helpers) helper.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace vprof::reporter
