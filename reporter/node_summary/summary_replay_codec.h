// The replay's kept work of a rank's steps (reporter/steps/step_report.h
// ReplayWork) to and from a node summary, so a run summarized node by node
// projects its candidates as one reported whole does.
#pragma once

#include <string>

#include "reporter/node_summary/node_summary.pb.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

void EncodeReplayWork(const std::vector<ReplayWork>& works,
                      google::protobuf::RepeatedPtrField<vprof::summary::ReplayWork>& out);

// Appends `works` to `out`, checking every index against the rank's
// `names` and `phases`. Returns what is wrong ("RankStep.replay[3].name:
// ..."), or "".
std::string DecodeReplayWork(
    const google::protobuf::RepeatedPtrField<vprof::summary::ReplayWork>& works, size_t names,
    size_t phases, std::vector<ReplayWork>& out);

}  // namespace vprof::reporter
