#include "reporter/gpu/export_names.h"

#include <cxxabi.h>

#include <array>
#include <cstdlib>
#include <memory>

#include "reporter/gpu/nccl_kernel_linker.h"

namespace vprof::reporter {
namespace {

// CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind, as Kineto spells them.
constexpr std::array<std::string_view, 11> kCopyKinds = {
    "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
constexpr std::array<std::string_view, 8> kMemoryKinds = {
    "Unknown", "Pageable", "Pinned",        "Device",
    "Array",   "Managed",  "Device Static", "Managed Static"};

// ncclDataType_t (nccl.h), by number.
constexpr std::array<std::string_view, 12> kNcclDataTypes = {
    "ncclInt8",    "ncclUint8",    "ncclInt32",      "ncclUint32",
    "ncclInt64",   "ncclUint64",   "ncclFloat16",    "ncclFloat32",
    "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};

// ncclRedOp_t's built-in operations; later numbers are ops a program made
// (ncclRedOpCreatePreMulSum).
constexpr std::array<std::string_view, 5> kNcclRedOps = {"ncclSum", "ncclProd", "ncclMax",
                                                         "ncclMin", "ncclAvg"};

template <size_t N>
std::string_view NameAt(const std::array<std::string_view, N>& names, uint64_t index) {
  return index < N ? names[index] : names[0];
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

std::string DemangledKernelName(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  const std::string mangled(name);
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

std::string_view ApiNameWithoutVersion(std::string_view name) {
  const size_t suffix = name.rfind("_v");
  if (suffix == std::string_view::npos || suffix + 2 == name.size()) return name;
  const std::string_view version = name.substr(suffix + 2);
  const bool digits = version.find_first_not_of("0123456789") == std::string_view::npos;
  return digits ? name.substr(0, suffix) : name;
}

bool LaunchesGpuWork(std::string_view api_name) {
  return LaunchesKernel(api_name) || Contains(api_name, "Memcpy") || Contains(api_name, "Memset");
}

std::string MemcpyName(uint32_t copy_kind, uint32_t src_kind, uint32_t dst_kind) {
  std::string name = "Memcpy ";
  name += NameAt(kCopyKinds, copy_kind);
  name += " (";
  name += NameAt(kMemoryKinds, src_kind);
  name += " -> ";
  name += NameAt(kMemoryKinds, dst_kind);
  name += ")";
  return name;
}

std::string_view NcclDataTypeName(int32_t datatype) {
  if (datatype < 0 || static_cast<size_t>(datatype) >= kNcclDataTypes.size()) return "unknown";
  return kNcclDataTypes[static_cast<size_t>(datatype)];
}

std::string NcclRedOpName(int32_t red_op) {
  if (red_op < 0) return "none";
  if (static_cast<size_t>(red_op) < kNcclRedOps.size()) {
    return std::string(kNcclRedOps[static_cast<size_t>(red_op)]);
  }
  return "user op " + std::to_string(red_op);
}

}  // namespace vprof::reporter
