#include "reporter/phases/inferred_phase.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"

namespace vprof::reporter {
namespace {

// A row matches when each of its set fields equals the work's.
struct InferenceRule {
  std::optional<ProcessRole> role;
  std::optional<std::string_view> work_class;
  std::optional<CommunicatorUse> use;
  std::optional<LaunchThread> thread;
  InferredPhase result;
};

constexpr std::nullopt_t kAny = std::nullopt;

// Ordered. Weight sync first, in every role: the trainer's IPC handle bursts
// and broadcasts, and the rollout engine's receiving side of them. Then all
// other GPU work of a rollout engine is generation. A training process's
// optimizer kernels and NCCL traffic next, its remaining compute last: by
// launching thread when the process has compute from two, else as one.
constexpr InferenceRule kRules[] = {
    {kAny, kIpcApiClass, kAny, kAny, {kWeightSyncPhase, "ipc_calls"}},
    {kAny,
     kNcclKernelClass,
     CommunicatorUse::kWeightSync,
     kAny,
     {kWeightSyncPhase, "weight_sync_communicator"}},
    {ProcessRole::kRollout, kAny, kAny, kAny, {kRolloutExecutionPhase, "rollout_process"}},
    {kAny, kOptimizerKernelClass, kAny, kAny, {kOptimizerPhase, "optimizer_kernels"}},
    {kAny, kNcclKernelClass, kAny, kAny, {kCommunicationPhase, "nccl_kernels"}},
    {kAny,
     kCustomAllReduceKernelClass,
     kAny,
     kAny,
     {kCommunicationPhase, "custom_allreduce_kernels"}},
    {ProcessRole::kTrain, kAny, kAny, LaunchThread::kOther, {kBackwardPhase, "autograd_thread"}},
    {ProcessRole::kTrain, kAny, kAny, LaunchThread::kMain, {kForwardPhase, "main_thread"}},
    {ProcessRole::kTrain,
     kAny,
     kAny,
     LaunchThread::kMainForwardOnly,
     {kLogprobPhase, "forward_only_pass"}},
    {ProcessRole::kTrain, kAny, kAny, kAny, {kTrainComputePhase, "train_process"}},
    {kAny, kAny, kAny, kAny, {kComputePhase, "unknown_role"}},
};

bool Matches(const InferenceRule& rule, ProcessRole role, std::string_view work_class,
             CommunicatorUse use, LaunchThread thread) {
  return (!rule.role || *rule.role == role) &&
         (!rule.work_class || *rule.work_class == work_class) && (!rule.use || *rule.use == use) &&
         (!rule.thread || *rule.thread == thread);
}

}  // namespace

InferredPhase InferredPhaseOf(ProcessRole role, std::string_view work_class, CommunicatorUse use,
                              LaunchThread thread) {
  // The last row matches all work, so a row is always found.
  return std::find_if(std::begin(kRules), std::end(kRules),
                      [&](const InferenceRule& rule) {
                        return Matches(rule, role, work_class, use, thread);
                      })
      ->result;
}

}  // namespace vprof::reporter
