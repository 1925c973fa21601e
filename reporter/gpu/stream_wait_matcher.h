// Matches one process's stream waits (GpuSync of type 2: a stream waits on a
// CUDA event) to the event records they wait for (CudaEventRecord, by
// event_sync_id), giving the edges "work on stream A must finish before
// stream B goes on".
//
// CUPTI writes a record before the waits on it, but one batch can hold many
// records of the same CUDA event (an event reused every step) ahead of the
// waits on them, since a batch groups records by type. So each event keeps
// its last kRecordsPerEvent records: memory follows the number of CUDA events
// alive, not of records. A wait whose record was pushed out by newer records
// of its event is not matched (it still counts as a wait).
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>

#include "reporter/gpu/gpu_record.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

// CUpti_ActivitySynchronizationType: a stream waits on an event.
inline constexpr uint32_t kStreamWaitEventSync = 2;

class StreamWaitMatcher {
 public:
  void AddRecord(const vprof::trace::CudaEventRecord& record);
  // Counts and matches syncs of type kStreamWaitEventSync; ignores the rest.
  void AddSync(const vprof::trace::GpuSync& sync);

  const StreamWaits& result() const { return waits_; }
  size_t held_records() const { return record_streams_.size(); }

 private:
  static constexpr size_t kRecordsPerEvent = 256;
  // (context, cuda_event) → the event_sync_ids of its latest records, oldest first.
  std::unordered_map<uint64_t, std::deque<uint64_t>> latest_records_;
  // event_sync_id → recording stream, for the records kept.
  std::unordered_map<uint64_t, uint32_t> record_streams_;
  StreamWaits waits_;
};

}  // namespace vprof::reporter
