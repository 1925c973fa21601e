// What the reporter learns about one traced process from its trace file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "reporter/base/saturating_ns.h"
#include "reporter/base/trace_forward.h"
#include "reporter/collectives/collective_shape.h"
#include "reporter/gpu/gpu_record.h"
#include "reporter/ingest/nccl_plugin_record.h"
#include "reporter/phases/inferred_phase_record.h"
#include "reporter/phases/nvtx_phase_record.h"
#include "reporter/steps/step_store.h"

namespace vprof::reporter {

enum class InputState : uint8_t {
  kWhole,  // every packet read, Footer present
  kCut,    // ends inside a packet or without a Footer; the packets before it are used
  // Bytes that do not frame a packet (the packets before them are used), or
  // framed packets that do not parse (skipped; the others are used).
  kCorrupt,
  kUnreadable,   // could not be opened or read
  kNewerFormat,  // written by a newer vprof; skipped
};

// "whole", "cut", "corrupt", "unreadable", "newer_format".
std::string_view InputStateName(InputState state);

// A process's problems, one clause each, "; " between them.
inline void AddProblem(std::string& problems, std::string_view more) {
  if (!problems.empty()) problems += "; ";
  problems += more;
}

// The process's clock pairs (see ClockOffsetIn), summarized as they are read.
struct ClockSamples {
  uint64_t count = 0;
  int64_t min_offset_ns = 0;
  int64_t max_offset_ns = 0;

  void Add(int64_t offset_ns);
  // How far apart the readings are (NTP slew, preemption between the two
  // reads): the error bound of aligning hosts with them.
  int64_t spread_ns() const { return SaturatingSub(max_offset_ns, min_offset_ns); }
};

// This process's place in one communicator.
struct CommunicatorMembership {
  uint32_t nranks = 0;
  uint32_t rank = 0;
  std::string created_by;  // NCCL function, from a Communicator packet; empty without one
  uint64_t parent_comm_id = 0;
  int64_t create_ns = 0;     // how long the creating call took (exit − enter)
  int32_t cuda_device = -1;  // the communicator's CUDA device; -1 when unknown
};

struct ProcessRecord {
  std::string path;
  // The name of the trace file, without its directory: how reports name the process.
  std::string file() const;
  // The RunHeader was read and its format is one this reporter reads: the
  // file's data is used.
  bool opened = false;
  std::string host;
  uint32_t pid = 0;
  std::optional<int32_t> header_rank;  // RunHeader.rank.rank when set (>= 0)
  uint64_t start_ns = 0;               // RunHeader.start_ns, on the process's own clock
  uint64_t nccl_events = 0;
  uint64_t failed_calls = 0;  // events whose ncclResult_t was not ncclSuccess
  // The Footer's per-kind totals; without a Footer, the sum of EventBatch.dropped.
  uint64_t dropped_events = 0;
  uint64_t write_errors = 0;                          // Footer.write_errors
  std::optional<vprof::trace::EndReason> end_reason;  // absent without a Footer
  int32_t signal = 0;
  InputState state = InputState::kWhole;
  std::string problem;              // for people; empty when state is kWhole
  uint64_t unreadable_packets = 0;  // framed packets that did not parse, skipped
  uint64_t missing_packets = 0;     // sequence numbers that no packet of the file has
  std::map<uint64_t, CommunicatorMembership> communicators;  // by comm_id
  ClockSamples clock_samples;
  // Added to every time of this process: the median clock-pair offset when
  // processes span several hosts, else 0.
  int64_t clock_offset_ns = 0;
  // Times were to be moved to CLOCK_REALTIME, but the file has no clock pair
  // to do it with: they stay on the process's own clock.
  bool clock_unaligned = false;
  GpuRecord gpu;  // final once the whole file was read

  // For the coverage check and the requested-vs-actual comparison (coverage.h,
  // provenance.h); node summaries carry them (summary_codec.cc).
  // The RunHeader environment's NCCL_* variables that were not redacted: what
  // the process asked NCCL for. By name.
  std::map<std::string, std::string> nccl_env;
  std::optional<std::string> ld_preload;  // LD_PRELOAD as the process saw it; none when unset
  // Intercepted calls that enqueue NCCL work (result ncclSuccess or
  // ncclInProgress), counted as NCCL's profiler plugin would count them.
  uint64_t wrapper_collectives = 0;  // collectives NCCL runs as one COLL each
  // Of wrapper_collectives, those on one-rank communicators: NCCL runs them as a local copy,
  // with no profiler-plugin event and no kernel of its own.
  uint64_t wrapper_one_rank_collectives = 0;
  uint64_t wrapper_p2p = 0;  // ncclSend, ncclRecv
  // ncclAlltoAll, ncclGather, ncclScatter: NCCL runs them as send/recv, so
  // the plugin reports them as several P2P events each.
  uint64_t wrapper_p2p_collectives = 0;
  // The collectives among those calls, by shape (function, data type, reduction, count).
  CollectiveShapes collective_shapes;
  // The Footer's dropped totals by kind ("nccl": wrapper events, "cupti",
  // "nvtx", "nccl_plugin"); empty without a Footer.
  std::map<std::string, uint64_t> footer_dropped;
  NcclPluginRecord nccl_plugin;  // final once the whole file was read
  NvtxPhaseRecord nvtx_phases;   // final once the whole file was read
  // What phase inference reads (role, kernel span and busy time), final once
  // the whole file was read; none in records from node summaries, which do
  // not carry it.
  std::optional<InferredPhaseInput> inferred_phase_input;
  ProcessSteps steps;  // final once the whole file was read (reporter/steps/)
};

}  // namespace vprof::reporter
