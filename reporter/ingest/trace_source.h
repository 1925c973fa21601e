// One process's trace file as a source of event batches for the merge: it
// absorbs the metadata packets (header, interned strings, communicators,
// footer), the GPU packets and the NCCL profiler-plugin packets into a
// ProcessRecord and stops at each EventBatch.
#pragma once

#include <google/protobuf/arena.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/ingest/gpu_activity_reader.h"
#include "reporter/ingest/inferred_phase_reader.h"
#include "reporter/ingest/nccl_plugin_reader.h"
#include "reporter/ingest/nvtx_phase_reader.h"
#include "reporter/ingest/process_record.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/steps/step_tracker.h"
#include "reporter/trace/gpu_batch_records.h"
#include "reporter/trace/iid_table.h"
#include "reporter/trace/trace_reader.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

// Whether a source runs the step analysis (StepTracker) as it reads: a
// report's steps need it; `vprof export`, which needs only each process's
// record, does not, and is spared its tables and its time.
enum class StepTracking : uint8_t { kOn, kOff };

class TraceSource final : private PacketParser {
 public:
  // `step_patterns`: which NVTX ranges are steps; it must outlive the source.
  explicit TraceSource(std::string path, const StepPatterns& step_patterns = DefaultStepMatcher(),
                       StepTracking step_tracking = StepTracking::kOn);

  // Reads the RunHeader. False when the file gives nothing usable (no header,
  // a newer format); record() then says why.
  bool Open();

  // Reads on to the next EventBatch, counting its events into record(). False
  // when no usable batch is left (always, when Open() failed); record() then
  // holds the file's verdict.
  bool ReadNextBatch();

  const vprof::trace::EventBatch& batch() const { return packet_->event_batch(); }
  // How far into the file reading has come.
  uint64_t bytes_read() const { return reader_.offset(); }
  NcclFunction FunctionOf(const vprof::trace::NcclEvent& event) const;
  const ProcessRecord& record() const { return record_; }
  ProcessRecord& record() { return record_; }
  // Where this process's collective kernel spans go, moved to the common
  // clock by record().clock_offset_ns; none: nowhere.
  void SendCollectiveSpansTo(CollectiveSpanSink sink) { span_sink_ = std::move(sink); }
  // How much GPU work the step analysis may hold (HeldWorksPerProcess).
  void LimitHeldStepWork(size_t works) {
    if (steps_) steps_->LimitHeldWorks(works);
  }
  // How many of the first steps keep their detail (StepStore).
  void KeepStepDetailOfFirst(uint32_t steps) {
    if (steps_) steps_->KeepDetailOfFirst(steps);
  }
  // Which steps keep their work for the replay (StepTracker::KeepReplayOf).
  void KeepStepReplayOf(uint32_t first, uint32_t steps, size_t max_works) {
    if (steps_) steps_->KeepReplayOf(first, steps, max_works);
  }

 private:
  struct InternedName {
    std::string text;
    NcclFunction function;
  };

  void AbsorbHeaderEnvironment(const vprof::trace::RunHeader& header);
  void AbsorbMetadata(const vprof::trace::TracePacket& packet);
  void DropOutOfBoundsEvents(vprof::trace::EventBatch& batch);
  void CountBatch(const vprof::trace::EventBatch& batch);
  void CountWrapperCall(const vprof::trace::NcclEvent& event, NcclFunction function);
  // The file's verdict, once reading stopped: RecordReadProblem's, and the
  // packets skipped.
  void RecordStop();
  void RecordReadProblem();
  void RecordSequenceGaps();
  void AddUnreadablePackets();
  // Reads the next packet: a GpuBatch into GpuRecords() (gpu_packet_ set),
  // any other into a fresh packet_ on arena_.
  bool ReadPacket();
  bool Parse(const void* data, int size) override;
  // Takes vprof's own kernels out of the batch first (counted apart).
  void AbsorbGpuBatch(GpuBatchRecords& batch);
  std::string NameOf(uint64_t iid) const;
  void AddCollectiveSpan(CollectiveKernelSpan span) const;

  TraceReader reader_;
  ProcessRecord record_;
  CollectiveSpanSink span_sink_;
  GpuActivityReader gpu_{[this](uint64_t iid) { return NameOf(iid); },
                         [this](const CollectiveKernelSpan& span) { AddCollectiveSpan(span); }};
  NcclPluginReader nccl_plugin_{[this](uint64_t iid) { return NameOf(iid); }};
  NvtxPhaseReader nvtx_phases_{[this](uint64_t iid) { return NameOf(iid); }};
  InferredPhaseReader inferred_phases_;
  std::optional<StepTracker> steps_;  // none with StepTracking::kOff
  // The current packet lives on an arena emptied before each read: packets
  // alternate between the oneof's kinds, and a reused message would free and
  // allocate every record of each one, one by one. The arena's first block
  // is ours and outlives each Reset(): small batches fit in it, larger ones
  // add a block or two (blocks malloc'd and freed per packet were a tenth of
  // the time of a 1,024-process report).
  static constexpr size_t kPacketBlockBytes = 16 * 1024;
  std::unique_ptr<char[]> packet_block_ = std::make_unique<char[]>(kPacketBlockBytes);
  google::protobuf::Arena arena_{PacketArenaOptions(packet_block_.get())};
  vprof::trace::TracePacket* packet_ = nullptr;
  bool gpu_packet_ = false;
  IidTable<InternedName> interned_;
  // The interned ids of vprof's own kernel names (the fingerprints' and the
  // launch-cost calibration's), and what those kernels took.
  std::vector<uint64_t> vprof_kernel_iids_;
  // Of those, the launch-cost calibration's, and the streams they ran on.
  std::vector<uint64_t> calibration_kernel_iids_;
  std::vector<uint32_t> calibration_streams_;
  ActivityTotals vprof_kernels_;
  std::string header_cut_;   // what the RunHeader's caps left out, for people; empty: nothing
  std::string footer_note_;  // threads the Footer says got no record buffer, for people
  bool footer_seen_ = false;
  std::optional<uint64_t> stalled_footer_offset_;  // a Footer of writes that stalled, where
  uint64_t packets_after_footer_ = 0;
  uint64_t first_after_footer_offset_ = 0;
  uint64_t out_of_bounds_events_ = 0;
  std::string first_out_of_bounds_;  // where the first was and what was wrong

  static google::protobuf::ArenaOptions PacketArenaOptions(char* first_block);
};

}  // namespace vprof::reporter
