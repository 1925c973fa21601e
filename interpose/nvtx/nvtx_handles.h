// What vprof hands back to NVTX as opaque handles: a domain
// (nvtxDomainHandle_t) and a registered string (nvtxStringHandle_t).
//
// Made by the registration calls (rare, not the hot path, so they may
// allocate) and never freed: a range recorded in a thread buffer may still
// point to them when the program destroys the domain, and NVTX offers no
// moment after which no record does.
#pragma once

#include <string>

namespace vprof {

struct NvtxDomain {
  std::string name;
};

struct NvtxRegisteredString {
  std::string text;
};

}  // namespace vprof
