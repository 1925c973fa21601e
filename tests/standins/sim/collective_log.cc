#include "collective_log.h"

#include <cstdio>

namespace sim {

void CollectiveLog::Add(Entry entry) {
  std::lock_guard lock(mutex_);
  entry.seq = ++calls_per_comm_[entry.comm];
  entries_.push_back(std::move(entry));
}

int CollectiveLog::Count(const std::string& op) const {
  std::lock_guard lock(mutex_);
  int count = 0;
  for (const Entry& entry : entries_) count += entry.op == op ? 1 : 0;
  return count;
}

bool CollectiveLog::WriteJsonLines(const std::string& path) const {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return false;
  std::lock_guard lock(mutex_);
  for (const Entry& e : entries_) {
    std::fprintf(file,
                 "{\"op\":\"%s\",\"comm\":\"%s\",\"seq\":%d,\"count\":%zu,\"dtype_bytes\":%zu,"
                 "\"bytes\":%zu,\"nranks\":%d,\"enter_ns\":%llu,\"exit_ns\":%llu}\n",
                 e.op.c_str(), e.comm.c_str(), e.seq, e.count, e.dtype_bytes,
                 e.count * e.dtype_bytes, e.nranks, static_cast<unsigned long long>(e.enter_ns),
                 static_cast<unsigned long long>(e.exit_ns));
  }
  return std::fclose(file) == 0;
}

}  // namespace sim
