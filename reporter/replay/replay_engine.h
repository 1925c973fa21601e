// The replay: a step's graph (replay_graph.h) run again, as measured or with
// a change (replay_change.h), every piece starting once what it waits for is
// done and lasting its (changed) time, every collective ending when its last
// member has arrived and its transfer is done. Events are taken in the order
// they were measured in, which every dependency of the graph respects, so
// one pass computes every replayed time.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reporter/replay/replay_change.h"
#include "reporter/replay/replay_graph.h"

namespace vprof::reporter {

struct ReplayOutcome {
  int64_t step_ns = 0;  // earliest rank start to latest rank end, replayed
  // The replayed step's critical path, walked back from its end: where its
  // time is, by what ("compute in backward", "host gaps", "transfer of
  // gradient buckets", "waiting for ..."), most first.
  std::vector<std::pair<std::string, int64_t>> critical_path;
  uint32_t critical_rank = 0;  // the rank whose end ends the replayed step
};

// `steps` gives the names the change's rules read. A change whose
// runs_like ranks' pieces do not line up returns none.
std::optional<ReplayOutcome> Replay(const ReplayGraph& graph, const StepsReport& steps,
                                    const ReplayChange& change);

}  // namespace vprof::reporter
