#include "reporter/export/export_hta.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <utility>

#include "reporter/base/json_writer.h"
#include "reporter/export/export_event_writer.h"
#include "reporter/export/export_filter.h"
#include "reporter/gpu/export_names.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/trace/kernel_dimension.h"

namespace vprof::reporter {
namespace {

uint64_t SaturatingProduct(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<uint64_t>::max() : product;
}

// Elements in and out of one rank's buffers, as PyTorch's record_param_comms
// counts them: `count` is per rank for the gathering and scattering
// collectives (NCCL's convention, as for the bandwidth S).
std::pair<uint64_t, uint64_t> MessageElements(NcclFunction function, uint64_t count,
                                              uint32_t nranks) {
  const uint64_t all_ranks = SaturatingProduct(count, nranks);
  switch (function) {
    case NcclFunction::kAllGather:
    case NcclFunction::kGather:
      return {count, all_ranks};
    case NcclFunction::kReduceScatter:
    case NcclFunction::kScatter:
      return {all_ranks, count};
    case NcclFunction::kAlltoAll:
      return {all_ranks, all_ranks};
    default:
      return {count, count};
  }
}

// Events as Kineto writes them: CPU events on (OS pid, OS tid), GPU events on
// (device, stream), categories and argument names HTA's parser looks for.
// HTA tells GPU from CPU events by a "stream" argument, so only GPU events
// carry one.
class HtaRankWriter : public TimelineSink {
 public:
  HtaRankWriter(TraceEventWriter& events, const ExportProcess& process)
      : events_(events), pid_(process.pid), rank_(*process.rank) {
    Metadata("process_name", pid_, 0)
        .BeginArgs()
        .String("name", DisplayName(process))
        .EndArgs()
        .End();
  }

  void ThreadName(uint32_t tid, std::string_view name) override {
    Metadata("thread_name", pid_, tid).BeginArgs().String("name", name).EndArgs().End();
  }

  void NcclCall(const NcclCallSite& call) override {
    Slice(call.name, "cpu_op", pid_, call.tid, call.enter_ns,
          ClampedDuration(call.enter_ns, call.exit_ns))
        .BeginArgs();
    if (call.event.call_id() != 0) events_.Uint("External id", call.event.call_id());
    CommunicationArgs(call);
    events_.EndArgs().End();
  }

  void Nvtx(const NvtxItem& range) override {
    if (range.record.kind() == vprof::trace::NVTX_KIND_MARK) {
      Event('i', range.name, "cpu_instant_event", pid_, range.tid, range.start_ns)
          .String("s", "t")
          .End();
      return;
    }
    // HTA finds iterations by PyTorch's step ranges, "ProfilerStep#N": a range the report takes
    // for a step is exported under that name, numbered by the number in its own name (the same
    // on every rank) or else by its order, and keeps its own name as an argument.
    if (DefaultStepMatcher().Matches(range.name) && !range.name.starts_with("ProfilerStep#")) {
      const size_t digits = range.name.find_last_not_of("0123456789") + 1;
      const std::string number = digits < range.name.size() ? std::string(range.name.substr(digits))
                                                            : std::to_string(unnumbered_steps_++);
      Slice("ProfilerStep#" + number, "user_annotation", pid_, range.tid, range.start_ns,
            ClampedDuration(range.start_ns, range.end_ns))
          .BeginArgs()
          .String("nvtx name", range.name)
          .EndArgs()
          .End();
      return;
    }
    Slice(range.name, "user_annotation", pid_, range.tid, range.start_ns,
          ClampedDuration(range.start_ns, range.end_ns))
        .End();
  }

  void Api(const ApiItem& api) override {
    const vprof::trace::ApiCall& record = api.record;
    Slice(ApiNameWithoutVersion(api.name), record.driver() ? "cuda_driver" : "cuda_runtime", pid_,
          record.tid(), api.start_ns, static_cast<int64_t>(record.duration_ns()))
        .BeginArgs();
    if (api.nccl_call_id) events_.Uint("External id", *api.nccl_call_id);
    events_.Uint("correlation", record.correlation_id()).EndArgs().End();
    if (api.launches_gpu_work && record.correlation_id() != 0) {
      Event('s', "ac2g", "ac2g", pid_, record.tid(), api.start_ns)
          .Uint("id", record.correlation_id())
          .End();
    }
  }

  void Kernel(const KernelItem& kernel) override {
    // vprof's own kernels are not the program's: HTA picks GPU kernels by their
    // stream, not their category, so they are not written at all.
    if (kernel.vprof_own) return;
    const vprof::trace::GpuKernel& record = kernel.record;
    GpuSlice(kernel.name, "kernel", record.device(), record.stream(), kernel.start_ns,
             record.duration_ns(), kernel.nccl_call_id, record.context(), record.correlation_id())
        .Dims("grid", KernelDimension(record.grid_x()), KernelDimension(record.grid_y()),
              KernelDimension(record.grid_z()))
        .Dims("block", KernelDimension(record.block_x()), KernelDimension(record.block_y()),
              KernelDimension(record.block_z()));
    if (kernel.nccl_call) CommunicationArgs(*kernel.nccl_call);
    events_.EndArgs().End();
    EndLaunchFlow(record.correlation_id(), record.device(), record.stream(), kernel.start_ns);
  }

  void Memcpy(const CopyItem& copy) override {
    const vprof::trace::GpuMemcpy& record = copy.record;
    GpuSlice(MemcpyName(record.copy_kind(), record.src_kind(), record.dst_kind()), "gpu_memcpy",
             record.device(), record.stream(), copy.start_ns, record.duration_ns(),
             copy.nccl_call_id, record.context(), record.correlation_id())
        .Uint("bytes", record.bytes())
        .EndArgs()
        .End();
    EndLaunchFlow(record.correlation_id(), record.device(), record.stream(), copy.start_ns);
  }

  void Memset(const MemsetItem& set) override {
    const vprof::trace::GpuMemset& record = set.record;
    GpuSlice("Memset", "gpu_memset", record.device(), record.stream(), set.start_ns,
             record.duration_ns(), set.nccl_call_id, record.context(), record.correlation_id())
        .Uint("bytes", record.bytes())
        .EndArgs()
        .End();
    EndLaunchFlow(record.correlation_id(), record.device(), record.stream(), set.start_ns);
  }

  // Kineto writes a replay's nodes; a replay recorded whole is one slice.
  void GraphReplay(const GraphReplayItem& replay) override {
    const vprof::trace::GpuGraphReplay& record = replay.record;
    GpuSlice(GraphReplayName(record.graph_id()), "kernel", record.device(), record.stream(),
             replay.start_ns, record.duration_ns(), std::nullopt, record.context(),
             record.correlation_id())
        .Uint("graph id", record.graph_id())
        .EndArgs()
        .End();
    EndLaunchFlow(record.correlation_id(), record.device(), record.stream(), replay.start_ns);
  }

  // Kineto has no place for the profiler plugin's events; the chrome export
  // shows them.
  void PluginColl(const PluginCollItem&) override {}

 private:
  TraceEventWriter& Event(char phase, std::string_view name, std::string_view category,
                          uint32_t pid, uint32_t tid, int64_t ts_ns) {
    return events_.Begin(phase)
        .String("cat", category)
        .String("name", name)
        .Uint("pid", pid)
        .Uint("tid", tid)
        .Micros("ts", ts_ns);
  }

  TraceEventWriter& Slice(std::string_view name, std::string_view category, uint32_t pid,
                          uint32_t tid, int64_t ts_ns, int64_t dur_ns) {
    return Event('X', name, category, pid, tid, ts_ns).Micros("dur", dur_ns);
  }

  TraceEventWriter& Metadata(std::string_view name, uint32_t pid, uint32_t tid) {
    return events_.Begin('M').String("name", name).Uint("pid", pid).Uint("tid", tid);
  }

  // A GPU slice with the arguments every GPU record has; its args stay open.
  TraceEventWriter& GpuSlice(std::string_view name, std::string_view category, uint32_t device,
                             uint32_t stream, int64_t ts_ns, uint64_t duration_ns,
                             std::optional<uint64_t> nccl_call_id, uint32_t context,
                             uint32_t correlation_id) {
    NameGpuTrack(device, stream);
    Slice(name, category, device, stream, ts_ns, static_cast<int64_t>(duration_ns)).BeginArgs();
    if (nccl_call_id) events_.Uint("External id", *nccl_call_id);
    return events_.Uint("device", device)
        .Uint("context", context)
        .Uint("stream", stream)
        .Uint("correlation", correlation_id);
  }

  void EndLaunchFlow(uint32_t correlation_id, uint32_t device, uint32_t stream, int64_t ts_ns) {
    if (correlation_id == 0) return;
    Event('f', "ac2g", "ac2g", device, stream, ts_ns)
        .Uint("id", correlation_id)
        .String("bp", "e")
        .End();
  }

  // What Kineto copies from PyTorch's record_param_comms onto NCCL kernels
  // (and HTA reads with its communication arguments enabled), from the call.
  void CommunicationArgs(const NcclCallSite& call) {
    const FunctionRole role = RoleOf(call.function);
    if (role != FunctionRole::kCollective && role != FunctionRole::kPointToPoint) return;
    const vprof::trace::NcclEvent& event = call.event;
    const auto [in, out] = MessageElements(call.function, event.count(), event.comm_size());
    events_.String("Collective name", call.name)
        .Uint("In msg nelems", in)
        .Uint("Out msg nelems", out)
        .Uint("Group size", event.comm_size());
    if (event.has_datatype()) events_.String("dtype", NcclDataTypeName(event.datatype()));
    events_.String("Process Group Name", HexText(event.comm_id()))
        .Int("Rank", rank_)
        .Uint("Seq", event.seq());
    if (role == FunctionRole::kPointToPoint && event.has_peer()) {
      const bool sends = call.function == NcclFunction::kSend;
      const int64_t self = event.comm_rank();
      events_.Int("Src Rank", sends ? self : event.peer())
          .Int("Dst Rank", sends ? event.peer() : self);
    }
  }

  // Kineto names a device's process "GPU <n>" and its streams' threads.
  void NameGpuTrack(uint32_t device, uint32_t stream) {
    if (named_devices_.insert(device).second) {
      Metadata("process_name", device, 0)
          .BeginArgs()
          .String("name", "GPU " + std::to_string(device))
          .EndArgs()
          .End();
    }
    if (named_streams_.insert({device, stream}).second) {
      Metadata("thread_name", device, stream)
          .BeginArgs()
          .String("name", "stream " + std::to_string(stream))
          .EndArgs()
          .End();
    }
  }

  TraceEventWriter& events_;
  const uint32_t pid_;
  const int32_t rank_;
  std::set<uint32_t> named_devices_;
  std::set<std::pair<uint32_t, uint32_t>> named_streams_;
  uint64_t unnumbered_steps_ = 0;  // step ranges without a number in their name so far
};

// HTA finds a file's rank with the pattern "rank":\s+(\d+) on the first line
// that has it, so distributedInfo comes first, on one line, with the space.
void WriteHeader(std::ostream& out, const ExportPlan& plan, int32_t rank, int32_t world_size) {
  out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n"
      << "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " << rank
      << ", \"world_size\": " << world_size << "},\n"
      << "  \"displayTimeUnit\": \"ms\",\n";
  if (plan.origin_unix_ns) out << "  \"baseTimeNanoseconds\": " << *plan.origin_unix_ns << ",\n";
  out << "  \"traceEvents\": [\n";
}

bool WriteRankFile(const ExportPlan& plan, const ExportProcess& process, int32_t world_size,
                   const std::string& file, ExportTally& tally, std::ostream& err) {
  std::ofstream out(file, std::ios::out | std::ios::trunc);
  if (out) {
    WriteHeader(out, plan, *process.rank, world_size);
    TraceEventWriter events(out);
    HtaRankWriter writer(events, process);
    WalkSelected(plan, process, writer, tally);
    out << "\n  ],\n  \"traceName\": ";
    WriteJsonString(out, process.path);
    out << "\n}\n";
    out.close();
  }
  if (!out) {
    err << "vprof: cannot write " << file << ": " << std::strerror(errno) << '\n';
    return false;
  }
  return true;
}

}  // namespace

std::string HtaFileName(int32_t rank) { return "rank-" + std::to_string(rank) + ".json"; }

std::optional<size_t> WriteHtaTraces(const ExportPlan& plan, const std::string& out_dir,
                                     ExportTally& tally, std::ostream& err) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    err << "vprof: cannot create " << out_dir << ": " << error.message() << '\n';
    return std::nullopt;
  }
  const auto ranks = std::count_if(plan.processes.begin(), plan.processes.end(),
                                   [](const ExportProcess& process) { return process.rank; });
  std::set<int32_t> written;
  for (const ExportProcess& process : plan.processes) {
    if (!process.rank) {
      err << "vprof: " << process.path << ": no rank (no NCCL calls); not in the hta export\n";
      continue;
    }
    if (!written.insert(*process.rank).second) {
      err << "vprof: " << process.path << ": rank " << *process.rank
          << " was written from another trace; this one is not in the hta export\n";
      continue;
    }
    const int32_t world_size =
        process.world_size > 0 ? process.world_size : static_cast<int32_t>(ranks);
    const std::string file = (std::filesystem::path(out_dir) / HtaFileName(*process.rank)).string();
    if (!WriteRankFile(plan, process, world_size, file, tally, err)) return std::nullopt;
  }
  return written.size();
}

}  // namespace vprof::reporter
