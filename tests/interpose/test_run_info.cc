#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "interpose/core/run_info.h"

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

TEST_CASE(
    "argv is held to its cap: whole at the cap, the argument past it cut, the rest left out") {
  const std::string half(vprof::kMaxArgvBytes / 2, 'a');
  std::vector<std::string> at_cap = {half, half};
  vprof::HeaderCut cut;
  vprof::CapArgv(&at_cap, &cut);
  CHECK(at_cap == std::vector<std::string>{half, half});
  CHECK_FALSE(cut.any());

  std::vector<std::string> past = {half, half + "b", "c", "d"};
  vprof::CapArgv(&past, &cut);
  CHECK(past == std::vector<std::string>{half, half});
  CHECK(cut.argv_args_cut == 3);

  // A cut falls between characters: "é" is two bytes, and one byte of room is left.
  std::vector<std::string> character = {std::string(vprof::kMaxArgvBytes - 1, 'a'), "\xc3\xa9"};
  vprof::HeaderCut cut_character;
  vprof::CapArgv(&character, &cut_character);
  CHECK(character.size() == 1);
  CHECK(cut_character.argv_args_cut == 1);
}

TEST_CASE("the environment is held to its caps: per value, and names and values in all") {
  using vprof::EnvEntry;
  const std::string value_at_cap(vprof::kMaxEnvValueBytes, 'v');
  std::vector<EnvEntry> values = {{"NCCL_A", value_at_cap}, {"NCCL_B", value_at_cap + "w"}};
  vprof::HeaderCut cut;
  vprof::CapEnv(&values, &cut);
  REQUIRE(values.size() == 2);
  CHECK(values[0].value == value_at_cap);
  CHECK(values[1].value == value_at_cap);
  CHECK(cut.env_values_cut == 1);
  CHECK(cut.env_vars_left_out == 0);

  // Variables of 8 + 4,088 bytes: 64 of them fill kMaxEnvBytes exactly; a 65th is left out,
  // and so is every one after it.
  const std::string value(4088, 'x');
  std::vector<EnvEntry> many;
  for (int i = 0; i < 66; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "NCCL_%03d", i);
    many.push_back({name, value});
  }
  static_assert(64 * (8 + 4088) == vprof::kMaxEnvBytes);
  vprof::HeaderCut cut_many;
  vprof::CapEnv(&many, &cut_many);
  CHECK(many.size() == 64);
  CHECK(many.back().name == "NCCL_063");
  CHECK(cut_many.env_vars_left_out == 2);
  CHECK(cut_many.env_values_cut == 0);
}
