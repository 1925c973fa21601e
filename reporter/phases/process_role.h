// What a traced process does in RL training: a rollout engine (vLLM, SGLang)
// or a training process (Megatron, torchrun scripts and workers). Told from,
// in this order, the first that decides:
//  1. its title as last recorded (ProcessTitle packets): the name the process
//     gave itself after start. Ray starts every worker as
//     "python .../default_worker.py ..." and renames it
//     "ray::MegatronTrainRayActor.train" once it hosts an actor;
//  2. its command line at load (RunHeader.argv);
//  3. the shared objects it loaded (LoadedLibraries packets): Megatron's,
//     Transformer Engine's or Apex's (training), vLLM's or SGLang's extension
//     modules (rollout), for the process whose names tell nothing
//     ("python3 run.py", a Ray worker not yet renamed) or that torchrun
//     started (vLLM's external launcher runs its engine under torchrun);
//  4. its environment: torchrun's workers;
//  5. its kernels: an optimizer's (training) or a decoder's over a paged KV
//     cache (rollout).
// The rules are ordered tables in process_role.cc. In a command line, the
// earliest argument that matches any rule decides, since the program and its
// script or module come before their options ("python train.py
// --rollout-backend vllm" is training); within one argument, the first rule
// in table order wins. Among loaded objects, training's rules come first: a
// trainer may import a rollout engine (to generate in-process), while no
// rollout engine loads Megatron.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/gpu/gpu_record.h"

namespace vprof::reporter {

enum class ProcessRole : uint8_t { kUnknown, kRollout, kTrain };

// "unknown", "rollout", "train".
std::string_view ProcessRoleName(ProcessRole role);

struct ProcessRoleMatch {
  ProcessRole role = ProcessRole::kUnknown;
  // Which rule decided, from which source, for the report: "argv[2] contains
  // 'vllm'", "title at end: argv[0] contains 'megatron'"; empty when none
  // matched.
  std::string rule;
};

// The process's title as a ProcessTitle packet recorded it.
struct ProcessTitleRecord {
  std::vector<std::string> argv;
  bool at_end = false;         // read as the trace ended
  int64_t after_start_ns = 0;  // when it was read, from RunHeader.start_ns
};

struct RoleEvidence {
  std::span<const std::string> argv = {};  // RunHeader.argv: the command line at load
  // The names of the variables set in the process (as its RunHeader recorded
  // them). torchrun sets TORCHELASTIC_RUN_ID in its workers, whose command
  // line is the user's script.
  std::span<const std::string> environment = {};
  const ProcessTitleRecord* title = nullptr;  // the latest; none without a recorded change
  // The paths of loaded objects that NamesRoleLibrary, in load order.
  std::span<const std::string> libraries = {};
  const std::map<std::string, ActivityTotals>* kernels = nullptr;  // by name; none without
};

ProcessRoleMatch ProcessRoleOf(const RoleEvidence& evidence);

// Whether a loaded object's path matches a library rule: a reader keeps only
// those of the hundreds a process loads.
bool NamesRoleLibrary(std::string_view path);

}  // namespace vprof::reporter
