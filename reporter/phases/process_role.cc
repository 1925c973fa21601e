#include "reporter/phases/process_role.h"

#include <algorithm>
#include <cctype>

namespace vprof::reporter {
namespace {

struct RoleRule {
  std::string_view pattern;  // lower case; found anywhere in one argument, case ignored
  ProcessRole role;
};

// Rollout engines first: vLLM's workers and entry points ("vllm.entrypoints",
// "VllmWorker", "ray::VllmWorker") and SGLang's. Then training: Megatron
// ("pretrain_gpt.py", "megatron.training", vime's "MegatronTrainRayActor"),
// training scripts and the torchrun launcher.
constexpr RoleRule kRules[] = {
    {"vllm", ProcessRole::kRollout},
    {"sglang", ProcessRole::kRollout},
    {"megatron", ProcessRole::kTrain},
    {"pretrain_", ProcessRole::kTrain},
    {"train.py", ProcessRole::kTrain},
    {"torchrun", ProcessRole::kTrain},
    {"torch.distributed.run", ProcessRole::kTrain},
};

// Set by torchrun in every worker it starts.
constexpr std::string_view kTorchrunWorkerVariable = "TORCHELASTIC_RUN_ID";

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

}  // namespace

std::string_view ProcessRoleName(ProcessRole role) {
  switch (role) {
    case ProcessRole::kRollout:
      return "rollout";
    case ProcessRole::kTrain:
      return "train";
    case ProcessRole::kUnknown:
      break;
  }
  return "unknown";
}

ProcessRoleMatch ProcessRoleOf(std::span<const std::string> argv,
                               std::span<const std::string> environment) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string argument = Lower(argv[i]);
    for (const RoleRule& rule : kRules) {
      if (argument.find(rule.pattern) == std::string::npos) continue;
      return {rule.role,
              "argv[" + std::to_string(i) + "] contains '" + std::string(rule.pattern) + "'"};
    }
  }
  if (std::find(environment.begin(), environment.end(), kTorchrunWorkerVariable) !=
      environment.end()) {
    return {ProcessRole::kTrain,
            "environment has " + std::string(kTorchrunWorkerVariable) + " (a torchrun worker)"};
  }
  return {};
}

}  // namespace vprof::reporter
