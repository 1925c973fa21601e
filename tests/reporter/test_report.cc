// Whole reports built from trace files with known timings: matching across
// ranks, size buckets, bandwidth, lateness, lifecycle, incomplete collectives,
// send/recv and hosts with different clocks.
#include <catch2/catch.hpp>
#include <fstream>

#include "four_rank_run.h"
#include "gpu_batch_builder.h"
#include "report_of.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

const OpReport& FindOp(const CommunicatorReport& comm, const std::string& op, uint64_t bytes) {
  for (const OpReport& row : comm.ops) {
    if (row.op == op && row.bucket == BucketOf(bytes)) return row;
  }
  FAIL("no " << op << " row for " << bytes << " bytes");
  throw;
}

}  // namespace

TEST_CASE("four ranks: collectives matched, timed and bucketed") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const Report report = ReportOf(dir.path());
  CHECK(report.all_inputs_whole());
  CHECK_FALSE(report.time_source.aligned_to_realtime);
  CHECK(report.time_source.hosts == std::vector<std::string>{"node1"});

  REQUIRE(report.communicators.size() == 1);
  const CommunicatorReport& comm = report.communicators[0];
  CHECK(comm.comm_id == kFourRankComm);
  CHECK(comm.size == 4);
  CHECK(comm.ranks_seen == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(comm.created_by == "ncclCommInitRank");
  CHECK(comm.incomplete.empty());
  REQUIRE(comm.ops.size() == 3);

  // seq 1 and 2: 100 µs + 50 µs for 2 × 1 MiB.
  const OpReport& big = FindOp(comm, "ncclAllReduce", 1 << 20);
  CHECK(big.bucket.Label() == "[1MiB,2MiB)");
  CHECK(big.count == 2);
  CHECK(big.total_time_ns == 150000);
  CHECK(big.mean_time_ns == 75000);
  CHECK(big.total_bytes == 2097152);
  REQUIRE(big.algbw_gbps);
  CHECK(*big.algbw_gbps == Approx(2097152.0 / 150000.0));  // 13.98 GB/s
  CHECK(*big.busbw_gbps == Approx(2097152.0 / 150000.0 * 1.5));
  CHECK(big.mean_arrival_skew_ns == 350);  // (300 + 400) / 2
  CHECK(big.max_arrival_skew_ns == 400);
  CHECK(big.mean_exit_skew_ns == 25);  // (50 + 0) / 2
  CHECK(big.max_exit_skew_ns == 50);
  CHECK(big.most_often_last_rank == 2);
  CHECK(big.most_often_last_times == 2);

  const OpReport& small = FindOp(comm, "ncclAllReduce", 4096);
  CHECK(small.count == 1);
  CHECK(small.total_time_ns == 1000);
  CHECK(small.max_arrival_skew_ns == 500);

  // All-gather: S = 256 KiB × 4 ranks = 1 MiB in 10 µs.
  const OpReport& gather = FindOp(comm, "ncclAllGather", 1 << 20);
  CHECK(gather.total_bytes == 1048576);
  CHECK(*gather.algbw_gbps == Approx(104.8576));
  CHECK(gather.bus_factor == Approx(0.75));
  CHECK(*gather.busbw_gbps == Approx(78.6432));
  CHECK(gather.most_often_last_rank == 3);

  // Ops in NcclFunction order (all-reduce before all-gather), then by size.
  CHECK(comm.ops[0].op == "ncclAllReduce");
  CHECK(comm.ops[0].bucket.Label() == "[4KiB,8KiB)");
  CHECK(comm.ops[2].op == "ncclAllGather");
}

TEST_CASE("four ranks: lateness per rank and the lifecycle") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const Report report = ReportOf(dir.path());

  // Lateness (enter − first enter) per collective, seq 1..4:
  //   rank 0: 0 0 0 0; rank 1: 100 100 10 0; rank 2: 300 400 500 0; rank 3: 50 200 20 800.
  REQUIRE(report.ranks.size() == 4);
  const std::vector<int64_t> mean_lateness = {0, 53, 300, 268};  // 210/4, 1200/4, 1070/4 rounded
  const std::vector<uint64_t> last_arrivals = {0, 0, 3, 1};
  for (int rank = 0; rank < 4; ++rank) {
    INFO("rank " << rank);
    CHECK(report.ranks[rank].rank == rank);
    CHECK(report.ranks[rank].file == FourRankFile(rank));
    CHECK(report.ranks[rank].collectives == 4);
    CHECK(report.ranks[rank].mean_lateness_ns == mean_lateness[rank]);
    CHECK(report.ranks[rank].last_arrivals == last_arrivals[rank]);
  }

  const CommunicatorReport& comm = report.communicators[0];
  REQUIRE(comm.lifecycle.size() == 2);
  CHECK(comm.lifecycle[0].function == "ncclCommInitRank");
  CHECK(comm.lifecycle[0].calls == 4);
  CHECK(comm.lifecycle[0].total_ns == 1000);  // 100 + 200 + 300 + 400
  CHECK(comm.lifecycle[0].max_ns == 400);
  CHECK(comm.lifecycle[1].function == "ncclCommDestroy");
  CHECK(comm.lifecycle[1].calls == 4);
  CHECK(comm.lifecycle[1].total_ns == 20);
}

TEST_CASE("four ranks: processes, with the launcher as a non-rank process") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const Report report = ReportOf(dir.path());
  REQUIRE(report.processes.size() == 5);
  const ProcessReport& launcher = report.processes[0];
  CHECK(launcher.file == "node1.100.vtrace");
  CHECK_FALSE(launcher.is_rank);
  CHECK_FALSE(launcher.rank);
  CHECK(launcher.nccl_events == 0);
  const ProcessReport& rank2 = report.processes[3];
  CHECK(rank2.file == "node1.103.vtrace");
  CHECK(rank2.host == "node1");
  CHECK(rank2.pid == 103);
  CHECK(rank2.rank == 2);
  CHECK(rank2.rank_source == "communicator");
  CHECK(rank2.nccl_events == 6);  // init, 4 collectives, destroy
  CHECK(rank2.state == InputState::kWhole);
  CHECK(rank2.end_reason == "exit");
}

TEST_CASE("a process its launcher ranked is a rank once it runs kernels, NCCL or not") {
  // A one-process torchrun job: RANK=0, GPU kernels, no NCCL. Its data-loader worker, forked
  // from it, inherits RANK=0 and runs no kernels. A launcher has neither.
  ScratchDir dir;
  TraceFileBuilder worker("node1", 200, 0);
  GpuBatchBuilder(worker).Kernel("gemm", 1000, 1).Kernel("gemm", 1000, 2).Write();
  worker.AddFooter();
  worker.WriteTo(dir.File("node1.200.vtrace"));
  TraceFileBuilder loader("node1", 201, 0);
  loader.AddFooter();
  loader.WriteTo(dir.File("node1.201.vtrace"));
  TraceFileBuilder launcher("node1", 199);
  launcher.AddFooter();
  launcher.WriteTo(dir.File("node1.199.vtrace"));

  const Report report = ReportOf(dir.path());
  REQUIRE(report.processes.size() == 3);
  CHECK_FALSE(report.processes[0].is_rank);  // the launcher
  CHECK(report.processes[1].is_rank);        // the worker
  CHECK(report.processes[1].rank == 0);
  CHECK(report.processes[1].rank_source == "header");
  CHECK_FALSE(report.processes[2].is_rank);  // the data loader
  CHECK_FALSE(report.processes[2].rank);
}

TEST_CASE("a missing rank leaves its collectives incomplete") {
  ScratchDir dir;
  WriteFourRankRun(dir.path(), /*skip_rank=*/3);
  const Report report = ReportOf(dir.path());
  CHECK(report.all_inputs_whole());  // every file that is there is whole
  const CommunicatorReport& comm = report.communicators[0];
  CHECK(comm.ranks_seen == std::vector<uint32_t>{0, 1, 2});
  CHECK(comm.ops.empty());
  // seq 1-3 (all-reduce) form one run; seq 4 is another op.
  REQUIRE(comm.incomplete.size() == 2);
  const IncompleteReport& reduces = comm.incomplete[0];
  CHECK(reduces.op == "ncclAllReduce");
  CHECK(reduces.first_seq == 1);
  CHECK(reduces.last_seq == 3);
  CHECK(reduces.count == 3);
  CHECK(reduces.expected_ranks == 4);
  CHECK(reduces.seen_comm_ranks == std::vector<uint32_t>{0, 1, 2});
  CHECK(reduces.missing_comm_ranks == std::vector<RankRange>{{3, 3}});
  CHECK(comm.incomplete[1].op == "ncclAllGather");
  CHECK(comm.incomplete[1].first_seq == 4);
}

TEST_CASE("a send is matched with its recv") {
  ScratchDir dir;
  TraceFileBuilder sender("node1", 1, 0);
  auto send = sender.Event("ncclSend", 0x55, 2, 0, 1, 1 << 20, 1000, 2000);
  send.set_peer(1);
  sender.AddBatch({send});
  sender.AddFooter();
  sender.WriteTo(dir.File("node1.1.vtrace"));
  TraceFileBuilder receiver("node1", 2, 1);
  auto recv = receiver.Event("ncclRecv", 0x55, 2, 1, 1, 1 << 20, 1500, 2100);
  recv.set_peer(0);
  receiver.AddBatch({recv});
  receiver.AddFooter();
  receiver.WriteTo(dir.File("node1.2.vtrace"));

  const Report report = ReportOf(dir.path());
  REQUIRE(report.communicators.size() == 1);
  const CommunicatorReport& comm = report.communicators[0];
  CHECK(comm.incomplete.empty());
  REQUIRE(comm.ops.size() == 1);
  const OpReport& pair = comm.ops[0];
  CHECK(pair.op == "ncclSend/ncclRecv");
  CHECK(pair.count == 1);
  CHECK(pair.total_time_ns == 600);  // last exit 2100 − last enter 1500
  CHECK(pair.max_arrival_skew_ns == 500);
  CHECK(pair.most_often_last_rank == 1);
  CHECK(pair.bus_factor == 1.0);
  CHECK(*pair.busbw_gbps == Approx(1048576.0 / 600.0));
  // Send/recv is not counted as a collective per rank.
  REQUIRE(report.ranks.size() == 2);
  CHECK(report.ranks[0].collectives == 0);
  CHECK(report.ranks[0].rank == 0);  // from the header
  CHECK(report.processes[0].rank_source == "header");
}

TEST_CASE("hosts with different clocks are aligned through their clock samples") {
  ScratchDir dir;
  // Host a: realtime = monotonic + 5 s (samples 5e9, 5e9+10, 5e9-20: median 5e9,
  // spread 30). Host b: realtime = monotonic + 1 s (samples 1e9, 1e9+40: median
  // 1e9+20, spread 40). Rank 0 enters at realtime 5e9+1000; rank 1 at
  // monotonic 4e9+1500, i.e. realtime 5e9+1520 with b's median.
  TraceFileBuilder a("a", 1, 0);
  for (int64_t offset : {0, 10, -20}) a.AddClockSample(1000, 5'000'001'000 + offset);
  a.AddBatch({a.Event("ncclAllReduce", 0x77, 2, 0, 1, 1024, 1000, 2500)});
  a.AddFooter();
  a.WriteTo(dir.File("a.1.vtrace"));
  TraceFileBuilder b("b", 2, 1);
  for (int64_t offset : {0, 40}) b.AddClockSample(1000, 1'000'001'000 + offset);
  b.AddBatch({b.Event("ncclAllReduce", 0x77, 2, 1, 1, 1024, 4'000'001'500, 4'000'002'600)});
  b.AddFooter();
  b.WriteTo(dir.File("b.2.vtrace"));
  // A launcher on a third host, without clock samples: left unshifted.
  TraceFileBuilder launcher("c", 3);
  launcher.AddFooter();
  launcher.WriteTo(dir.File("c.3.vtrace"));

  const Report report = ReportOf(dir.path());
  CHECK(report.time_source.aligned_to_realtime);
  CHECK(report.time_source.hosts == std::vector<std::string>{"a", "b", "c"});
  CHECK(report.time_source.clock_error_bound_ns == 40);
  CHECK(report.time_source.unaligned_processes == 1);
  CHECK(report.processes[0].clock_offset_ns == 5'000'000'000);
  CHECK(report.processes[0].clock_samples.count == 3);
  CHECK(report.processes[0].clock_samples.spread_ns() == 30);
  CHECK(report.processes[1].clock_offset_ns == 1'000'000'020);
  const OpReport& op = report.communicators[0].ops[0];
  CHECK(op.total_time_ns == 1100);       // rank 1: last in and last out
  CHECK(op.max_arrival_skew_ns == 520);  // 5e9+1520 − (5e9+1000)
  CHECK(op.most_often_last_rank == 1);
}

TEST_CASE("dropped events and failed calls are counted per process") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 9, 0);
  auto failed = trace.Event("ncclAllReduce", 0x9, 1, 0, 1, 64, 10, 20);
  failed.set_result(2);  // ncclSystemError
  trace.AddBatch({failed, trace.Event("ncclAllReduce", 0x9, 1, 0, 2, 64, 30, 40)}, 3);
  trace.AddBatch({}, 4);  // a batch that only reports drops
  const size_t before_footer = trace.bytes().size();
  // The Footer's total: the 7 drops in batches and 2 that never reached one.
  trace.AddFooter(vprof::trace::END_REASON_SIGNAL, 9);
  trace.WriteTo(dir.File("node1.9.vtrace"));
  const Report whole = ReportOf(dir.path());
  const ProcessReport& process = whole.processes[0];
  CHECK(process.nccl_events == 2);
  CHECK(process.failed_calls == 1);
  CHECK(process.dropped_events == 9);
  CHECK(process.end_reason == "signal");
  CHECK(whole.communicators[0].ops[0].count == 2);  // a 1-rank communicator matches at once

  trace.WriteTo(dir.File("node1.9.vtrace"), before_footer);  // without a Footer: the batches' sum
  CHECK(ReportOf(dir.path()).processes[0].dropped_events == 3 + 4);
}

// One process whose trace holds one call and ends in a Footer of `reason`.
struct OneCallEndingIn {
  explicit OneCallEndingIn(vprof::trace::EndReason reason) {
    TraceFileBuilder trace("node1", 9, 0);
    trace.AddBatch({trace.Event("ncclAllReduce", 0x9, 1, 0, 1, 64, 10, 20)}, 0);
    trace.AddFooter(reason, 0);
    trace.WriteTo(dir.File("node1.9.vtrace"));
    report = ReportOf(dir.path());
  }
  ScratchDir dir;
  Report report;
};

TEST_CASE("a trace ending in the provisional Footer is whole, its end named unobserved") {
  const OneCallEndingIn trace(vprof::trace::END_REASON_UNOBSERVED);
  const ProcessReport& process = trace.report.processes[0];
  CHECK(process.state == InputState::kWhole);
  CHECK(trace.report.all_inputs_whole());
  CHECK(process.end_reason == "unobserved");
  CHECK(process.problem.find("ended unobserved") == 0);
  CHECK(process.nccl_events == 1);
}

TEST_CASE("a trace whose writes stalled at exit is whole, its end and its loss named") {
  const OneCallEndingIn trace(vprof::trace::END_REASON_WRITES_STALLED);
  const ProcessReport& process = trace.report.processes[0];
  CHECK(process.state == InputState::kWhole);
  CHECK(process.end_reason == "writes_stalled");
  CHECK(process.problem.find("writes stalled as it exited") != std::string::npos);
  CHECK(process.problem.find("records after the last whole write are missing") !=
        std::string::npos);
  CHECK(process.nccl_events == 1);
}

TEST_CASE("packets after the Footer are not used, and the file is not whole") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 9, 0);
  trace.AddBatch({trace.Event("ncclAllReduce", 0x9, 1, 0, 1, 64, 10, 20)}, 0);
  trace.AddFooter();
  trace.AddBatch({trace.Event("ncclAllReduce", 0x9, 2, 0, 1, 64, 30, 40)}, 0);
  const uint64_t after = trace.packet_offsets().back();  // where that batch starts
  trace.WriteTo(dir.File("node1.9.vtrace"));
  const Report report = ReportOf(dir.path());
  const ProcessReport& process = report.processes[0];
  CHECK(process.state == InputState::kCorrupt);
  CHECK_FALSE(report.all_inputs_whole());
  CHECK(process.nccl_events == 1);
  CHECK(process.problem ==
        "1 packet after the Footer (the first at byte " + std::to_string(after) + "): not used");
}

TEST_CASE("clock samples are counted on one host too, without shifting times") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 5, 0);
  trace.AddClockSample(1000, 7000);
  trace.AddClockSample(2000, 8010);
  trace.AddBatch({trace.Event("ncclAllReduce", 0x5, 1, 0, 1, 64, 100, 300)});
  trace.AddFooter();
  trace.WriteTo(dir.File("node1.5.vtrace"));
  const Report report = ReportOf(dir.path());
  CHECK_FALSE(report.time_source.aligned_to_realtime);
  CHECK(report.time_source.clock_error_bound_ns == 0);
  CHECK(report.processes[0].clock_samples.count == 2);
  CHECK(report.processes[0].clock_samples.spread_ns() == 10);  // offsets 6000 and 6010
  CHECK(report.processes[0].clock_offset_ns == 0);
  CHECK(report.communicators[0].ops[0].total_time_ns == 200);
}

TEST_CASE("a split is counted for the communicator it made, not the one it was given") {
  ScratchDir dir;
  constexpr uint64_t kWorld = 0x1, kHalf = 0x2;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace("node1", 20 + rank);
    trace.AddCommunicator(kWorld, 2, rank, "ncclCommInitRank", 0, 1000);
    // ncclCommSplit's event names its parent; the packet names the new one.
    trace.AddCommunicator(kHalf, 1, 0, "ncclCommSplit", 2000, 2500 + rank, kWorld);
    trace.AddBatch({trace.Event("ncclCommInitRank", kWorld, 2, rank, 0, 0, 0, 1000),
                    trace.Event("ncclCommSplit", kWorld, 2, rank, 0, 0, 2000, 2500 + rank)});
    trace.AddFooter();
    trace.WriteTo(dir.File("node1." + std::to_string(20 + rank) + ".vtrace"));
  }
  const Report report = ReportOf(dir.path());
  REQUIRE(report.communicators.size() == 2);
  const CommunicatorReport& world = report.communicators[0];
  REQUIRE(world.lifecycle.size() == 1);
  CHECK(world.lifecycle[0].function == "ncclCommInitRank");
  CHECK(world.lifecycle[0].calls == 2);
  CHECK(world.lifecycle[0].total_ns == 2000);
  const CommunicatorReport& half = report.communicators[1];
  CHECK(half.created_by == "ncclCommSplit");
  CHECK(half.parent_comm_id == kWorld);
  CHECK(half.ranks_seen == std::vector<uint32_t>{0});
  REQUIRE(half.lifecycle.size() == 1);
  CHECK(half.lifecycle[0].function == "ncclCommSplit");
  CHECK(half.lifecycle[0].calls == 2);
  CHECK(half.lifecycle[0].total_ns == 500 + 501);
  CHECK(half.lifecycle[0].max_ns == 501);
}

TEST_CASE("an EventBatch missing from the middle of a trace is named, the rest used") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 9, 0);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    trace.AddBatch({trace.Event("ncclAllReduce", 0x9, 1, 0, seq, 64, 10 * seq, 10 * seq + 5)});
  }
  trace.AddFooter();
  // Packets: header (1), the interned name (2), three batches (3-5), the Footer (6). The
  // second batch's bytes go: sequence 3 to 5.
  const std::vector<uint64_t>& at = trace.packet_offsets();
  REQUIRE(at.size() == 6);
  const std::string bytes = trace.bytes().substr(0, at[3]) + trace.bytes().substr(at[4]);
  std::ofstream(dir.File("node1.9.vtrace"), std::ios::binary) << bytes;
  const Report report = ReportOf(dir.path());
  const ProcessReport& process = report.processes[0];
  CHECK(process.state == InputState::kCorrupt);
  CHECK_FALSE(report.all_inputs_whole());
  CHECK(process.missing_packets == 1);
  CHECK(process.nccl_events == 2);
  CHECK(process.end_reason == "exit");
  CHECK(process.problem == "1 packet missing: the sequence goes from 3 to 5 at byte " +
                               std::to_string(at[3]) + "; the packets around them used");
}

TEST_CASE("the packets a stalled write lost, before its Footer, are that loss and not a gap") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 9, 0);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    trace.AddBatch({trace.Event("ncclAllReduce", 0x9, 1, 0, seq, 64, 10 * seq, 10 * seq + 5)});
  }
  trace.AddFooter(vprof::trace::END_REASON_WRITES_STALLED);
  // As the writer leaves it: the last two batches (sequences 4 and 5) never written, the
  // Footer (6) after the last whole write.
  const std::vector<uint64_t>& at = trace.packet_offsets();
  const std::string bytes = trace.bytes().substr(0, at[3]) + trace.bytes().substr(at[5]);
  std::ofstream(dir.File("node1.9.vtrace"), std::ios::binary) << bytes;
  const Report report = ReportOf(dir.path());
  const ProcessReport& process = report.processes[0];
  CHECK(process.state == InputState::kWhole);
  CHECK(process.missing_packets == 0);
  CHECK(process.nccl_events == 1);
  CHECK(process.problem.find("records after the last whole write are missing") !=
        std::string::npos);
  CHECK(process.problem.find("missing:") == std::string::npos);
}
