// What NCCL_ALGO and NCCL_PROTO allow, read the way NCCL reads them
// (src/graph/tuning.cc parseList): comma-separated names, case ignored; a
// leading "^" makes the list the excluded ones; an optional first list for
// every function, then "function:list" entries separated by ";" for single
// functions ("ring,tree;allreduce:^tree").
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace vprof::reporter {

// A name of NCCL's as it compares them: upper case, without "_" or "-", so
// that the plugin's "NVLS_TREE" is NCCL_ALGO's "NVLSTree" and its "SIMPLE" is
// NCCL_PROTO's "Simple".
std::string NormalizeNcclName(std::string_view name);

class NcclSelection {
 public:
  static NcclSelection Parse(std::string_view value);

  // Whether `func` (as the plugin names it: "AllReduce") may run with `name`
  // (an algorithm or protocol, as the plugin names it: "RING").
  bool Allows(std::string_view func, std::string_view name) const;

 private:
  struct List {
    bool exclude = false;
    std::set<std::string> names;  // normalized
  };
  static List ParseList(std::string_view list);

  std::optional<List> every_function_;
  std::map<std::string, List> per_function_;  // by normalized function name
};

}  // namespace vprof::reporter
