#include "errors.h"

#include <cstdio>

namespace fake_nccl {
namespace {

// A plain array, not a std::string: thread_local objects with destructors would run them at
// thread exit, and the stand-in must not depend on destruction order at exit.
thread_local char t_last_error[512];

}  // namespace

ncclResult_t Fail(ncclResult_t result, const std::string& message) {
  std::snprintf(t_last_error, sizeof t_last_error, "%s", message.c_str());
  return result;
}

ncclResult_t SystemFail(const std::string& message) {
  std::fprintf(stderr, "fake NCCL: %s\n", message.c_str());
  return Fail(ncclSystemError, message);
}

const char* LastErrorMessage() { return t_last_error; }

}  // namespace fake_nccl
