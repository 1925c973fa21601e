// What a traced process does in RL training, told from its command line
// (RunHeader.argv): a rollout engine (vLLM, SGLang) or a training process
// (Megatron, torchrun scripts and workers). The rules are one ordered table in
// process_role.cc. The earliest argument that matches any rule decides, since
// the program and its script or module come before their options
// ("python train.py --rollout-backend vllm" is training); within one
// argument, the first rule in table order wins.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vprof::reporter {

enum class ProcessRole : uint8_t { kUnknown, kRollout, kTrain };

// "unknown", "rollout", "train".
std::string_view ProcessRoleName(ProcessRole role);

struct ProcessRoleMatch {
  ProcessRole role = ProcessRole::kUnknown;
  // Which rule decided, for the report: "argv[2] contains 'vllm'"; empty
  // when none matched.
  std::string rule;
};

// `environment`: the names of the variables set in the process (as its
// RunHeader recorded them). A process no argument names is a training process
// when it is a torchrun worker: torchrun sets TORCHELASTIC_RUN_ID in its
// workers, whose command line is the user's script.
ProcessRoleMatch ProcessRoleOf(std::span<const std::string> argv,
                               std::span<const std::string> environment = {});

}  // namespace vprof::reporter
