#include "reporter/steps/comm_roles.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "reporter/phases/inferred_phase.h"

namespace vprof::reporter {
namespace {

// Where a kernel was launched, as the rules tell phases apart.
enum class PhaseClass : uint8_t { kForward, kBackward, kWeightSync, kOther };

std::string_view PhaseClassName(PhaseClass phase) {
  switch (phase) {
    case PhaseClass::kForward:
      return "in forward";
    case PhaseClass::kBackward:
      return "in backward";
    case PhaseClass::kWeightSync:
      return "in weight sync";
    case PhaseClass::kOther:
      break;
  }
  return "outside forward and backward";
}

bool IsReduction(NcclFunction function) {
  return function == NcclFunction::kAllReduce || function == NcclFunction::kReduceScatter;
}

bool IsBroadcast(NcclFunction function) {
  return function == NcclFunction::kBroadcast || function == NcclFunction::kBcast;
}

PhaseClass ClassOf(const RankStepsReport& rank, const StepCollective& collective) {
  // Both arms are string_views: a std::string arm would make the
  // conditional a temporary copy that dies before the comparisons.
  const std::string_view phase = collective.phase < rank.phase_names.size()
                                     ? std::string_view(rank.phase_names[collective.phase])
                                     : std::string_view();
  if (phase == kWeightSyncPhase) return PhaseClass::kWeightSync;
  if (phase == kForwardPhase) return PhaseClass::kForward;
  if (phase == kBackwardPhase) return PhaseClass::kBackward;
  // A rank that names no phase at all has only the buckets' rule: launched
  // before the step's first optimizer kernel (step_segments.h).
  if (rank.phase_names.size() == 1 && collective.in_backward) return PhaseClass::kBackward;
  return PhaseClass::kOther;
}

// What a rule reads of one kernel and of its communicator.
struct Facts {
  NcclFunction function;
  PhaseClass phase;
  uint64_t bytes;
  const CommunicatorCalls& use;
};

bool ReducesInForward(const CommunicatorCalls& use) { return use.reductions_in_forward > 0; }

// "Every layer": more than one forward collective a step on one rank.
bool EveryLayer(const CommunicatorCalls& use) { return use.most_forward_per_step > 1; }

bool InForwardOrBackward(PhaseClass phase) {
  return phase == PhaseClass::kForward || phase == PhaseClass::kBackward;
}

struct Rule {
  CommRole role;
  std::string_view why;  // the evidence, after the kernels' counts
  bool (*holds)(const Facts&);
};

// In order: the first that holds names the role.
constexpr std::array kRules = {
    Rule{CommRole::kPipeline, "send/receive between pipeline stages",
         [](const Facts& f) {
           return f.function == NcclFunction::kSend || f.function == NcclFunction::kRecv;
         }},
    Rule{CommRole::kWeightSync, "launched in the weight-sync phase",
         [](const Facts& f) { return f.phase == PhaseClass::kWeightSync; }},
    Rule{CommRole::kTensorParallel,
         "its communicator reduces in forward, several times a step: every layer",
         [](const Facts& f) {
           return InForwardOrBackward(f.phase) && ReducesInForward(f.use) && EveryLayer(f.use);
         }},
    Rule{CommRole::kShardedDataParallel,
         "its communicator all-gathers in forward and reduces only in backward: parameters "
         "gathered, gradients reduce-scattered",
         [](const Facts& f) {
           return InForwardOrBackward(f.phase) && f.use.gathers_in_forward > 0 &&
                  !ReducesInForward(f.use) &&
                  (f.function == NcclFunction::kAllGather ||
                   f.function == NcclFunction::kReduceScatter);
         }},
    Rule{CommRole::kGradientBuckets,
         "reductions of backward on a communicator that does not reduce in forward",
         [](const Facts& f) {
           return f.phase == PhaseClass::kBackward && IsReduction(f.function) &&
                  !ReducesInForward(f.use);
         }},
    Rule{CommRole::kWeightSync, "broadcasts outside forward and backward",
         [](const Facts& f) { return f.phase == PhaseClass::kOther && IsBroadcast(f.function); }},
    Rule{CommRole::kMetrics, "small (at most 64 KiB a rank) outside forward and backward",
         [](const Facts& f) {
           return f.phase == PhaseClass::kOther && f.bytes <= kMetricsMaxBytes;
         }},
    Rule{CommRole::kShardedDataParallel,
         "large all-gathers outside forward and backward on a communicator that reduces "
         "gradients in backward: a sharded optimizer's parameters",
         [](const Facts& f) {
           return f.phase == PhaseClass::kOther && f.function == NcclFunction::kAllGather &&
                  f.use.reductions_in_backward > 0;
         }},
    Rule{CommRole::kWeightSync,
         "large all-gathers on a communicator used outside forward and backward only",
         [](const Facts& f) {
           return f.phase == PhaseClass::kOther && f.function == NcclFunction::kAllGather &&
                  f.use.reductions_in_forward + f.use.gathers_in_forward +
                          f.use.reductions_in_backward + f.use.gathers_in_backward ==
                      0;
         }},
};

const Rule* RuleFor(const Facts& facts) {
  for (const Rule& rule : kRules) {
    if (rule.holds(facts)) return &rule;
  }
  return nullptr;
}

}  // namespace

std::string_view CommRoleName(CommRole role) {
  switch (role) {
    case CommRole::kGradientBuckets:
      return "gradient buckets";
    case CommRole::kWeightSync:
      return "weight sync";
    case CommRole::kShardedDataParallel:
      return "sharded data parallel";
    case CommRole::kTensorParallel:
      return "tensor parallel";
    case CommRole::kPipeline:
      return "pipeline";
    case CommRole::kMetrics:
      return "metrics";
    case CommRole::kUnclassified:
      break;
  }
  return "unclassified";
}

std::string_view CommRoleAdjective(CommRole role) {
  switch (role) {
    case CommRole::kGradientBuckets:
      return "gradient-bucket";
    case CommRole::kWeightSync:
      return "weight-sync";
    case CommRole::kShardedDataParallel:
      return "sharded-data-parallel";
    case CommRole::kTensorParallel:
      return "tensor-parallel";
    case CommRole::kPipeline:
      return "pipeline";
    case CommRole::kMetrics:
      return "metric";
    case CommRole::kUnclassified:
      break;
  }
  return "unclassified";
}

CommRole CommRoleNamed(std::string_view name) {
  for (const CommRole role :
       {CommRole::kGradientBuckets, CommRole::kWeightSync, CommRole::kShardedDataParallel,
        CommRole::kTensorParallel, CommRole::kPipeline, CommRole::kMetrics}) {
    if (CommRoleName(role) == name) return role;
  }
  return CommRole::kUnclassified;
}

CommRoles CommRoles::Of(const StepsReport& steps) {
  CommRoles roles;
  std::map<uint64_t, CommunicatorCalls> uses;
  for (const RankStepsReport& rank : steps.ranks) {
    for (const RankStepReport& step : rank.steps) {
      std::map<uint64_t, uint64_t> forward_in_step;
      for (const StepCollective& collective : step.collectives) {
        CommunicatorCalls& use = uses[collective.comm_id];
        use.comm_id = collective.comm_id;
        const PhaseClass phase = ClassOf(rank, collective);
        const bool reduces = IsReduction(collective.function);
        const bool gathers = collective.function == NcclFunction::kAllGather;
        if (phase == PhaseClass::kForward) {
          use.reductions_in_forward += reduces;
          use.gathers_in_forward += gathers;
          ++forward_in_step[collective.comm_id];
        } else if (phase == PhaseClass::kBackward) {
          use.reductions_in_backward += reduces;
          use.gathers_in_backward += gathers;
        } else {
          ++use.other_calls;
        }
      }
      std::vector<uint64_t> seen;
      for (const StepCollective& collective : step.collectives) seen.push_back(collective.comm_id);
      std::sort(seen.begin(), seen.end());
      seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
      for (const uint64_t comm_id : seen) ++uses[comm_id].rank_steps;
      for (const auto& [comm_id, count] : forward_in_step) {
        CommunicatorCalls& use = uses[comm_id];
        use.most_forward_per_step = std::max(use.most_forward_per_step, count);
      }
    }
  }
  for (const auto& [comm_id, use] : uses) roles.uses_.push_back(use);

  // The evidence: each (communicator, role, function, phase class) counted
  // over every rank's measured steps, then one line per (communicator, role).
  using Group = std::tuple<uint64_t, CommRole, NcclFunction, PhaseClass>;
  std::map<Group, std::pair<uint64_t, std::string_view>> groups;  // kernels, the rule's why
  for (const RankStepsReport& rank : steps.ranks) {
    for (const RankStepReport& step : rank.steps) {
      for (const StepCollective& collective : step.collectives) {
        const Facts facts{collective.function, ClassOf(rank, collective), collective.bytes,
                          *roles.UseOf(collective.comm_id)};
        const Rule* rule = RuleFor(facts);
        auto& group = groups[{collective.comm_id, rule ? rule->role : CommRole::kUnclassified,
                              collective.function, facts.phase}];
        ++group.first;
        group.second = rule ? rule->why : "no rule's evidence holds";
      }
    }
  }
  for (const auto& [key, counted] : groups) {
    const auto& [comm_id, role, function, phase] = key;
    const std::string line =
        std::to_string(counted.first) + " " + std::string(NcclFunctionName(function)) + " " +
        std::string(PhaseClassName(phase)) + " (" + std::string(counted.second) + ")";
    if (!roles.evidence_.empty() && roles.evidence_.back().comm_id == comm_id &&
        roles.evidence_.back().role == role) {
      roles.evidence_.back().evidence += "; " + line;
    } else {
      roles.evidence_.push_back({comm_id, role, line});
    }
  }
  return roles;
}

const CommunicatorCalls* CommRoles::UseOf(uint64_t comm_id) const {
  const auto it =
      std::lower_bound(uses_.begin(), uses_.end(), comm_id,
                       [](const CommunicatorCalls& use, uint64_t id) { return use.comm_id < id; });
  return it != uses_.end() && it->comm_id == comm_id ? &*it : nullptr;
}

CommRole CommRoles::RoleOf(const RankStepsReport& rank, const StepCollective& collective) const {
  const CommunicatorCalls* use = UseOf(collective.comm_id);
  if (!use) return CommRole::kUnclassified;
  const Rule* rule =
      RuleFor({collective.function, ClassOf(rank, collective), collective.bytes, *use});
  return rule ? rule->role : CommRole::kUnclassified;
}

}  // namespace vprof::reporter
