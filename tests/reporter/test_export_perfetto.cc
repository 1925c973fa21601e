// `vprof export --format perfetto` end to end: the two-rank run read back with
// the protobuf classes of perfetto_trace.proto and checked slice by slice
// against the Chrome export of the same run (an independent writer, read with
// an independent JSON parser); nesting on one track with equal timestamps;
// overlapping slices on a lane of their own; names interned with one iid.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "cli_runner.h"
#include "export_trace_builder.h"
#include "mini_json.h"
#include "reporter/base/exit_status.h"
#include "reporter/export/perfetto_trace.pb.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;
namespace run = vprof::reporter::testing::export_run;
namespace pf = vprof::perfetto;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

// A slice or instant as both formats can say it: process (its place in the
// export), category, name, start and end on the plan's clock.
using Slice = std::tuple<int, std::string, std::string, int64_t, int64_t>;

// The trace read back as Perfetto's documentation says a reader must: per
// packet sequence, its interned entries (an iid used before its sequence
// carried it fails the test), its defaults (the track of an event that names
// none) and its clocks (an incremental clock's timestamps are changes since
// the sequence's previous packet); begin/end pairs matched on their track's
// stack in file order.
struct ReadBack {
  std::map<uint64_t, pf::TrackDescriptor> tracks;  // by uuid
  std::multiset<Slice> slices;
  std::vector<std::tuple<std::string, int64_t, int64_t>> counters;  // track name, at, value
  std::map<std::string, std::set<uint64_t>> name_iids;  // the iids each event name was given
  std::map<std::string, std::string> metadata;          // the "vprof export" event's annotations
  // Per track, the begin/end/instant timestamps in file order.
  std::map<uint64_t, std::vector<std::pair<int, int64_t>>> track_events;
  std::map<uint64_t, std::string> begin_name;  // flow id → the slice it starts on
  std::map<uint64_t, std::string> end_name;    // flow id → the slice it ends on
  bool stack_broken = false;
};

int ProcessIndex(const ReadBack& trace, uint64_t track) {
  uint64_t uuid = track;
  while (trace.tracks.count(uuid) && trace.tracks.at(uuid).has_parent_uuid()) {
    uuid = trace.tracks.at(uuid).parent_uuid();
  }
  const pf::TrackDescriptor& root = trace.tracks.at(uuid);
  return root.has_process() ? root.process().pid() - 1 : -1;
}

struct SequenceState {
  bool cleared = false;
  uint64_t default_track = 0;
  uint32_t default_clock = 0;
  std::map<uint32_t, uint64_t> incremental_clocks;  // clock id → its last time
  std::map<uint64_t, std::string> names, categories, annotation_names, strings;
};

// The string of `iid` in a table of the packet's sequence; it must be there.
const std::string& Lookup(const std::map<uint64_t, std::string>& table, uint64_t iid) {
  INFO("iid " << iid << " used before its sequence carried it");
  REQUIRE(table.count(iid) == 1);
  return table.at(iid);
}

ReadBack Read(const std::string& bytes) {
  pf::Trace file;
  REQUIRE(file.ParseFromString(bytes));
  ReadBack trace;
  struct Open {
    std::string name, category;
    int64_t start;
  };
  std::map<uint64_t, std::vector<Open>> stacks;
  std::map<uint32_t, SequenceState> sequences;
  for (const pf::TracePacket& packet : file.packet()) {
    REQUIRE(packet.trusted_packet_sequence_id() != 0);
    SequenceState& sequence = sequences[packet.trusted_packet_sequence_id()];
    // A sequence's first packet clears its state; no packet comes before.
    CHECK((packet.sequence_flags() & 1u) == (sequence.cleared ? 0u : 1u));
    sequence.cleared = true;
    const auto add = [&](std::map<uint64_t, std::string>& table, uint64_t iid,
                         const std::string& text) {
      CHECK(table.count(iid) == 0);  // carried once per sequence
      table[iid] = text;
    };
    for (const auto& name : packet.interned_data().event_names()) {
      add(sequence.names, name.iid(), name.name());
      trace.name_iids[name.name()].insert(name.iid());
    }
    for (const auto& name : packet.interned_data().event_categories()) {
      add(sequence.categories, name.iid(), name.name());
    }
    for (const auto& name : packet.interned_data().debug_annotation_names()) {
      add(sequence.annotation_names, name.iid(), name.name());
    }
    for (const auto& value : packet.interned_data().debug_annotation_string_values()) {
      add(sequence.strings, value.iid(), value.str());
    }
    if (packet.has_trace_packet_defaults()) {
      sequence.default_clock = packet.trace_packet_defaults().timestamp_clock_id();
      sequence.default_track = packet.trace_packet_defaults().track_event_defaults().track_uuid();
    }
    for (const auto& clock : packet.clock_snapshot().clocks()) {
      if (clock.is_incremental()) sequence.incremental_clocks[clock.clock_id()] = clock.timestamp();
    }
    if (packet.has_track_descriptor()) {
      trace.tracks[packet.track_descriptor().uuid()] = packet.track_descriptor();
    }
    if (!packet.has_track_event()) continue;
    const uint32_t clock =
        packet.has_timestamp_clock_id() ? packet.timestamp_clock_id() : sequence.default_clock;
    int64_t at = static_cast<int64_t>(packet.timestamp());
    if (sequence.incremental_clocks.count(clock)) {
      at = static_cast<int64_t>(sequence.incremental_clocks[clock] += packet.timestamp());
      CHECK((packet.sequence_flags() & 2u) == 2u);  // it needs the sequence's clock
    }
    const pf::TrackEvent& event = packet.track_event();
    const uint64_t track = event.has_track_uuid() ? event.track_uuid() : sequence.default_track;
    REQUIRE(trace.tracks.count(track) == 1);  // described before it is used
    const std::string name = event.has_name_iid() ? Lookup(sequence.names, event.name_iid()) : "";
    const std::string category =
        event.category_iids_size() > 0 ? Lookup(sequence.categories, event.category_iids(0)) : "";
    for (const pf::DebugAnnotation& annotation : event.debug_annotations()) {
      Lookup(sequence.annotation_names, annotation.name_iid());
      if (annotation.has_string_value_iid()) {
        Lookup(sequence.strings, annotation.string_value_iid());
      }
    }
    for (const uint64_t id : event.flow_ids()) trace.begin_name[id] = name;
    for (const uint64_t id : event.terminating_flow_ids()) trace.end_name[id] = name;
    trace.track_events[track].emplace_back(event.type(), at);
    switch (event.type()) {
      case pf::TrackEvent::TYPE_SLICE_BEGIN:
        // Nested: a child begins no earlier than its parent.
        if (!stacks[track].empty() && at < stacks[track].back().start) trace.stack_broken = true;
        stacks[track].push_back({name, category, at});
        break;
      case pf::TrackEvent::TYPE_SLICE_END: {
        REQUIRE_FALSE(stacks[track].empty());
        const Open open = stacks[track].back();
        stacks[track].pop_back();
        if (at < open.start) trace.stack_broken = true;
        trace.slices.insert({ProcessIndex(trace, track), open.category, open.name, open.start, at});
        break;
      }
      case pf::TrackEvent::TYPE_INSTANT:
        if (name == "vprof export") {
          for (const pf::DebugAnnotation& annotation : event.debug_annotations()) {
            trace.metadata[sequence.annotation_names.at(annotation.name_iid())] =
                annotation.string_value();
          }
          break;
        }
        trace.slices.insert({ProcessIndex(trace, track), category, name, at, at});
        break;
      case pf::TrackEvent::TYPE_COUNTER:
        trace.counters.emplace_back(trace.tracks.at(track).name(), at, event.counter_value());
        break;
      default:
        FAIL("an event of no type");
    }
  }
  for (const auto& [track, open] : stacks) CHECK(open.empty());
  // Onto the plan's clock: the trace's times count from "zero_ns" on it.
  const int64_t zero = std::stoll(trace.metadata.at("zero_ns"));
  std::multiset<Slice> shifted;
  for (const auto& [process, category, name, start, end] : trace.slices) {
    shifted.insert({process, category, name, start + zero, end + zero});
  }
  trace.slices = std::move(shifted);
  for (auto& [name, at, value] : trace.counters) at += zero;
  return trace;
}

// The Chrome export's slices (X), async ranges (b/e) and instants (i), on the
// plan's clock: its times are microseconds since `origin_ns`, with three decimals.
std::multiset<Slice> ChromeSlices(const JsonValue& document, int64_t origin_ns) {
  const auto ns = [&](double us) { return origin_ns + static_cast<int64_t>(us * 1000.0 + 0.5); };
  std::multiset<Slice> slices;
  std::map<std::string, const JsonValue*> begun;  // async id → its begin
  for (const JsonValue& event : document["traceEvents"].array()) {
    const std::string& phase = event["ph"].string();
    const int pid = static_cast<int>(event["pid"].number());
    if (phase == "X") {
      const int64_t start = ns(event["ts"].number());
      slices.insert({pid, event["cat"].string(), event["name"].string(), start,
                     start + static_cast<int64_t>(event["dur"].number() * 1000.0 + 0.5)});
    } else if (phase == "i") {
      const int64_t at = ns(event["ts"].number());
      slices.insert({pid, event["cat"].string(), event["name"].string(), at, at});
    } else if (phase == "b") {
      begun[event["id"].string()] = &event;
    } else if (phase == "e") {
      const JsonValue& begin = *begun.at(event["id"].string());
      slices.insert({pid, begin["cat"].string(), begin["name"].string(), ns(begin["ts"].number()),
                     ns(event["ts"].number())});
    }
  }
  return slices;
}

CliResult Export(const std::vector<std::string>& extra, const std::string& directory,
                 const std::string& out) {
  std::vector<std::string> args{"export", "--format", "perfetto", "-o", out};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(directory);
  return Run(args);
}

}  // namespace

TEST_CASE("perfetto export: every slice of the Chrome export, at the same times") {
  ScratchDir dir;
  run::Write(dir.path());
  const CliResult perfetto = Export({}, dir.path(), dir.File("run.pftrace"));
  REQUIRE(perfetto.status == kExitOk);
  const CliResult chrome =
      Run({"export", "--format", "chrome", "-o", dir.File("run.json"), dir.path()});
  REQUIRE(chrome.status == kExitOk);
  const ReadBack trace = Read(ReadFile(dir.File("run.pftrace")));
  const JsonValue document = JsonValue::Parse(ReadFile(dir.File("run.json")));

  // The origin both state: the earlier process start on CLOCK_REALTIME.
  const int64_t origin = std::min(run::kOffsetA, run::kOffsetB);
  REQUIRE(trace.metadata.at("origin_ns") == std::to_string(origin));
  CHECK(trace.metadata.at("zero_ns") == std::to_string(origin - 1'000'000'000));
  CHECK(trace.metadata.at("clock") == "CLOCK_REALTIME");
  CHECK(trace.metadata.at("directory") == dir.path());
  CHECK(document["otherData"]["origin_ns"].number() == Approx(static_cast<double>(origin)));

  const std::multiset<Slice> expected = ChromeSlices(document, origin);
  CHECK(expected.size() >= 12);
  CHECK(trace.slices == expected);
  CHECK_FALSE(trace.stack_broken);

  // A hand-checked one: rank 0's "gemm", 2500 ns after its base for 1000 ns.
  const run::Rank& rank0 = run::RankInfo(0);
  const int64_t gemm_start = static_cast<int64_t>(rank0.base_ns + 2500) + rank0.offset_ns;
  CHECK(trace.slices.count({0, "kernel", "gemm", gemm_start, gemm_start + 1000}) == 1);

  // Two processes, named as the Chrome export names them, in rank order.
  std::vector<std::string> processes;
  for (const auto& [uuid, track] : trace.tracks) {
    if (track.has_process()) processes.push_back(track.process().process_name());
  }
  REQUIRE(processes.size() == 2);
  CHECK(processes[0] == "rank 0 (" + rank0.host + " pid " + std::to_string(rank0.pid) + ")");

  // Flows: the launch that started "gemm", and the NCCL call that launched
  // the all-reduce kernel, on both ranks.
  int launch_flows = 0, nccl_flows = 0;
  for (const auto& [id, name] : trace.end_name) {
    if (!trace.begin_name.count(id)) continue;
    const std::string& from = trace.begin_name.at(id);
    launch_flows += from == "cudaLaunchKernel_v7000" && name == "gemm";
    nccl_flows += from == "ncclAllReduce" && name == std::string(run::kNcclKernelName);
  }
  CHECK(launch_flows == 1);
  CHECK(nccl_flows == 2);

  // The all-reduce kernel's name is in both processes, with one iid.
  CHECK(trace.name_iids.at(std::string(run::kNcclKernelName)).size() == 1);
  CHECK(trace.name_iids.at("ncclAllReduce").size() == 1);
}

TEST_CASE("perfetto export: nested slices with equal starts, and overlaps on a lane of their own") {
  ScratchDir dir;
  TraceFileBuilder trace("solo", 7);
  const uint32_t tid = 70;
  // As a tracer writes them, at their ends: the inner range first. Both begin
  // at 1000; "crossing" begins inside "outer" and ends after it.
  AddNvtxBatch(
      trace, tid,
      {NvtxPushPop(trace, "inner", 1000, 3000, 1), NvtxPushPop(trace, "outer", 1000, 5000, 0)});
  ExportGpuBatch(trace)
      .Api("cudaStreamSynchronize_v3020", tid, 3000, 0, 0)  // at the inner range's end
      .Api("cudaMemcpy_v3020", tid, 4000, 2000, 0)          // crosses the outer range's end
      .Write();
  trace.AddFooter();
  trace.WriteTo(dir.File("solo.7.vtrace"));
  REQUIRE(Export({}, dir.path(), dir.File("t.pftrace")).status == kExitOk);
  const ReadBack back = Read(ReadFile(dir.File("t.pftrace")));
  CHECK_FALSE(back.stack_broken);

  uint64_t thread = 0, lane = 0;
  for (const auto& [uuid, track] : back.tracks) {
    if (track.name() == "thread 70") thread = uuid;
    if (track.name() == "thread 70 (overlapping 1)") lane = uuid;
  }
  REQUIRE(thread != 0);
  REQUIRE(lane != 0);
  // begin outer, begin inner (equal starts: the longer first), end inner,
  // the zero-length call after it, end outer.
  using Step = std::pair<int, int64_t>;
  const int begin = pf::TrackEvent::TYPE_SLICE_BEGIN, end = pf::TrackEvent::TYPE_SLICE_END;
  const std::vector<Step> expected{{begin, 1000}, {begin, 1000}, {end, 3000},
                                   {begin, 3000}, {end, 3000},   {end, 5000}};
  // Times as the trace holds them (the solo trace has no clock pairs), less the trace's zero.
  std::vector<Step> got = back.track_events.at(thread);
  const int64_t shift = got.front().second - 1000;
  for (Step& step : got) step.second -= shift;
  CHECK(got == expected);
  std::vector<Step> crossing = back.track_events.at(lane);
  for (Step& step : crossing) step.second -= shift;
  CHECK(crossing == std::vector<Step>{{begin, 4000}, {end, 6000}});
  const int64_t zero = std::stoll(back.metadata.at("zero_ns"));
  CHECK(back.slices.count({0, "nvtx", "inner", 1000 + shift + zero, 3000 + shift + zero}) == 1);
  CHECK(back.slices.count({0, "nvtx", "outer", 1000 + shift + zero, 5000 + shift + zero}) == 1);
  // Zero is a second before the process started (at 0 on its clock, the origin).
  CHECK(zero == -1'000'000'000);
}

TEST_CASE("export filters: ranks, kinds and a time window cut the file and say what they left") {
  ScratchDir dir;
  run::Write(dir.path());
  const CliResult all = Export({}, dir.path(), dir.File("all.pftrace"));
  REQUIRE(all.status == kExitOk);
  const ReadBack whole = Read(ReadFile(dir.File("all.pftrace")));

  const CliResult rank1 = Export({"--ranks", "1"}, dir.path(), dir.File("r1.pftrace"));
  REQUIRE(rank1.status == kExitOk);
  CHECK(Contains(rank1.err, "vprof: left out rank 0 (not in --ranks)"));
  const ReadBack one = Read(ReadFile(dir.File("r1.pftrace")));
  // Rank 1 alone: its slices, now process 0 of the export.
  std::multiset<Slice> expected;
  for (const Slice& slice : whole.slices) {
    if (std::get<0>(slice) == 1) {
      expected.insert(
          {0, std::get<1>(slice), std::get<2>(slice), std::get<3>(slice), std::get<4>(slice)});
    }
  }
  CHECK(one.slices == expected);
  CHECK(one.metadata.at("selection") == "rank 1");
  CHECK(one.metadata.at("processes left out") == "rank 0 (not in --ranks)");

  const CliResult kernels = Export({"--kinds", "kernels"}, dir.path(), dir.File("k.pftrace"));
  REQUIRE(kernels.status == kExitOk);
  std::multiset<Slice> gpu_only;
  size_t others = 0;
  for (const Slice& slice : whole.slices) {
    const std::string& category = std::get<1>(slice);
    if (category == "kernel" || category == "vprof_kernel" || category == "gpu_memcpy" ||
        category == "graph_replay") {
      gpu_only.insert(slice);
    } else {
      ++others;
    }
  }
  CHECK(Read(ReadFile(dir.File("k.pftrace"))).slices == gpu_only);
  CHECK(Contains(kernels.err, "(not in --kinds)"));
  CHECK(Contains(kernels.err, std::to_string(others) + " records left out") ==
        (others > 0));  // counted, nvtx/api/nccl all named

  // A window of 500 ns on the timeline, 5 us after the first record; what
  // overlaps it, whole.
  const int64_t origin = std::stoll(whole.metadata.at("origin_ns"));
  int64_t first = std::numeric_limits<int64_t>::max();
  for (const Slice& slice : whole.slices) first = std::min(first, std::get<3>(slice) - origin);
  const int64_t from = first + 5000, to = first + 5500;
  const CliResult window =
      Export({"--from", std::to_string(from) + "ns", "--to",
              std::to_string(to / 1000) + "." + std::to_string(to % 1000 + 1000).substr(1) + "us"},
             dir.path(), dir.File("w.pftrace"));
  INFO(window.err);
  REQUIRE(window.status == kExitOk);
  std::multiset<Slice> inside;
  for (const Slice& slice : whole.slices) {
    if (std::get<4>(slice) >= origin + from && std::get<3>(slice) <= origin + to) {
      inside.insert(slice);
    }
  }
  CHECK_FALSE(inside.empty());
  CHECK(inside.size() < whole.slices.size());
  CHECK(Read(ReadFile(dir.File("w.pftrace"))).slices == inside);
  CHECK(Contains(window.err, "outside the window"));
}

TEST_CASE("export filters: bad values are usage errors that say what was expected") {
  ScratchDir dir;
  run::Write(dir.path());
  const auto err = [&](const std::vector<std::string>& extra) {
    const CliResult result = Export(extra, dir.path(), dir.File("x.pftrace"));
    CHECK(result.status == kExitUsage);
    return result.err;
  };
  CHECK(Contains(err({"--ranks", "7-3"}), "--ranks: '7-3' is not a rank or a range of ranks"));
  CHECK(Contains(err({"--steps", "x"}), "--steps: 'x' is not a step or a range of steps"));
  CHECK(Contains(err({"--from", "15"}), "--from: '15' is not a time with its unit"));
  CHECK(Contains(err({"--kinds", "kernels,disk"}), "'disk' is not a kind of record"));
  CHECK(Contains(err({"--from", "2s", "--to", "1s"}), "--to is before --from"));
}
