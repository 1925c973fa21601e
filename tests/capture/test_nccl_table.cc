// Every row of the NCCL table resolves to the real library, through the path
// real PyTorch needs: libnccl loaded into an RTLD_LOCAL scope, where
// dlsym(RTLD_NEXT) finds nothing.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "nccl_functions.h"
#include "symbol_resolver.h"

TEST_CASE("each table row resolves to the RTLD_LOCAL-loaded NCCL, never to vprof") {
  const char* dir = std::getenv("VPROF_TEST_STANDINS");
  REQUIRE(dir != nullptr);
  // Nothing defines NCCL yet: resolution fails rather than guessing.
  CHECK(vprof::resolve_real_symbol("ncclAllReduce") == nullptr);

  std::string lib = std::string(dir) + "/libnccl.so.2";
  void* nccl = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(nccl != nullptr);
  // The premise: the global scope does not see it.
  CHECK(dlsym(RTLD_NEXT, "ncclAllReduce") == nullptr);
  CHECK(dlsym(RTLD_DEFAULT, "pncclAllReduce") == nullptr);

  for (size_t i = 0; i < vprof::kNcclFnCount; ++i) {
    auto fn = static_cast<vprof::NcclFn>(i);
    const char* name = vprof::nccl_function_name(fn);
    INFO(name);
    void* real = vprof::real_nccl(fn);
    REQUIRE(real != nullptr);
    CHECK(real == dlsym(nccl, name));
    CHECK_FALSE(vprof::is_own_address(real));
  }
  // Functions outside the table resolve the same way.
  CHECK(vprof::real_nccl_aux("ncclCommCount") == dlsym(nccl, "ncclCommCount"));
}

TEST_CASE("table names are NCCL's exported names") {
  CHECK(std::string(vprof::nccl_function_name(vprof::NcclFn::kAllReduce)) == "ncclAllReduce");
  CHECK(std::string(vprof::nccl_function_name(vprof::NcclFn::kGroupEnd)) == "ncclGroupEnd");
  CHECK(std::string(vprof::nccl_function_name(vprof::NcclFn::kRedOpCreatePreMulSum)) ==
        "ncclRedOpCreatePreMulSum");
}
