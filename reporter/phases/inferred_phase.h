// The phase of GPU work in a process without NVTX phase ranges, inferred from
// what the process is (process_role.h), what the work is (kernel class,
// kernel_class.h, or the CUDA IPC API class, communication_class.h) and, for
// NCCL kernels, what their communicator is used for. The rules are one
// ordered table in inferred_phase.cc; the first that matches decides.
//
// Forward, backward and logprob passes run the same GEMM, attention and
// elementwise kernels, so kernel names cannot tell them apart; the launching
// thread can: PyTorch runs backward on the autograd engine's device thread,
// and forward on the thread that called the model. Of the main thread's
// compute, the forward-only passes (logprob: no backward follows them) are
// those a step launched before its first training forward, found by that
// forward's kernels matching the step's next one (step_tracker.h). A
// training process whose compute all came from one thread (CUDA graphs, no
// backward) keeps "train compute", never a guess.
#pragma once

#include <cstdint>
#include <string_view>

#include "reporter/phases/process_role.h"

namespace vprof::reporter {

// What an NCCL kernel's communicator carries.
enum class CommunicatorUse : uint8_t {
  kUnknown,     // not NCCL work, or an NCCL kernel linked to no call with a communicator
  kGeneral,     // gradients, activations, parallel state: communication
  kWeightSync,  // see WeightSyncCommunicators (assemble_inferred_phases.h)
};

// Which thread launched the work.
enum class LaunchThread : uint8_t {
  kUnknown,  // not told: the process launched all its compute from one thread
  kMain,     // the thread that launched the process's first kernel
  // The main thread, in a forward-only pass: before its step's first
  // training forward.
  kMainForwardOnly,
  kOther,  // another thread (PyTorch's autograd device thread)
};

// The phases inference gives; NVTX rules (phase_rules.cc) may name others.
inline constexpr std::string_view kRolloutExecutionPhase = "rollout execution";
inline constexpr std::string_view kWeightSyncPhase = "weight sync";
inline constexpr std::string_view kOptimizerPhase = "optimizer";
inline constexpr std::string_view kCommunicationPhase = "communication";
inline constexpr std::string_view kTrainComputePhase = "train compute";
inline constexpr std::string_view kForwardPhase = "forward";
inline constexpr std::string_view kBackwardPhase = "backward";
inline constexpr std::string_view kLogprobPhase = "logprob";  // as phase_rules.cc names it
inline constexpr std::string_view kComputePhase = "compute";
// A CUDA-graph replay recorded whole: forward, backward and optimizer alike,
// its nodes' times unknown.
inline constexpr std::string_view kGraphReplayPhase = "cuda graph replay";
inline constexpr std::string_view kIdlePhase = "idle";
// The rule of the idle row: the GPU span less the time any GPU work ran.
inline constexpr std::string_view kIdleRule = "gpu_idle";

// A row's source in the report: this prefix, then the rule ("inferred:ipc_calls").
inline constexpr std::string_view kInferredSourcePrefix = "inferred:";

struct InferredPhase {
  std::string_view phase;
  std::string_view rule;  // the table row's name: the report says "inferred:<rule>"
};

// Static storage: both views stay valid.
InferredPhase InferredPhaseOf(ProcessRole role, std::string_view work_class, CommunicatorUse use,
                              LaunchThread thread = LaunchThread::kUnknown);

}  // namespace vprof::reporter
