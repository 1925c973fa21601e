#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "capture/core/run_info.h"

namespace {

std::map<std::string, std::string> g_env;
const char* fake_env(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

}  // namespace

TEST_CASE("torchrun variables take precedence over Slurm's") {
  g_env = {{"RANK", "5"},       {"LOCAL_RANK", "1"},
           {"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "4"},
           {"GROUP_RANK", "1"}, {"SLURM_PROCID", "0"}};
  auto r = vprof::ReadRankVars(fake_env);
  CHECK(r.source == "torch");
  CHECK(r.rank == 5);
  CHECK(r.local_rank == 1);
  CHECK(r.world_size == 8);
  CHECK(r.local_world_size == 4);
  CHECK(r.node_rank == 1);
}

TEST_CASE("Slurm and Open MPI variables, and none at all") {
  g_env = {{"SLURM_PROCID", "3"}, {"SLURM_LOCALID", "1"},
           {"SLURM_NTASKS", "4"}, {"SLURM_NTASKS_PER_NODE", "2(x2)"},
           {"SLURM_NODEID", "1"}, {"SLURM_JOB_ID", "77"}};
  auto r = vprof::ReadRankVars(fake_env);
  CHECK(r.source == "slurm");
  CHECK(r.rank == 3);
  CHECK(r.local_world_size == 2);
  CHECK(r.node_rank == 1);
  auto s = vprof::ReadSlurmVars(fake_env);
  CHECK(s.job_id == "77");
  CHECK(s.proc_id == 3);

  g_env = {{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "16"}};
  r = vprof::ReadRankVars(fake_env);
  CHECK(r.source == "ompi");
  CHECK(r.rank == 2);
  CHECK(r.world_size == 16);
  CHECK_FALSE(r.local_rank.has_value());

  g_env = {{"RANK", "not-a-number"}};
  r = vprof::ReadRankVars(fake_env);
  CHECK(r.source == "torch");
  CHECK_FALSE(r.rank.has_value());
}

TEST_CASE("the environment is filtered by family, sorted, and secrets are redacted") {
  char e1[] = "NCCL_ALGO=Ring";
  char e2[] = "HOME=/root";
  char e3[] = "VIME_API_TOKEN=abc123";
  char e4[] = "CUDA_VISIBLE_DEVICES=0,1";
  char e5[] = "WANDB_API_KEY=zzz";
  char e6[] = "TORCH_SECRET_KEY=xyz";
  char e7[] = "RANK=0";
  char e8[] = "NOEQUALS";
  char e9[] = "TORCHELASTIC_RUN_ID=job7";
  char* env[] = {e1, e2, e3, e4, e5, e6, e7, e8, e9, nullptr};
  auto out = vprof::SelectEnv(env);
  REQUIRE(out.size() == 6);
  CHECK(out[0].name == "CUDA_VISIBLE_DEVICES");
  CHECK(out[0].value == "0,1");
  CHECK(out[1].name == "NCCL_ALGO");
  CHECK(out[1].value == "Ring");
  CHECK(out[2].name == "RANK");
  CHECK(out[3].name == "TORCHELASTIC_RUN_ID");  // 'E' sorts before '_'
  CHECK(out[3].value == "job7");
  CHECK(out[4].name == "TORCH_SECRET_KEY");
  CHECK(out[4].redacted);
  CHECK(out[4].value.empty());
  CHECK(out[5].name == "VIME_API_TOKEN");
  CHECK(out[5].redacted);
  CHECK(out[5].value.empty());
}

TEST_CASE("secret names in any case and URL passwords in kept values are redacted") {
  char e1[] = "VIME_db_password=hunter2";
  char e2[] = "VIME_DB_URL=postgres://trainer:s3cret@db.internal:5432/runs";
  char e3[] = "NCCL_SOCKET_IFNAME=eth0";
  char e4[] = "MASTER_ADDR=node-1";
  char* env[] = {e1, e2, e3, e4, nullptr};
  const auto out = vprof::SelectEnv(env);
  REQUIRE(out.size() == 4);
  CHECK(out[0].name == "MASTER_ADDR");
  CHECK(out[0].value == "node-1");
  CHECK(out[1].name == "NCCL_SOCKET_IFNAME");
  CHECK(out[1].value == "eth0");
  CHECK(out[2].name == "VIME_DB_URL");
  CHECK_FALSE(out[2].redacted);
  CHECK(out[2].value == "postgres://trainer:<redacted>@db.internal:5432/runs");
  CHECK(out[3].name == "VIME_db_password");
  CHECK(out[3].redacted);
  CHECK(out[3].value.empty());
}
