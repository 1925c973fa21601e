#include "reporter/phases/process_role.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

#include "reporter/base/text_layout.h"
#include "reporter/base/valid_utf8.h"
#include "reporter/gpu/kernel_class.h"

namespace vprof::reporter {
namespace {

struct RoleRule {
  std::string_view pattern;  // lower case; found anywhere in one argument, case ignored
  ProcessRole role;
};

// For command lines and titles. Rollout engines first: vLLM's workers and
// entry points ("vllm.entrypoints", "VLLM::EngineCore", "ray::VllmWorker"),
// vLLM's Ray workers ("ray::RayWorkerWrapper.execute_method"), an actor
// around vLLM's engine (OpenRLHF's "LLMRayActor", "LLMEngine",
// "AsyncLLMEngine"), and SGLang's. Then training: Megatron
// ("pretrain_gpt.py", "megatron.training", vime's and slime's
// "MegatronTrainRayActor"), slime's other trainer ("FSDPTrainRayActor"),
// training scripts and the torchrun launcher.
constexpr RoleRule kRules[] = {
    {"vllm", ProcessRole::kRollout},
    {"rayworkerwrapper", ProcessRole::kRollout},
    {"llmrayactor", ProcessRole::kRollout},
    {"llmengine", ProcessRole::kRollout},
    {"sglang", ProcessRole::kRollout},
    {"megatron", ProcessRole::kTrain},
    {"trainrayactor", ProcessRole::kTrain},
    {"pretrain_", ProcessRole::kTrain},
    {"train.py", ProcessRole::kTrain},
    {"torchrun", ProcessRole::kTrain},
    {"torch.distributed.run", ProcessRole::kTrain},
};

// For loaded objects' paths, whole, case ignored. A package's folder
// (".../site-packages/vllm/_C.abi3.so") or a library's own name, never a
// bare word a virtual environment's folder could hold ("/opt/vllm-env/").
// Training first: Megatron's compiled helpers and fused kernels, Transformer
// Engine (its core library and its PyTorch extension) and Apex's amp_C (the
// fused optimizers' kernels) are training's; then vLLM's extension modules
// (vllm/_C, _moe_C, its FlashAttention build) and SGLang's (sgl_kernel).
constexpr RoleRule kLibraryRules[] = {
    {"/megatron/", ProcessRole::kTrain},
    {"transformer_engine", ProcessRole::kTrain},
    {"/amp_c.", ProcessRole::kTrain},
    {"/vllm/", ProcessRole::kRollout},
    {"/vllm_flash_attn/", ProcessRole::kRollout},
    {"/sgl_kernel/", ProcessRole::kRollout},
    {"/sglang/", ProcessRole::kRollout},
};

// Set by torchrun in every worker it starts.
constexpr std::string_view kTorchrunWorkerVariable = "TORCHELASTIC_RUN_ID";

enum class KernelMatch : uint8_t {
  kClass,  // the kernel's class (kernel_class.h) is the pattern
  kName,   // the pattern is found in the kernel's name, case ignored
};

struct KernelRoleRule {
  KernelMatch match;
  std::string_view pattern;  // a kernel class, or lower case text
  ProcessRole role;
};

// For kernels, when no name decided. Training first: an optimizer's kernels
// (multi_tensor_apply, fused Adam) run in no rollout engine, while a
// trainer's forward may take FlashAttention's split-KV path too. Then
// decoding over a paged KV cache: vLLM's paged attention and its cache
// writes, FlashAttention's split-KV kernel (vLLM's decode path) and
// FlashInfer's paged decode (SGLang's and vLLM's).
constexpr KernelRoleRule kKernelRules[] = {
    {KernelMatch::kClass, kOptimizerKernelClass, ProcessRole::kTrain},
    {KernelMatch::kName, "paged_attention", ProcessRole::kRollout},
    {KernelMatch::kName, "reshape_and_cache", ProcessRole::kRollout},
    {KernelMatch::kName, "flash_fwd_splitkv", ProcessRole::kRollout},
    {KernelMatch::kName, "batchdecodewithpagedkvcache", ProcessRole::kRollout},
};

// Kernel names are long templates: the rule names one in this many columns.
constexpr size_t kKernelNameColumns = 60;

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// The first argument that a rule matches, and the rule: "argv[2] contains 'vllm'".
std::optional<ProcessRoleMatch> ArgumentRole(std::span<const std::string> argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string argument = Lower(argv[i]);
    for (const RoleRule& rule : kRules) {
      if (argument.find(rule.pattern) == std::string::npos) continue;
      return ProcessRoleMatch{rule.role, "argv[" + std::to_string(i) + "] contains '" +
                                             std::string(rule.pattern) + "'"};
    }
  }
  return std::nullopt;
}

// "title at end", "title at 12.5 s" (after the trace began).
std::string TitleSource(const ProcessTitleRecord& title) {
  if (title.at_end) return "title at end";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f",
                static_cast<double>(std::max<int64_t>(title.after_start_ns, 0)) / 1e9);
  return "title at " + std::string(seconds) + " s";
}

// The first library rule some loaded object matches, naming the first such
// object, whole: "loaded '.../site-packages/vllm/_C.abi3.so' (path contains
// '/vllm/')".
std::optional<ProcessRoleMatch> LibraryRole(std::span<const std::string> libraries) {
  std::vector<std::string> lower;
  lower.reserve(libraries.size());
  for (const std::string& path : libraries) lower.push_back(Lower(path));
  for (const RoleRule& rule : kLibraryRules) {
    for (size_t i = 0; i < lower.size(); ++i) {
      if (lower[i].find(rule.pattern) == std::string::npos) continue;
      return ProcessRoleMatch{rule.role, "loaded '" + ValidUtf8(libraries[i]) +
                                             "' (path contains '" + std::string(rule.pattern) +
                                             "')"};
    }
  }
  return std::nullopt;
}

bool Matches(const KernelRoleRule& rule, std::string_view name, std::string_view lower_name) {
  return rule.match == KernelMatch::kClass
             ? KernelClassOf(name) == rule.pattern
             : lower_name.find(rule.pattern) != std::string_view::npos;
}

// The first rule some kernel matches, naming the one of those kernels that
// ran longest.
std::optional<ProcessRoleMatch> KernelRole(const std::map<std::string, ActivityTotals>& kernels) {
  std::vector<std::pair<std::string, const std::pair<const std::string, ActivityTotals>*>> lower;
  lower.reserve(kernels.size());
  for (const auto& kernel : kernels) lower.emplace_back(Lower(kernel.first), &kernel);
  for (const KernelRoleRule& rule : kKernelRules) {
    const std::pair<const std::string, ActivityTotals>* longest = nullptr;
    for (const auto& [lower_name, kernel] : lower) {
      if (!Matches(rule, kernel->first, lower_name)) continue;
      if (!longest || kernel->second.total_ns > longest->second.total_ns) longest = kernel;
    }
    if (!longest) continue;
    const std::string name =
        "kernel '" + ElideMiddle(ValidUtf8(longest->first), kKernelNameColumns) + "'";
    return ProcessRoleMatch{rule.role,
                            rule.match == KernelMatch::kClass
                                ? name + " is of class " + std::string(rule.pattern)
                                : name + " contains '" + std::string(rule.pattern) + "'"};
  }
  return std::nullopt;
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

ProcessRoleMatch ProcessRoleOf(const RoleEvidence& evidence) {
  if (evidence.title) {
    if (auto match = ArgumentRole(evidence.title->argv)) {
      match->rule = TitleSource(*evidence.title) + ": " + match->rule;
      return *match;
    }
  }
  if (auto match = ArgumentRole(evidence.argv)) return *match;
  if (auto match = LibraryRole(evidence.libraries)) return *match;
  if (std::find(evidence.environment.begin(), evidence.environment.end(),
                kTorchrunWorkerVariable) != evidence.environment.end()) {
    return {ProcessRole::kTrain,
            "environment has " + std::string(kTorchrunWorkerVariable) + " (a torchrun worker)"};
  }
  if (evidence.kernels) {
    if (auto match = KernelRole(*evidence.kernels)) return *match;
  }
  return {};
}

bool NamesRoleLibrary(std::string_view path) {
  const std::string lower = Lower(path);
  return std::any_of(std::begin(kLibraryRules), std::end(kLibraryRules), [&](const RoleRule& rule) {
    return lower.find(rule.pattern) != std::string::npos;
  });
}

}  // namespace vprof::reporter
