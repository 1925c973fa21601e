#include "bench/scale/scale_trace_generator.h"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "vprof_trace.pb.h"
#include "vprof_trace_fields.h"

namespace vprof::bench {
namespace {

namespace pb = vprof::trace;

constexpr uint64_t kStepNs = 100'000'000;              // 100 ms per training step
constexpr uint64_t kMaxJitterNs = 20'000;              // how late a rank may arrive at a collective
constexpr uint64_t kHostBootSpreadNs = 7'000'000'000;  // hosts' CLOCK_MONOTONIC differ by this
constexpr uint64_t kRealtimeEpochNs = 1'790'000'000'000'000'000;
constexpr uint64_t kClockSampleEverySteps = 1000;
constexpr uint32_t kComputeKernels = 40;
constexpr uint32_t kOptimizerKernels = 4;  // the last compute kernels of a step
constexpr uint32_t kMemcpys = 2;
constexpr uint32_t kTensorParallelAllReduces = 4;
constexpr size_t kFlushBytes = 1 << 20;

// Interned string ids, one table for every file.
enum Iid : uint64_t {
  kAllReduce = 1,
  kReduceScatter,
  kAllGather,
  kCommInitRank,
  kLaunchKernel,
  kMemcpyAsync,
  kNcclAllReduceKernel,
  kNcclReduceScatterKernel,
  kNcclAllGatherKernel,
  kGemmKernel,
  kElementwiseKernel,
  kOptimizerKernel,
  kStepRange,
  kForwardRange,
  kBackwardRange,
  kOptimizerRange,
};
constexpr std::pair<Iid, std::string_view> kNames[] = {
    {kAllReduce, "ncclAllReduce"},
    {kReduceScatter, "ncclReduceScatter"},
    {kAllGather, "ncclAllGather"},
    {kCommInitRank, "ncclCommInitRank"},
    {kLaunchKernel, "cudaLaunchKernel"},
    {kMemcpyAsync, "cudaMemcpyAsync"},
    {kNcclAllReduceKernel, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
    {kNcclReduceScatterKernel, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"},
    {kNcclAllGatherKernel, "ncclDevKernel_AllGather_RING_LL"},
    {kGemmKernel, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"},
    {kElementwiseKernel,
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"},
    {kOptimizerKernel, "void at::native::multi_tensor_apply_kernel<AdamFunctor<float>>"},
    {kStepRange, "step"},
    {kForwardRange, "forward"},
    {kBackwardRange, "backward"},
    {kOptimizerRange, "optimizer"},
};

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A collective of a step: its communicator and where in the step it starts.
struct StepCollective {
  uint64_t comm_id;
  uint32_t comm_size;
  uint32_t comm_rank;
  Iid function;
  Iid kernel;
  uint64_t bytes;
  uint64_t offset_ns;
};

struct Communicator {
  uint64_t comm_id;
  uint32_t size;
  uint32_t rank;
};

struct RankLayout {
  uint32_t rank, host, local_rank, hosts;
  Communicator world, node, data_parallel;  // size 0: not used
};

RankLayout LayoutOf(const ScaleShape& shape, uint32_t rank) {
  const uint32_t per_host = std::min(shape.ranks_per_host, shape.ranks);
  RankLayout layout{
      rank, rank / per_host, rank % per_host, (shape.ranks + per_host - 1) / per_host, {}, {}, {}};
  layout.world = {0x1000'0000, shape.ranks, rank};
  if (per_host > 1) layout.node = {0x2000'0000 + layout.host, per_host, layout.local_rank};
  if (layout.hosts > 1 && shape.ranks % per_host == 0) {
    layout.data_parallel = {0x3000'0000 + layout.local_rank, layout.hosts, layout.host};
  }
  return layout;
}

std::vector<StepCollective> CollectivesOf(const RankLayout& layout) {
  std::vector<StepCollective> collectives;
  const auto add = [&](const Communicator& comm, Iid function, Iid kernel, uint64_t bytes,
                       uint64_t offset_ns) {
    if (comm.size == 0) return;
    collectives.push_back({comm.comm_id, comm.size, comm.rank, function, kernel, bytes, offset_ns});
  };
  for (uint32_t i = 0; i < kTensorParallelAllReduces; ++i) {
    add(layout.node, kAllReduce, kNcclAllReduceKernel, 16ULL << 20, 10'000'000 + i * 15'000'000);
  }
  add(layout.data_parallel, kReduceScatter, kNcclReduceScatterKernel, 64ULL << 20, 75'000'000);
  add(layout.data_parallel, kAllGather, kNcclAllGatherKernel, 64ULL << 20, 78'000'000);
  add(layout.world, kAllReduce, kNcclAllReduceKernel, 4096, 96'000'000);
  return collectives;
}

class PacketWriter {
 public:
  explicit PacketWriter(const std::string& path)
      : file_(std::fopen(path.c_str(), "wb")), path_(path) {
    if (!file_) throw std::runtime_error(path + ": cannot create");
  }
  ~PacketWriter() {
    if (file_) std::fclose(file_);
  }
  PacketWriter(const PacketWriter&) = delete;
  PacketWriter& operator=(const PacketWriter&) = delete;

  pb::TracePacket& Begin() {
    packet_.Clear();
    packet_.set_sequence(++sequence_);
    return packet_;
  }
  void Commit() {
    buffer_.push_back('\x0a');  // Trace field 1, length-delimited
    uint64_t length = packet_.ByteSizeLong();
    do {
      uint8_t byte = length & 0x7F;
      length >>= 7;
      if (length != 0) byte |= 0x80;
      buffer_.push_back(static_cast<char>(byte));
    } while (length != 0);
    packet_.AppendToString(&buffer_);
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  uint64_t Close() {
    Flush();
    if (std::fclose(file_) != 0) throw std::runtime_error(path_ + ": cannot write");
    file_ = nullptr;
    return written_;
  }

 private:
  void Flush() {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      throw std::runtime_error(path_ + ": cannot write");
    }
    written_ += buffer_.size();
    buffer_.clear();
  }

  std::FILE* file_;
  std::string path_;
  std::string buffer_;
  pb::TracePacket packet_;
  uint64_t sequence_ = 0;
  uint64_t written_ = 0;
};

class RankWriter {
 public:
  RankWriter(const ScaleShape& shape, uint32_t rank, const std::string& path)
      : shape_(shape),
        layout_(LayoutOf(shape, rank)),
        collectives_(CollectivesOf(layout_)),
        host_base_ns_(1'000'000'000'000 + layout_.host * kHostBootSpreadNs),
        out_(path) {}

  uint64_t Write(uint64_t steps) {
    WriteHeader();
    for (const auto& [iid, name] : kNames) {
      pb::InternedString& interned = *out_.Begin().mutable_interned_string();
      interned.set_iid(iid);
      interned.set_str(std::string(name));
      out_.Commit();
    }
    for (const Communicator& comm : {layout_.world, layout_.node, layout_.data_parallel}) {
      if (comm.size == 0) continue;
      pb::Communicator& packet = *out_.Begin().mutable_communicator();
      packet.set_comm_id(comm.comm_id);
      packet.set_nranks(comm.size);
      packet.set_rank(comm.rank);
      packet.set_created_by_iid(kCommInitRank);
      packet.set_create_begin_ns(host_base_ns_ + 1'000);
      packet.set_create_end_ns(host_base_ns_ + 2'000'000);
      packet.set_cuda_device(static_cast<int32_t>(layout_.local_rank));
      out_.Commit();
    }
    for (uint64_t step = 0; step < steps; ++step) {
      if (step % kClockSampleEverySteps == 0) WriteClockSample(StepStart(step));
      WriteStep(step);
    }
    pb::Footer& footer = *out_.Begin().mutable_footer();
    footer.set_reason(pb::END_REASON_EXIT);
    footer.set_end_ns(StepStart(steps));
    pb::KindCount& nccl = *footer.add_counts();
    nccl.set_kind("nccl");
    nccl.set_recorded(steps * collectives_.size());
    out_.Commit();
    return out_.Close();
  }

 private:
  uint64_t StepStart(uint64_t step) const { return host_base_ns_ + 10'000'000 + step * kStepNs; }
  uint64_t Jitter(uint64_t step, uint64_t what) const {
    return SplitMix(shape_.seed ^ SplitMix(layout_.rank ^ SplitMix(step * 128 + what))) %
           kMaxJitterNs;
  }

  void WriteHeader() {
    pb::RunHeader& header = *out_.Begin().mutable_run_header();
    header.set_format_version(vprof::schema::kFormatVersion);
    header.set_vprof_version("scale-generator");
    header.set_host("node" + std::to_string(layout_.host));
    header.set_pid(10'000 + layout_.rank);
    header.set_ppid(9'000 + layout_.host);
    header.add_argv("python");
    header.add_argv("train.py");
    pb::RankInfo& rank = *header.mutable_rank();
    rank.set_rank(static_cast<int32_t>(layout_.rank));
    rank.set_local_rank(static_cast<int32_t>(layout_.local_rank));
    rank.set_world_size(static_cast<int32_t>(shape_.ranks));
    rank.set_node_rank(static_cast<int32_t>(layout_.host));
    rank.set_source("torch");
    for (const auto& [name, value] : {std::pair<const char*, const char*>{"MASTER_ADDR", "node0"},
                                      {"MASTER_PORT", "29500"},
                                      {"NCCL_DEBUG", "WARN"}}) {
      pb::EnvVar& env = *header.add_env();
      env.set_name(name);
      env.set_value(value);
    }
    header.set_clock(pb::CLOCK_DOMAIN_MONOTONIC);
    header.set_start_ns(host_base_ns_);
    header.set_start_realtime_ns(kRealtimeEpochNs);
    out_.Commit();
  }

  // Every host's clocks read the same realtime at the same instant.
  void WriteClockSample(uint64_t clock_ns) {
    pb::ClockSample& sample = *out_.Begin().mutable_clock_sample();
    sample.set_clock_ns(clock_ns);
    sample.set_realtime_ns(clock_ns - host_base_ns_ + kRealtimeEpochNs);
    sample.set_uncertainty_ns(500);
    out_.Commit();
  }

  void WriteStep(uint64_t step) {
    const uint64_t start = StepStart(step);
    pb::EventBatch& batch = *out_.Begin().mutable_event_batch();
    batch.set_tid(1);
    uint64_t first_call = next_call_id_;
    for (size_t i = 0; i < collectives_.size(); ++i) {
      const StepCollective& coll = collectives_[i];
      pb::NcclEvent& event = *batch.add_nccl();
      event.set_function_iid(coll.function);
      event.set_comm_id(coll.comm_id);
      event.set_comm_size(coll.comm_size);
      event.set_comm_rank(coll.comm_rank);
      event.set_seq(step * SameCommBefore(collectives_.size(), coll.comm_id) + SameCommIndex(i) +
                    1);
      event.set_count(coll.bytes / 4);
      event.set_datatype(7);  // ncclFloat32
      event.set_bytes(coll.bytes);
      event.set_red_op(0);  // ncclSum
      event.set_stream(0x7f00'0000 + layout_.local_rank);
      event.set_result(0);
      event.set_enter_ns(start + coll.offset_ns + Jitter(step, i));
      event.set_exit_ns(start + coll.offset_ns + kMaxJitterNs + 30'000);
      event.set_call_id(next_call_id_++);
    }
    out_.Commit();

    pb::GpuBatch& gpu = *out_.Begin().mutable_gpu_batch();
    for (size_t i = 0; i < collectives_.size(); ++i) {
      const StepCollective& coll = collectives_[i];
      const uint32_t correlation = next_correlation_++;
      const uint64_t launch = start + coll.offset_ns + Jitter(step, i) + 5'000;
      pb::ExternalCorrelation& external = *gpu.add_external();
      external.set_kind(1);  // CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN
      external.set_external_id(first_call + i);
      external.set_correlation_id(correlation);
      AddApi(gpu, kLaunchKernel, launch, correlation);
      pb::GpuKernel& kernel = *gpu.add_kernel();
      kernel.set_name_iid(coll.kernel);
      kernel.set_start_ns(launch + 10'000);
      kernel.set_duration_ns(200'000 + Jitter(step, 32 + i));
      kernel.set_device(layout_.local_rank);
      kernel.set_context(1);
      kernel.set_stream(13);
      kernel.set_correlation_id(correlation);
      kernel.set_grid_x(32);
      kernel.set_block_x(512);
    }
    for (uint32_t i = 0; i < kComputeKernels; ++i) {
      const uint32_t correlation = next_correlation_++;
      const uint64_t launch = start + 2'000'000 + i * 2'000'000;
      AddApi(gpu, kLaunchKernel, launch, correlation);
      pb::GpuKernel& kernel = *gpu.add_kernel();
      kernel.set_name_iid(i >= kComputeKernels - kOptimizerKernels ? kOptimizerKernel
                          : i % 3 == 0                             ? kElementwiseKernel
                                                                   : kGemmKernel);
      kernel.set_start_ns(launch + 8'000);
      kernel.set_duration_ns(1'000'000 + Jitter(step, 48 + i) * 10);
      kernel.set_device(layout_.local_rank);
      kernel.set_context(1);
      kernel.set_stream(7);
      kernel.set_correlation_id(correlation);
      kernel.set_grid_x(1024);
      kernel.set_block_x(256);
    }
    for (uint32_t i = 0; i < kMemcpys; ++i) {
      const uint32_t correlation = next_correlation_++;
      const uint64_t launch = start + 500'000 + i * 98'000'000;
      AddApi(gpu, kMemcpyAsync, launch, correlation);
      pb::GpuMemcpy& copy = *gpu.add_memcpy();
      copy.set_copy_kind(i == 0 ? 1 : 2);  // HtoD, then DtoH
      copy.set_src_kind(i == 0 ? 2 : 3);
      copy.set_dst_kind(i == 0 ? 3 : 2);
      copy.set_bytes(8ULL << 20);
      copy.set_start_ns(launch + 4'000);
      copy.set_duration_ns(400'000);
      copy.set_device(layout_.local_rank);
      copy.set_context(1);
      copy.set_stream(7);
      copy.set_correlation_id(correlation);
    }
    out_.Commit();

    // Push/pop ranges are written as they end: the inner ones first.
    pb::NvtxBatch& nvtx = *out_.Begin().mutable_nvtx_batch();
    nvtx.set_tid(1);
    const auto add_range = [&](Iid name, uint64_t begin, uint64_t end, uint32_t depth) {
      pb::NvtxRange& range = *nvtx.add_range();
      range.set_kind(pb::NVTX_KIND_PUSH_POP);
      range.set_name_iid(name);
      range.set_start_ns(start + begin);
      range.set_end_ns(start + end);
      range.set_depth(depth);
    };
    add_range(kForwardRange, 1'000'000, 30'000'000, 1);
    add_range(kBackwardRange, 31'000'000, 80'000'000, 1);
    add_range(kOptimizerRange, 81'000'000, 95'000'000, 1);
    add_range(kStepRange, 0, 99'000'000, 0);
    out_.Commit();
  }

  void AddApi(pb::GpuBatch& gpu, Iid name, uint64_t start_ns, uint32_t correlation) {
    pb::ApiCall& api = *gpu.add_api();
    api.set_name_iid(name);
    api.set_start_ns(start_ns);
    api.set_duration_ns(4'000);
    api.set_tid(1);
    api.set_correlation_id(correlation);
  }

  // Collectives on one communicator number 1, 2, 3... on every member.
  uint64_t SameCommBefore(size_t end, uint64_t comm_id) const {
    uint64_t count = 0;
    for (size_t i = 0; i < end; ++i) count += collectives_[i].comm_id == comm_id;
    return count;
  }
  uint64_t SameCommIndex(size_t index) const {
    return SameCommBefore(index, collectives_[index].comm_id);
  }

  const ScaleShape& shape_;
  RankLayout layout_;
  std::vector<StepCollective> collectives_;
  uint64_t host_base_ns_;
  PacketWriter out_;
  uint64_t next_call_id_ = 1;
  uint32_t next_correlation_ = 1;
};

}  // namespace

StepContents StepContentsFor(const ScaleShape& shape) {
  StepContents contents;
  contents.collectives = static_cast<uint32_t>(CollectivesOf(LayoutOf(shape, 0)).size());
  contents.compute_kernels = kComputeKernels;
  contents.memcpys = kMemcpys;
  return contents;
}

uint64_t StepsFor(const ScaleShape& shape) {
  const uint64_t per_step = StepContentsFor(shape).events();
  return (shape.events_per_rank + per_step - 1) / per_step;
}

GeneratedTraces WriteScaleTraces(const std::string& directory, const ScaleShape& shape) {
  if (shape.ranks == 0 || shape.ranks_per_host == 0) {
    throw std::runtime_error("a shape needs at least one rank and one rank per host");
  }
  const uint64_t steps = StepsFor(shape);
  GeneratedTraces generated;
  for (uint32_t rank = 0; rank < shape.ranks; ++rank) {
    const RankLayout layout = LayoutOf(shape, rank);
    const std::string path = directory + "/node" + std::to_string(layout.host) + "." +
                             std::to_string(10'000 + rank) + ".vtrace";
    generated.bytes += RankWriter(shape, rank, path).Write(steps);
    ++generated.files;
    generated.events += steps * StepContentsFor(shape).events();
  }
  return generated;
}

}  // namespace vprof::bench
