#include "reporter/node_summary/summary_replay_codec.h"

#include "reporter/collectives/nccl_function.h"
#include "reporter/node_summary/summary_codec.h"

namespace vprof::reporter {

void EncodeReplayWork(const std::vector<ReplayWork>& works,
                      google::protobuf::RepeatedPtrField<vprof::summary::ReplayWork>& out) {
  out.Reserve(static_cast<int>(works.size()));
  for (const ReplayWork& work : works) {
    vprof::summary::ReplayWork& row = *out.Add();
    row.set_launch_ns(work.launch_ns);
    row.set_start_ns(work.start_ns);
    row.set_end_ns(work.end_ns);
    row.set_comm_id(work.comm_id);
    row.set_seq(work.seq);
    row.set_name(static_cast<uint32_t>(work.name));
    row.set_stream(work.stream);
    row.set_tid(work.tid);
    row.set_phase(work.phase);
    row.set_kind(static_cast<vprof::summary::ReplayWork::Kind>(work.kind));
    if (work.kind == WorkKind::kComm) row.set_op(std::string(NcclFunctionName(work.function)));
    row.set_optimizer(work.optimizer);
    row.set_whole_graph(work.whole_graph);
    row.set_from_graph(work.from_graph);
  }
}

std::string DecodeReplayWork(
    const google::protobuf::RepeatedPtrField<vprof::summary::ReplayWork>& works, size_t names,
    size_t phases, std::vector<ReplayWork>& out) {
  out.reserve(out.size() + static_cast<size_t>(works.size()));
  for (int i = 0; i < works.size(); ++i) {
    const vprof::summary::ReplayWork& row = works[i];
    const std::string field = "RankStep.replay[" + std::to_string(i) + "].";
    if (row.name() >= names) {
      return field + "name: " + std::to_string(row.name()) + ", not one of the rank's " +
             std::to_string(names) + " replay names";
    }
    if (row.phase() >= phases) {
      return field + "phase: " + std::to_string(row.phase()) + ", not one of the rank's " +
             std::to_string(phases) + " phase names";
    }
    if (!vprof::summary::ReplayWork::Kind_IsValid(row.kind())) {
      return field + "kind: " + std::to_string(row.kind()) +
             ", expected COMPUTE (0), COMM (1) or COPY (2)";
    }
    if (row.start_ns() > row.end_ns()) {
      return field + "start_ns: " + std::to_string(row.start_ns()) + " is after end_ns " +
             std::to_string(row.end_ns());
    }
    ReplayWork& work = out.emplace_back();
    work.launch_ns = row.launch_ns();
    work.start_ns = row.start_ns();
    work.end_ns = row.end_ns();
    work.comm_id = row.comm_id();
    work.seq = row.seq();
    work.name = row.name();
    work.stream = row.stream();
    work.tid = row.tid();
    work.phase = static_cast<PhaseIndex>(row.phase());
    work.kind = static_cast<WorkKind>(row.kind());
    if (work.kind == WorkKind::kComm) work.function = DecodeFunction(row.op());
    work.optimizer = row.optimizer();
    work.whole_graph = row.whole_graph();
    work.from_graph = row.from_graph();
  }
  return "";
}

}  // namespace vprof::reporter
