// A process's role from its title, its command line, its environment and its
// kernels, in that order: in a command line the earliest argument that matches
// a rule decides, so a training script's options naming vLLM do not make it a
// rollout engine; the report says which source, argument and pattern decided.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "reporter/phases/process_role.h"

using namespace vprof::reporter;

namespace {

std::string Described(const ProcessRoleMatch& match) {
  return std::string(ProcessRoleName(match.role)) + " / " + match.rule;
}

std::string Described(const std::vector<std::string>& argv) {
  return Described(ProcessRoleOf({.argv = argv}));
}

// A Ray worker as it starts, before Ray names it after its actor.
const std::vector<std::string> kRayWorker = {
    "/usr/bin/python3", "/venv/lib/python3.12/site-packages/ray/_private/workers/default_worker.py",
    "--node-ip-address=10.0.0.7", "--worker-entrypoint-address=10.0.0.7:6379"};

std::string TitledRole(const std::vector<std::string>& title, bool at_end = true,
                       int64_t after_start_ns = 0) {
  const ProcessTitleRecord record{title, at_end, after_start_ns};
  return Described(ProcessRoleOf({.argv = kRayWorker, .title = &record}));
}

std::map<std::string, ActivityTotals> Kernels(
    const std::vector<std::pair<std::string, int64_t>>& name_ns) {
  std::map<std::string, ActivityTotals> kernels;
  for (const auto& [name, ns] : name_ns) kernels[name].Add(0, static_cast<uint64_t>(ns));
  return kernels;
}

std::string KernelRole(const std::vector<std::pair<std::string, int64_t>>& name_ns,
                       const std::vector<std::string>& argv = {"python3", "run.py"}) {
  const auto kernels = Kernels(name_ns);
  return Described(ProcessRoleOf({.argv = argv, .kernels = &kernels}));
}

constexpr std::string_view kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32";
constexpr std::string_view kAdam =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous "
    "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>>";

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
  const ProcessRoleMatch match = ProcessRoleOf({.argv = argv, .environment = worker});
  CHECK(match.role == ProcessRole::kTrain);
  CHECK(match.rule == "environment has TORCHELASTIC_RUN_ID (a torchrun worker)");
  // RANK alone is any torch.distributed process (vLLM's workers have it too).
  const std::vector<std::string> ranked = {"LOCAL_RANK", "RANK"};
  CHECK(ProcessRoleOf({.argv = argv, .environment = ranked}).role == ProcessRole::kUnknown);
  // An argument still decides first: vLLM launched by torchrun is rollout.
  const std::vector<std::string> engine = {"python", "-m", "vllm.entrypoints.cli.main"};
  CHECK(ProcessRoleOf({.argv = engine, .environment = worker}).role == ProcessRole::kRollout);
}

TEST_CASE("process role: a Ray worker by the title Ray gave it after start") {
  // At load every Ray worker is default_worker.py: no rule tells its role.
  CHECK(Described(kRayWorker) == "unknown / ");
  // vime's and slime's Megatron trainers, and slime's FSDP one.
  CHECK(TitledRole({"ray::MegatronTrainRayActor.train"}) ==
        "train / title at end: argv[0] contains 'megatron'");
  CHECK(TitledRole({"ray::FSDPTrainRayActor.train"}) ==
        "train / title at end: argv[0] contains 'trainrayactor'");
  // A title read on the writer's periodic read says when, from the trace's start.
  CHECK(TitledRole({"ray::MegatronTrainRayActor"}, false, 12'340'000'000) ==
        "train / title at 12.3 s: argv[0] contains 'megatron'");
  // vLLM's Ray workers, whose class name does not say vLLM; an actor around vLLM's engine
  // (OpenRLHF's); vLLM's own process titles; SGLang's engine actor (slime's).
  CHECK(TitledRole({"ray::RayWorkerWrapper.execute_method"}) ==
        "rollout / title at end: argv[0] contains 'rayworkerwrapper'");
  CHECK(TitledRole({"ray::LLMRayActor.generate"}) ==
        "rollout / title at end: argv[0] contains 'llmrayactor'");
  CHECK(TitledRole({"ray::AsyncLLMEngine.generate"}) ==
        "rollout / title at end: argv[0] contains 'llmengine'");
  CHECK(TitledRole({"VLLM::EngineCore"}) == "rollout / title at end: argv[0] contains 'vllm'");
  CHECK(TitledRole({"ray::SGLangEngine.init"}) ==
        "rollout / title at end: argv[0] contains 'sglang'");
}

TEST_CASE("process role: the title comes before the command line, which decides without it") {
  // A title that names no role (Ray's idle worker) leaves it to the command line.
  const std::vector<std::string> script = {"python3", "/work/vime/train.py"};
  const ProcessTitleRecord idle{{"ray::IDLE"}, true, 0};
  CHECK(Described(ProcessRoleOf({.argv = script, .title = &idle})) ==
        "train / argv[1] contains 'train.py'");
  // A title that names one wins over the command line at load: the process became it.
  const ProcessTitleRecord engine{{"VLLM::Worker_TP0"}, false, 5'000'000'000};
  CHECK(Described(ProcessRoleOf({.argv = script, .title = &engine})) ==
        "rollout / title at 5.0 s: argv[0] contains 'vllm'");
  // And over the environment and the kernels.
  const std::vector<std::string> worker = {"TORCHELASTIC_RUN_ID"};
  const auto adam = Kernels({{std::string(kAdam), 100}});
  CHECK(ProcessRoleOf({.argv = script, .environment = worker, .title = &engine, .kernels = &adam})
            .role == ProcessRole::kRollout);
}

TEST_CASE("process role: from the kernels when no name tells it") {
  // A training script with no telling name runs an optimizer. Long names lose their middle:
  // the rule names a kernel in 60 columns.
  CHECK(KernelRole({{std::string(kGemm), 900}, {std::string(kAdam), 100}}) ==
        "train / kernel 'void at::native::(anonymous n…::native::ADAM_MODE)1, false>>' is of "
        "class optimizer");
  // Decoding over a paged KV cache: vLLM's kernels, FlashAttention's split-KV path, FlashInfer's.
  CHECK(KernelRole({{std::string(kGemm), 900},
                    {"void vllm::paged_attention_v2_kernel<__nv_bfloat16>", 50},
                    {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>", 80}}) ==
        "rollout / kernel 'void vllm::paged_attention_v2_kernel<__nv_bfloat16>' contains "
        "'paged_attention'");
  CHECK(KernelRole({{"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>", 80}}) ==
        "rollout / kernel 'void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>' contains "
        "'reshape_and_cache'");
  CHECK(KernelRole({{"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>", 10}}) ==
        "rollout / kernel 'void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>' "
        "contains 'flash_fwd_splitkv'");
  CHECK(KernelRole({{"flashinfer::BatchDecodeWithPagedKVCacheKernel<128>", 10}}) ==
        "rollout / kernel 'flashinfer::BatchDecodeWithPagedKVCacheKernel<128>' contains "
        "'batchdecodewithpagedkvcache'");
  // An optimizer decides before decode-like kernels: a trainer's forward may take the split-KV
  // path, no rollout engine steps an optimizer. Of the matching kernels the longest is named.
  CHECK(KernelRole({{"void flash_fwd_splitkv_kernel<T>", 500},
                    {"multi_tensor_apply_kernel<AdamFunctor<float>>", 20},
                    {"multi_tensor_apply_kernel<SGDFunctor<float>>", 30}}) ==
        "train / kernel 'multi_tensor_apply_kernel<SGDFunctor<float>>' is of class optimizer");
  // Only when the names did not decide: vLLM's engine is rollout whatever it runs.
  CHECK(KernelRole({{std::string(kAdam), 100}}, {"python", "-m", "vllm.entrypoints.cli.main"}) ==
        "rollout / argv[2] contains 'vllm'");
  // Neither: the role stays unknown.
  CHECK(KernelRole({{std::string(kGemm), 900}, {"flash_fwd_kernel<T>", 10}}) == "unknown / ");
}

TEST_CASE("process role: unknown without a matching argument") {
  CHECK(Described({"python", "serve.py", "--port", "8000"}) == "unknown / ");
  CHECK(Described(std::vector<std::string>{}) == "unknown / ");
  CHECK(ProcessRoleName(ProcessRole::kUnknown) == "unknown");
}

namespace {

std::string LoadedRole(const std::vector<std::string>& libraries,
                       const std::vector<std::string>& argv = kRayWorker,
                       const std::vector<std::string>& environment = {}) {
  const auto kernels = Kernels({{std::string(kAdam), 100}});
  return Described(ProcessRoleOf(
      {.argv = argv, .environment = environment, .libraries = libraries, .kernels = &kernels}));
}

constexpr std::string_view kSitePackages = "/venv/lib/python3.12/site-packages/";

std::string Site(std::string_view rest) { return std::string(kSitePackages) + std::string(rest); }

}  // namespace

TEST_CASE("process role: from the libraries it loaded, before the environment and the kernels") {
  // A Ray worker not yet renamed, an optimizer kernel: the library decides first.
  CHECK(LoadedRole({Site("vllm/_C.abi3.so")}) ==
        "rollout / loaded '/venv/lib/python3.12/site-packages/vllm/_C.abi3.so' (path contains "
        "'/vllm/')");
  CHECK(LoadedRole({Site("sgl_kernel/common_ops.abi3.so")})
            .starts_with("rollout / loaded "
                         "'/venv/lib/python3.12/site-packages/sgl_kernel/common_ops.abi3.so'"));
  CHECK(LoadedRole({Site("megatron/core/datasets/helpers_cpp.cpython-312-x86_64-linux-gnu.so")})
            .starts_with("train / loaded '/venv/lib/python3.12/site-packages/meg"));
  CHECK(LoadedRole({Site("transformer_engine/libtransformer_engine.so")})
            .ends_with("(path contains 'transformer_engine')"));
  CHECK(LoadedRole({Site("amp_C.cpython-312-x86_64-linux-gnu.so")}).starts_with("train / "));
  // Training's rules first, whatever the load order: a trainer that imports vLLM.
  CHECK(LoadedRole({Site("vllm/_C.abi3.so"), Site("vllm/_moe_C.abi3.so"),
                    Site("transformer_engine_torch.cpython-312-x86_64-linux-gnu.so")})
            .starts_with("train / loaded '/venv/lib/python3.12/site-packages/transformer_engi"));
  // vLLM's engine under torchrun (its external launcher): the library, not the environment.
  CHECK(LoadedRole({Site("vllm/_C.abi3.so")}, {"python3", "generate.py"}, {"TORCHELASTIC_RUN_ID"})
            .starts_with("rollout / "));
  // The command line still comes first.
  CHECK(LoadedRole({Site("vllm/_C.abi3.so")}, {"python3", "train.py"}) ==
        "train / argv[1] contains 'train.py'");
  // A virtual environment named after vLLM: its libraries name no role, the kernel decides.
  CHECK(LoadedRole({}).starts_with("train / kernel '"));
  CHECK(LoadedRole({"/opt/vllm-env/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"}) ==
        LoadedRole({}));
}

TEST_CASE("process role: which loaded objects a reader keeps") {
  CHECK(NamesRoleLibrary(Site("vllm/_C.abi3.so")));
  CHECK(NamesRoleLibrary("/usr/lib/x86_64-linux-gnu/libTRANSFORMER_ENGINE.so"));
  CHECK(!NamesRoleLibrary(Site("torch/lib/libtorch_cuda.so")));
  CHECK(!NamesRoleLibrary("/opt/vllm-env/lib/libpython3.12.so"));
  CHECK(!NamesRoleLibrary(Site("vllm_env_tools/x.so")));
}
