// A process's role from its command line: the earliest argument that matches
// a rule decides, so a training script's options naming vLLM do not make it
// a rollout engine; the report says which argument and pattern decided.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "reporter/phases/process_role.h"

using namespace vprof::reporter;

namespace {

std::string Described(const std::vector<std::string>& argv) {
  const ProcessRoleMatch match = ProcessRoleOf(argv);
  return std::string(ProcessRoleName(match.role)) + " / " + match.rule;
}

}  // namespace

TEST_CASE("process role: rollout engines from vLLM's and SGLang's command lines") {
  CHECK(Described({"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"}) ==
        "rollout / argv[2] contains 'vllm'");
  // Ray names its worker processes after the actor class; case is ignored.
  CHECK(Described({"ray::VllmWorker.execute_model"}) == "rollout / argv[0] contains 'vllm'");
  CHECK(Described({"python", "-m", "sglang.launch_server", "--port", "30000"}) ==
        "rollout / argv[2] contains 'sglang'");
}

TEST_CASE("process role: training from Megatron, training scripts and torchrun") {
  // argv[1] matches before argv[3] ("vllm") is looked at.
  CHECK(Described({"python", "pretrain_gpt.py", "--rollout-backend", "vllm"}) ==
        "train / argv[1] contains 'pretrain_'");
  CHECK(Described({"ray::MegatronTrainRayActor.train"}) == "train / argv[0] contains 'megatron'");
  CHECK(Described({"/usr/bin/python", "/work/vime/train.py", "--actor-num-gpus", "8"}) ==
        "train / argv[1] contains 'train.py'");
  CHECK(Described({"torchrun", "--nproc_per_node=8", "serve_vllm.py"}) ==
        "train / argv[0] contains 'torchrun'");
  CHECK(Described({"python", "-m", "torch.distributed.run", "x.py"}) ==
        "train / argv[2] contains 'torch.distributed.run'");
}

TEST_CASE("process role: a torchrun worker from its environment when no argument says") {
  const std::vector<std::string> argv = {"/usr/bin/python3", "ddp_step.py", "--steps", "20"};
  const std::vector<std::string> worker = {"LOCAL_RANK", "RANK", "TORCHELASTIC_RUN_ID"};
  const ProcessRoleMatch match = ProcessRoleOf(argv, worker);
  CHECK(match.role == ProcessRole::kTrain);
  CHECK(match.rule == "environment has TORCHELASTIC_RUN_ID (a torchrun worker)");
  // RANK alone is any torch.distributed process (vLLM's workers have it too).
  CHECK(ProcessRoleOf(argv, std::vector<std::string>{"LOCAL_RANK", "RANK"}).role ==
        ProcessRole::kUnknown);
  // An argument still decides first: vLLM launched by torchrun is rollout.
  const std::vector<std::string> engine = {"python", "-m", "vllm.entrypoints.cli.main"};
  CHECK(ProcessRoleOf(engine, worker).role == ProcessRole::kRollout);
}

TEST_CASE("process role: unknown without a matching argument") {
  CHECK(Described({"python", "serve.py", "--port", "8000"}) == "unknown / ");
  CHECK(Described({}) == "unknown / ");
  CHECK(ProcessRoleName(ProcessRole::kUnknown) == "unknown");
}
