// Error reporting: every failure records a message for ncclGetLastError; system errors
// (timeouts, failed system calls) are also printed on stderr, since they are what a user of the
// stand-in has to debug.
#pragma once

#include <string>

#include "nccl.h"

namespace fake_nccl {

ncclResult_t Fail(ncclResult_t result, const std::string& message);
ncclResult_t SystemFail(const std::string& message);
// The calling thread's last failure message, or "" if none.
const char* LastErrorMessage();

}  // namespace fake_nccl
