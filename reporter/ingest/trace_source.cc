#include "reporter/ingest/trace_source.h"

#include <algorithm>

#include "reporter/base/rank_bounds.h"
#include "reporter/base/units.h"
#include "reporter/gpu/vprof_kernels.h"
#include "reporter/trace/clock_alignment.h"
#include "reporter/trace/trace_names.h"
#include "vprof_trace_fields.h"

namespace vprof::reporter {
namespace {

// ncclResult_t values of calls that enqueued their work: ncclSuccess, and
// ncclInProgress for communicators in non-blocking mode.
constexpr int32_t kNcclSuccess = 0;
constexpr int32_t kNcclInProgress = 7;

std::string ProblemAt(std::string_view what, uint64_t offset, std::string_view detail,
                      uint64_t packets_before) {
  std::string text =
      std::string(what) + " at byte " + std::to_string(offset) + ": " + std::string(detail) + "; ";
  text += packets_before == 0
              ? "nothing before it to use"
              : "using the " + std::to_string(packets_before) + " packets before it";
  return text;
}

// What the capture's caps left out of the RunHeader (HeaderCut), for people.
std::string HeaderCutText(const vprof::trace::HeaderCut& cut) {
  std::vector<std::string> parts;
  if (cut.argv_args_cut() > 0) {
    parts.push_back(FormatCount(cut.argv_args_cut(), "argument", "arguments") +
                    " cut or left out past the first " + FormatBytes(cut.argv_cap_bytes()) +
                    " of argv");
  }
  if (cut.env_vars_left_out() > 0) {
    parts.push_back(FormatCount(cut.env_vars_left_out(), "variable", "variables") +
                    " left out past the first " + FormatBytes(cut.env_cap_bytes()) +
                    " of the environment");
  }
  if (cut.env_values_cut() > 0) {
    parts.push_back(FormatCount(cut.env_values_cut(), "value", "values") + " cut at " +
                    FormatBytes(cut.env_value_cap_bytes()));
  }
  std::string text = "the RunHeader holds the command line and environment up to vprof's caps";
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? ": " : "; ") + parts[i];
  return text;
}

// The GpuBatch just read, decoded. Every source of a report reads on this
// thread and hands a batch to its readers before reading the next packet, so
// they share one set of rows, kept as large as the largest batch.
GpuBatchRecords& GpuRecords() {
  thread_local GpuBatchRecords records;
  return records;
}

}  // namespace

TraceSource::TraceSource(std::string path, const StepPatterns& step_patterns,
                         StepTracking step_tracking)
    : reader_(path) {
  record_.path = std::move(path);
  if (step_tracking == StepTracking::kOn) {
    steps_.emplace([this](uint64_t iid) { return NameOf(iid); }, step_patterns);
  }
}

bool TraceSource::Open() {
  if (!ReadPacket()) {
    RecordStop();
    return false;
  }
  if (!packet_->has_run_header()) {
    record_.state = InputState::kCorrupt;
    record_.problem = reader_.unreadable_packets() > 0
                          ? "the first packet does not parse (no RunHeader); file skipped"
                          : "the first packet is not a RunHeader; file skipped";
    return false;
  }
  const vprof::trace::RunHeader& header = packet_->run_header();
  record_.host = TraceName(header.host());
  record_.pid = header.pid();
  record_.start_ns = header.start_ns();
  if (header.format_version() > vprof::schema::kFormatVersion) {
    record_.state = InputState::kNewerFormat;
    record_.problem = "format_version " + std::to_string(header.format_version()) +
                      " is newer than this vprof reads (" +
                      std::to_string(vprof::schema::kFormatVersion) + "); file skipped";
    return false;
  }
  if (const auto offset = ClockOffsetIn(*packet_)) record_.clock_samples.Add(*offset);
  if (header.rank().has_rank() && header.rank().rank() >= 0) {
    record_.header_rank = header.rank().rank();
  }
  AbsorbHeaderEnvironment(header);
  if (header.has_cut()) header_cut_ = HeaderCutText(header.cut());
  if (steps_) steps_->AddEnvironment(header);
  inferred_phases_.AddHeader(header);
  record_.opened = true;
  return true;
}

bool TraceSource::ReadNextBatch() {
  if (!record_.opened) return false;
  while (ReadPacket()) {
    // A writer ends its file with the Footer: what follows is another's bytes
    // (two traces joined, an append), not this process's records.
    if (footer_seen_) {
      if (packets_after_footer_++ == 0) first_after_footer_offset_ = reader_.offset();
      continue;
    }
    if (gpu_packet_) {
      AbsorbGpuBatch(GpuRecords());
      continue;
    }
    if (packet_->has_event_batch()) {
      DropOutOfBoundsEvents(*packet_->mutable_event_batch());
      CountBatch(packet_->event_batch());
      return true;
    }
    AbsorbMetadata(*packet_);
  }
  record_.gpu = gpu_.Result();
  record_.gpu.vprof_kernels = vprof_kernels_;
  record_.nccl_plugin = nccl_plugin_.Result();
  record_.nvtx_phases = nvtx_phases_.Result();
  record_.inferred_phase_input = inferred_phases_.Result(record_.gpu.kernels_by_name);
  if (steps_) {
    record_.steps = steps_->Finish();
    record_.inferred_phase_input->off_main_thread_kernels = steps_->OffMainThreadKernels();
    record_.inferred_phase_input->forward_only_kernels = steps_->ForwardOnlyKernels();
  }
  RecordStop();
  return false;
}

NcclFunction TraceSource::FunctionOf(const vprof::trace::NcclEvent& event) const {
  const InternedName* found = interned_.find(event.function_iid());
  return found ? found->function : NcclFunction::kUnknown;
}

void TraceSource::AbsorbHeaderEnvironment(const vprof::trace::RunHeader& header) {
  for (const auto& variable : header.env()) {
    if (variable.redacted()) continue;
    if (variable.name().starts_with("NCCL_")) {
      record_.nccl_env[variable.name()] = variable.value();
    } else if (variable.name() == "LD_PRELOAD") {
      record_.ld_preload = variable.value();
    }
  }
}

void TraceSource::AbsorbMetadata(const vprof::trace::TracePacket& packet) {
  switch (packet.data_case()) {
    case vprof::trace::TracePacket::kInternedString: {
      const auto& interned = packet.interned_string();
      interned_.try_emplace(interned.iid()).first = {TraceName(interned.str()),
                                                     NcclFunctionFromName(interned.str())};
      // vprof's own kernels are not the program's (vprof_kernels.h); the
      // calibration's run on a stream of vprof's, whose event records and syncs
      // are not the program's either.
      if (IsVprofKernel(interned.str())) vprof_kernel_iids_.push_back(interned.iid());
      if (IsCalibrationKernel(interned.str())) calibration_kernel_iids_.push_back(interned.iid());
      break;
    }
    case vprof::trace::TracePacket::kCommunicator: {
      const auto& comm = packet.communicator();
      CommunicatorMembership& membership = record_.communicators[comm.comm_id()];
      membership.nranks = comm.nranks();
      membership.rank = comm.rank();
      membership.created_by = NameOf(comm.created_by_iid());
      membership.parent_comm_id = comm.parent_comm_id();
      membership.cuda_device = comm.cuda_device();
      membership.create_ns =
          comm.create_end_ns() >= comm.create_begin_ns()
              ? static_cast<int64_t>(comm.create_end_ns() - comm.create_begin_ns())
              : 0;
      break;
    }
    case vprof::trace::TracePacket::kFooter: {
      const auto& footer = packet.footer();
      footer_seen_ = true;
      record_.end_reason = footer.reason();
      // The Footer of writes that stalled follows the packets its last write lost, and says
      // so (assemble.cc): the gap before it is that loss, not one more.
      if (footer.reason() == vprof::trace::END_REASON_WRITES_STALLED) {
        stalled_footer_offset_ = reader_.offset();
      }
      record_.signal = footer.signal();
      record_.write_errors = footer.write_errors();
      if (footer.threads_without_buffer() > 0) {
        footer_note_ = FormatCount(footer.threads_without_buffer(), "thread", "threads") +
                       " found all of vprof's record buffers (" +
                       FormatBytes(footer.buffer_pool_bytes()) +
                       " in all) taken by other threads: their NCCL calls and NVTX ranges "
                       "were dropped (counted as dropped NCCL events)";
      } else {
        footer_note_.clear();
      }
      // The Footer's counts are the run's totals, the drops already reported
      // in batches included, so they replace the batches' sum.
      record_.dropped_events = 0;
      for (const auto& kind : footer.counts()) {
        record_.dropped_events += kind.dropped();
        record_.footer_dropped[kind.kind()] += kind.dropped();
      }
      break;
    }
    case vprof::trace::TracePacket::kClockSample:
      if (const auto offset = ClockOffsetIn(packet)) record_.clock_samples.Add(*offset);
      break;
    case vprof::trace::TracePacket::kGpuCapture:
      gpu_.AddCaptureStatus(packet.gpu_capture());
      break;
    case vprof::trace::TracePacket::kDeviceMemory:
      gpu_.AddDeviceMemory(packet.device_memory());
      break;
    case vprof::trace::TracePacket::kDeviceMemorySampling:
      gpu_.AddDeviceMemorySampling(packet.device_memory_sampling());
      break;
    case vprof::trace::TracePacket::kNcclPluginBatch:
      nccl_plugin_.AddBatch(packet.nccl_plugin_batch());
      break;
    case vprof::trace::TracePacket::kInjection:
      nccl_plugin_.AddInjectionStatus(packet.injection());
      break;
    case vprof::trace::TracePacket::kNvtxBatch:
      nvtx_phases_.AddBatch(packet.nvtx_batch());
      if (steps_) steps_->AddNvtxBatch(packet.nvtx_batch());
      break;
    case vprof::trace::TracePacket::kDeepWindow:
      if (steps_) steps_->AddDeepWindow(packet.deep_window());
      break;
    case vprof::trace::TracePacket::kProcessTitle:
      inferred_phases_.AddProcessTitle(packet.process_title());
      break;
    case vprof::trace::TracePacket::kLoadedLibraries:
      inferred_phases_.AddLoadedLibraries(packet.loaded_libraries());
      break;
    default:  // threads are not reported yet
      break;
  }
}

// A comm_size or comm_rank no NCCL world has sizes the matcher's tables
// (collective_matcher.h): such an event is not used, and counted.
void TraceSource::DropOutOfBoundsEvents(vprof::trace::EventBatch& batch) {
  auto& events = *batch.mutable_nccl();
  const auto kept = std::remove_if(events.begin(), events.end(), [&](const auto& event) {
    std::string why;
    if (event.comm_size() > kMostRanks) {
      why = "field comm_size: expected at most " + std::to_string(kMostRanks) + " ranks, got " +
            std::to_string(event.comm_size());
    } else if (event.comm_size() > 0 && event.comm_rank() >= event.comm_size()) {
      why = "field comm_rank: expected below comm_size " + std::to_string(event.comm_size()) +
            ", got " + std::to_string(event.comm_rank());
    } else {
      return false;
    }
    if (out_of_bounds_events_++ == 0) {
      first_out_of_bounds_ = "byte " + std::to_string(reader_.offset()) + ": " + why;
    }
    return true;
  });
  events.erase(kept, events.end());
}

void TraceSource::CountBatch(const vprof::trace::EventBatch& batch) {
  record_.nccl_events += static_cast<uint64_t>(batch.nccl_size());
  record_.dropped_events += batch.dropped();
  for (const auto& event : batch.nccl()) {
    if (event.result() != 0) ++record_.failed_calls;
    gpu_.AddNcclCall(event, FunctionOf(event));
    if (steps_) steps_->AddNcclCall(event, FunctionOf(event));
    CountWrapperCall(event, FunctionOf(event));
    if (event.comm_id() == 0 || event.comm_size() == 0) continue;
    // try_emplace: a Communicator packet, when there is one, has the final say.
    record_.communicators.try_emplace(
        event.comm_id(), CommunicatorMembership{event.comm_size(), event.comm_rank(), "", 0, 0});
  }
}

void TraceSource::CountWrapperCall(const vprof::trace::NcclEvent& event, NcclFunction function) {
  if (event.result() != kNcclSuccess && event.result() != kNcclInProgress) return;
  switch (RoleOf(function)) {
    case FunctionRole::kCollective:
      if (function == NcclFunction::kAlltoAll || function == NcclFunction::kGather ||
          function == NcclFunction::kScatter) {
        ++record_.wrapper_p2p_collectives;
      } else {
        ++record_.wrapper_collectives;
        record_.wrapper_one_rank_collectives += event.comm_size() == 1;
      }
      record_.collective_shapes.Add({function, event.has_datatype() ? event.datatype() : -1,
                                     event.has_red_op() ? event.red_op() : -1, event.count(),
                                     event.comm_size()});
      return;
    case FunctionRole::kPointToPoint:
      ++record_.wrapper_p2p;
      return;
    default:
      return;
  }
}

void TraceSource::RecordStop() {
  RecordReadProblem();
  if (packets_after_footer_ > 0) {
    if (record_.state == InputState::kWhole) record_.state = InputState::kCorrupt;
    const std::string after = FormatCount(packets_after_footer_, "packet", "packets") +
                              " after the Footer (the first at byte " +
                              std::to_string(first_after_footer_offset_) + "): not used";
    AddProblem(record_.problem, after);
  }
  if (out_of_bounds_events_ > 0) {
    if (record_.state == InputState::kWhole) record_.state = InputState::kCorrupt;
    const std::string dropped = FormatCount(out_of_bounds_events_, "NCCL event", "NCCL events") +
                                " out of bounds, not used (the first in the packet at " +
                                first_out_of_bounds_ + ")";
    AddProblem(record_.problem, dropped);
  }
  RecordSequenceGaps();
  AddUnreadablePackets();
  // Not a damaged file: the state stays; but what the capture left out is said.
  if (!header_cut_.empty()) AddProblem(record_.problem, header_cut_);
  if (!footer_note_.empty()) AddProblem(record_.problem, footer_note_);
}

void TraceSource::AddUnreadablePackets() {
  record_.unreadable_packets = reader_.unreadable_packets();
  if (record_.unreadable_packets == 0) return;
  if (record_.state == InputState::kWhole) record_.state = InputState::kCorrupt;
  const bool one = record_.unreadable_packets == 1;
  const std::string skipped = std::to_string(record_.unreadable_packets) +
                              (one ? " packet does" : " packets do") +
                              " not parse as a TracePacket (" + (one ? "at" : "the first at") +
                              " byte " + std::to_string(reader_.first_unreadable_offset()) +
                              "): skipped, the packets after " + (one ? "it" : "them") + " used";
  AddProblem(record_.problem, skipped);
}

// Packets lost from the middle of the file (a write that never reached it, bytes cut out):
// the packets around them are used.
void TraceSource::RecordSequenceGaps() {
  SequenceGaps gaps = reader_.sequence_gaps();
  if (gaps.gaps > 0 && stalled_footer_offset_ && gaps.last_offset == *stalled_footer_offset_) {
    gaps.missing_packets -= gaps.last_missing;
    --gaps.gaps;
  }
  record_.missing_packets = gaps.missing_packets;
  if (gaps.missing_packets == 0) return;
  if (record_.state == InputState::kWhole) record_.state = InputState::kCorrupt;
  std::string missing = FormatCount(gaps.missing_packets, "packet", "packets") +
                        " missing: the sequence goes from " + std::to_string(gaps.first_before) +
                        " to " + std::to_string(gaps.first_after) + " at byte " +
                        std::to_string(gaps.first_offset);
  if (gaps.gaps > 1)
    missing += " and jumps " + FormatCount(gaps.gaps - 1, "more time", "more times");
  missing += "; the packets around them used";
  AddProblem(record_.problem, missing);
}

void TraceSource::RecordReadProblem() {
  const uint64_t offset = reader_.offset();
  const uint64_t packets = reader_.packets_read();
  switch (reader_.problem()) {
    case ReadProblem::kNone:
      if (footer_seen_) return;
      record_.state = InputState::kCut;
      record_.problem = ProblemAt(
          "cut", offset,
          packets == 0 ? "the file is empty" : "no Footer packet after the last whole packet",
          packets);
      return;
    case ReadProblem::kTruncated:
      record_.state = InputState::kCut;
      record_.problem = ProblemAt("cut", offset, reader_.problem_detail(), packets);
      return;
    case ReadProblem::kCorrupt:
      record_.state = InputState::kCorrupt;
      record_.problem = ProblemAt("corrupt packet", offset, reader_.problem_detail(), packets);
      return;
    case ReadProblem::kUnreadable:
      record_.state = InputState::kUnreadable;
      record_.problem = reader_.problem_detail();
      return;
  }
}

google::protobuf::ArenaOptions TraceSource::PacketArenaOptions(char* first_block) {
  google::protobuf::ArenaOptions options;
  options.initial_block = first_block;
  options.initial_block_size = kPacketBlockBytes;
  // A batch is a few to some hundred KiB: few blocks for the larger ones.
  options.start_block_size = 64 * 1024;
  options.max_block_size = 256 * 1024;
  return options;
}

bool TraceSource::ReadPacket() {
  arena_.Reset();
  packet_ = google::protobuf::Arena::CreateMessage<vprof::trace::TracePacket>(&arena_);
  return reader_.Next(*this);
}

// A GpuBatch leaves packet_ empty: Open() then finds no RunHeader in it.
bool TraceSource::Parse(const void* data, int size) {
  switch (DecodeGpuBatchPacket(data, static_cast<size_t>(size), &GpuRecords())) {
    case PacketDecode::kGpuBatch:
      gpu_packet_ = true;
      return true;
    case PacketDecode::kOther:
      gpu_packet_ = false;
      return packet_->ParseFromArray(data, size);
    case PacketDecode::kCorrupt:
      return false;
  }
  return false;
}

void TraceSource::AbsorbGpuBatch(GpuBatchRecords& batch) {
  if (!vprof_kernel_iids_.empty()) {
    std::erase_if(batch.kernels, [&](const KernelRow& k) {
      if (std::find(vprof_kernel_iids_.begin(), vprof_kernel_iids_.end(), k.name_iid) ==
          vprof_kernel_iids_.end()) {
        return false;
      }
      // The calibration's time is in its own figures (LaunchCostCalibration).
      if (std::find(calibration_kernel_iids_.begin(), calibration_kernel_iids_.end(), k.name_iid) ==
          calibration_kernel_iids_.end()) {
        vprof_kernels_.Add(0, k.duration_ns);
      } else if (std::find(calibration_streams_.begin(), calibration_streams_.end(), k.stream) ==
                 calibration_streams_.end()) {
        calibration_streams_.push_back(k.stream);
      }
      return true;
    });
  }
  if (!calibration_streams_.empty()) {
    const auto on_calibration_stream = [&](const auto& record) {
      return std::find(calibration_streams_.begin(), calibration_streams_.end(), record.stream()) !=
             calibration_streams_.end();
    };
    auto& events = *batch.others.mutable_event_record();
    events.erase(std::remove_if(events.begin(), events.end(), on_calibration_stream), events.end());
    auto& syncs = *batch.others.mutable_sync();
    syncs.erase(std::remove_if(syncs.begin(), syncs.end(), on_calibration_stream), syncs.end());
  }
  gpu_.AddBatch(batch);
  if (steps_) steps_->AddGpuBatch(batch);
  inferred_phases_.AddGpuBatch(batch);
}

std::string TraceSource::NameOf(uint64_t iid) const {
  const InternedName* found = interned_.find(iid);
  return found ? found->text : std::string();
}

void TraceSource::AddCollectiveSpan(CollectiveKernelSpan span) const {
  if (!span_sink_) return;
  span.start_ns += record_.clock_offset_ns;
  span.end_ns += record_.clock_offset_ns;
  span_sink_(span);
}

}  // namespace vprof::reporter
