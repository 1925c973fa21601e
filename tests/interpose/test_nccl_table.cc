// Every row of the NCCL table resolves to the real library, through the path
// real PyTorch needs: libnccl loaded into an RTLD_LOCAL scope, where
// dlsym(RTLD_NEXT) finds nothing.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "interpose/core/symbol_resolver.h"
#include "interpose/nccl/nccl_functions.h"

TEST_CASE("each table row resolves to the RTLD_LOCAL-loaded NCCL, never to vprof") {
  const char* dir = std::getenv("VPROF_TEST_STANDINS");
  REQUIRE(dir != nullptr);
  // Nothing defines NCCL yet: resolution fails rather than guessing.
  CHECK(vprof::ResolveRealSymbol("ncclAllReduce") == nullptr);

  std::string lib = std::string(dir) + "/libnccl.so.2";
  void* nccl = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(nccl != nullptr);
  // The premise: the global scope does not see it.
  CHECK(dlsym(RTLD_NEXT, "ncclAllReduce") == nullptr);
  CHECK(dlsym(RTLD_DEFAULT, "pncclAllReduce") == nullptr);

  for (size_t i = 0; i < vprof::kNcclFnCount; ++i) {
    auto fn = static_cast<vprof::NcclFn>(i);
    const char* name = vprof::NcclFunctionName(fn);
    INFO(name);
    void* real = vprof::RealNccl(fn);
    REQUIRE(real != nullptr);
    CHECK(real == dlsym(nccl, name));
    CHECK_FALSE(vprof::IsOwnAddress(real));
  }
  // Functions outside the table resolve the same way.
  CHECK(vprof::RealNcclAux("ncclCommCount") == dlsym(nccl, "ncclCommCount"));
}

TEST_CASE("table names are NCCL's exported names") {
  CHECK(std::string(vprof::NcclFunctionName(vprof::NcclFn::kAllReduce)) == "ncclAllReduce");
  CHECK(std::string(vprof::NcclFunctionName(vprof::NcclFn::kGroupEnd)) == "ncclGroupEnd");
  CHECK(std::string(vprof::NcclFunctionName(vprof::NcclFn::kRedOpCreatePreMulSum)) ==
        "ncclRedOpCreatePreMulSum");
}
