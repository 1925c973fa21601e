#include "reporter/gpu/stream_wait_matcher.h"

namespace vprof::reporter {

void StreamWaitMatcher::AddRecord(const vprof::trace::CudaEventRecord& record) {
  ++waits_.event_records;
  if (record.event_sync_id() == 0) return;  // nothing can name it
  const uint64_t event = (uint64_t{record.context()} << 32) | record.cuda_event();
  std::deque<uint64_t>& kept = latest_records_[event];
  if (kept.size() == kRecordsPerEvent) {
    record_streams_.erase(kept.front());
    kept.pop_front();
  }
  kept.push_back(record.event_sync_id());
  record_streams_[record.event_sync_id()] = record.stream();
}

void StreamWaitMatcher::AddSync(const vprof::trace::GpuSync& sync) {
  if (sync.type() != kStreamWaitEventSync) return;
  ++waits_.waits;
  const auto record = record_streams_.find(sync.event_sync_id());
  if (sync.event_sync_id() == 0 || record == record_streams_.end()) return;
  ++waits_.matched_waits;
  ++waits_.edges[{record->second, sync.stream()}];
}

}  // namespace vprof::reporter
