#include "common/gpu_kinds.h"

#include <cctype>
#include <vector>

namespace vprof {
namespace {

struct KindRow {
  const char* name;
  bool light;
  bool all;
};
constexpr KindRow kRows[] = {
#define VPROF_GPU_KIND(name, light, all) {#name, light, all},
#include "common/gpu_kinds.def"
#undef VPROF_GPU_KIND
};
static_assert(std::size(kRows) == kGpuKindCount);

constexpr std::string_view kSelectedApi = "SELECTED_API";

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool RecordsEveryCall(size_t row) {
  return row == static_cast<size_t>(GpuKind::kRUNTIME) ||
         row == static_cast<size_t>(GpuKind::kDRIVER);
}

}  // namespace

GpuKinds LightGpuKinds() {
  GpuKinds light;
  for (size_t i = 0; i < kGpuKindCount; ++i) light.kinds[i] = kRows[i].light;
  light.api_records = ApiRecords::kSelected;
  light.mode = "light";
  return light;
}

bool ParseGpuKinds(std::string_view setting, GpuKinds* out) {
  const std::string_view whole = Trimmed(setting);
  if (whole.empty() || SameName(whole, "light")) {
    *out = LightGpuKinds();
    return true;
  }
  if (SameName(whole, "all")) {
    GpuKinds all;
    for (size_t i = 0; i < kGpuKindCount; ++i) all.kinds[i] = kRows[i].all;
    all.api_records = ApiRecords::kAll;
    all.mode = "all";
    *out = all;
    return true;
  }
  GpuKinds list;
  list.api_records = ApiRecords::kNone;
  list.mode = std::string(whole);
  for (size_t start = 0; start <= whole.size();) {
    size_t comma = whole.find(',', start);
    if (comma == std::string_view::npos) comma = whole.size();
    const std::string_view name = Trimmed(whole.substr(start, comma - start));
    start = comma + 1;
    if (SameName(name, "light")) {
      list.kinds |= LightGpuKinds().kinds;
      if (list.api_records == ApiRecords::kNone) list.api_records = ApiRecords::kSelected;
      continue;
    }
    if (SameName(name, kSelectedApi)) {
      if (list.api_records == ApiRecords::kNone) list.api_records = ApiRecords::kSelected;
      continue;
    }
    size_t row = 0;
    while (row < kGpuKindCount && !SameName(name, kRows[row].name)) ++row;
    if (row == kGpuKindCount) return false;
    list.kinds.set(row);
    if (RecordsEveryCall(row)) list.api_records = ApiRecords::kAll;
  }
  *out = std::move(list);
  return true;
}

std::string GpuKindsExpected() {
  std::string names = "light, all, or a comma-separated list of light, ";
  for (const KindRow& row : kRows) names += std::string(row.name) + ", ";
  return names + std::string(kSelectedApi);
}

}  // namespace vprof
