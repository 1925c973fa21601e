// The processes' event batches as the merge takes them, read ahead on worker
// threads. Reading a batch (decoding its packets and folding them into the
// process's record: GPU activity, NVTX ranges, steps) is most of a report's
// reading time and touches only its own process, so up to `jobs` processes
// are read at once; the merge, on the calling thread, takes each process's
// batches in the file's order. Whatever the thread count, every process's
// record and the merge's order are the same, so the report is too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/ingest/trace_source.h"

namespace vprof::reporter {

// One EventBatch's NCCL calls as the merge uses them, on the common clock.
struct MergeBatch {
  bool end = false;      // no batch: the file is read to its end
  int64_t start_ns = 0;  // its earliest enter; the lowest int64 for a batch of no call
  // Its collectives, point-to-point calls and communicator teardowns, in the
  // batch's order (a teardown's size and peer unused).
  std::vector<CollectiveCall> calls;
  size_t nccl_events = 0;  // all of the batch's, those above and the others
  // The collective kernel spans read since the process's previous batch.
  std::vector<CollectiveKernelSpan> spans;
  uint64_t bytes_read = 0;  // how far into the file reading had come
};

// Where each process's collective kernel spans go, on the merge's thread.
using ProcessSpanSink = std::function<void(uint32_t process, const CollectiveKernelSpan&)>;

class ReadAhead {
 public:
  // `sources` have had Open() called; their index is the process index. They
  // must outlive this, and nothing else may read them until it is gone.
  // jobs - 1 worker threads read ahead; with 1 the caller reads each batch
  // as Next asks for it.
  ReadAhead(const std::vector<std::unique_ptr<TraceSource>>& sources, unsigned jobs);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The process's next batch, its spans first given to `spans`; at the file's
  // end one with `end` set (never called again for that process). Rethrows
  // what a worker threw.
  MergeBatch Next(uint32_t process, const ProcessSpanSink& spans);

 private:
  struct Lane {
    std::deque<MergeBatch> ready;
    std::vector<CollectiveKernelSpan> spans;  // the reader's, as TraceSource gives them
    bool reading = false;                     // a thread is reading the source, outside the lock
    bool ended = false;                       // the end's batch is queued or taken
    // Where its last batch read starts: the merge takes the processes in
    // time order, so the lane furthest behind is the one it needs soonest.
    int64_t horizon_ns = 0;
  };

  MergeBatch ReadOne(uint32_t process);
  void Work();
  // Puts a lane read (by a worker or the merge) back: its batch queued, and
  // itself offered to the workers unless it ended.
  void QueueLocked(uint32_t process, MergeBatch batch);

  const std::vector<std::unique_ptr<TraceSource>>& sources_;
  std::vector<Lane> lanes_;
  // Guards lanes_ (but a lane's spans and its source belong to the thread
  // reading it), to_read_, queued_events_, stop_ and error_. Never held while
  // reading.
  std::mutex lock_;
  std::condition_variable work_;                    // workers: a lane to read and room, or stop
  std::condition_variable ready_;                   // the merge: a batch was queued
  std::set<std::pair<int64_t, uint32_t>> to_read_;  // (horizon, process): no one reads it
  size_t queued_events_ = 0;  // NCCL events in queued batches (a batch of none counts 1)
  bool stop_ = false;
  std::exception_ptr error_;
  // Whether workers read ahead; set before they start, never changed (unlike
  // workers_, which grows while the first of them already run).
  bool read_ahead_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace vprof::reporter
