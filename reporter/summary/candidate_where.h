// Where a candidate's time is, as every output says it: "rank 3, in
// backward, at gradient buckets".
#pragma once

#include <string>

#include "reporter/model/candidate_report.h"

namespace vprof::reporter {

// Empty when the candidate names no rank, phase or role.
inline std::string CandidateWhere(const CandidateReport& c) {
  std::string where;
  const auto add = [&](const std::string& part) { where += (where.empty() ? "" : ", ") + part; };
  if (c.rank) add("rank " + std::to_string(*c.rank));
  if (!c.phase.empty()) add("in " + c.phase);
  if (!c.role.empty()) add("at " + c.role);
  return where;
}

}  // namespace vprof::reporter
