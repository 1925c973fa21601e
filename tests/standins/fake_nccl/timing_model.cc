#include "timing_model.h"

#include <cstdio>
#include <cstdlib>

#include "errors.h"

namespace fake_nccl {
namespace {

// Reads a number from the environment into *value, leaving it alone if the variable is unset.
ncclResult_t ReadNumber(const char* variable, double minimum, double* value) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return ncclSuccess;
  char* end = nullptr;
  const double parsed = std::strtod(text, &end);
  if (*end != '\0' || !(parsed >= minimum)) {
    return SystemFail(std::string(variable) + "=" + text +
                      " is not a number >= " + std::to_string(minimum));
  }
  *value = parsed;
  return ncclSuccess;
}

}  // namespace

ncclResult_t TimingModel::FromEnvironment(TimingModel* model) {
  double latency_us = model->latency_ns / 1e3;
  double busbw_gbps = model->busbw_bytes_per_ns;
  double timeout_s = static_cast<double>(model->timeout_ns) / 1e9;
  double on_stream = model->collectives_on_stream ? 1.0 : 0.0;
  for (const ncclResult_t result : {ReadNumber("FAKE_NCCL_LATENCY_US", 0.0, &latency_us),
                                    ReadNumber("FAKE_NCCL_BUSBW_GBPS", 1e-6, &busbw_gbps),
                                    ReadNumber("FAKE_NCCL_TIMEOUT_S", 1e-3, &timeout_s),
                                    ReadNumber("FAKE_NCCL_KERNELS", 0.0, &on_stream)}) {
    if (result != ncclSuccess) return result;
  }
  if (on_stream != 0.0 && on_stream != 1.0) {
    return SystemFail("FAKE_NCCL_KERNELS=" + std::string(std::getenv("FAKE_NCCL_KERNELS")) +
                      " is neither 0 nor 1");
  }
  model->collectives_on_stream = on_stream == 1.0;
  model->latency_ns = latency_us * 1e3;
  model->busbw_bytes_per_ns = busbw_gbps;
  model->timeout_ns = static_cast<uint64_t>(timeout_s * 1e9);
  return ncclSuccess;
}

uint64_t TimingModel::SimulatedNs(OpKind kind, size_t count, size_t type_bytes, int nranks) const {
  const double n = nranks;
  const double message_bytes = static_cast<double>(count) * static_cast<double>(type_bytes);
  double size = message_bytes;  // S
  double bus_factor = 1.0;
  switch (kind) {
    case OpKind::kAllReduce:
      bus_factor = 2.0 * (n - 1.0) / n;
      break;
    case OpKind::kAllGather:
    case OpKind::kReduceScatter:
    case OpKind::kAllToAll:
    case OpKind::kGather:
    case OpKind::kScatter:
      size = message_bytes * n;
      bus_factor = (n - 1.0) / n;
      break;
    case OpKind::kBroadcast:
    case OpKind::kReduce:
    case OpKind::kSend:
    case OpKind::kRecv:
      break;
  }
  return static_cast<uint64_t>(latency_ns + size * bus_factor / busbw_bytes_per_ns);
}

std::string TimingModel::TimeoutText() const {
  char text[64];
  std::snprintf(text, sizeof text, "timeout after %g s", static_cast<double>(timeout_ns) / 1e9);
  return text;
}

}  // namespace fake_nccl
