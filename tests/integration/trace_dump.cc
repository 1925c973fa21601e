// trace_dump FILE: the records of a vprof trace that the integration tests compare, one JSON
// object per line, decoded with libprotobuf (the capture side's own encoder plays no part):
//   {"kind":"nccl", ...}          an intercepted NCCL call (NcclEvent, with its batch's tid)
//   {"kind":"communicator", ...}  a communicator the wrappers saw created, with its NCCL version
//   {"kind":"plugin_comm", ...}   an NcclPluginComm (written again when finalized)
//   {"kind":"plugin_event", ...}  an NcclPluginEvent, strings resolved
//   {"kind":"injection", ...}     an InjectionStatus
//   {"kind":"plugin_dropped", "dropped": N}   a batch's dropped count, when not 0
//   {"kind":"header", ...}        the RunHeader's clocks, deep-capture schedule, NCCL version
//   {"kind":"deep_window", ...}   a DeepWindow (opened: end_ns 0; closed)
//   {"kind":"kernel", ...}        a GpuKernel's name, times, correlation and graph ids
//   {"kind":"graph_replay", ...}  a GpuGraphReplay's graph id, times and correlation id
//   {"kind":"api", ...}           an ApiCall's name, times and correlation id
//   {"kind":"loaded_library", ...} one path of a LoadedLibraries: path, observed_ns, unrecorded
//   {"kind":"process_title", ...} a ProcessTitle: argv (one string, arguments joined by
//                                 spaces), when read, at_end, unrecorded_changes
//   {"kind":"fingerprint", ...}   a CollectiveFingerprint (input/output: -1 when absent)
//   {"kind":"fingerprint_status", ...}  a FingerprintStatus
//   {"kind":"footer", "counts": {kind: [recorded, dropped]}}
// Exit status 1 when the file is not a whole trace.
#include <cstdio>
#include <map>
#include <string>

#include "read_trace_file.h"

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", c);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

class Line {
 public:
  explicit Line(const char* kind) { text_ = "{\"kind\":" + Quote(kind); }
  Line& num(const char* key, long long v) { return raw(key, std::to_string(v)); }
  Line& unum(const char* key, unsigned long long v) { return raw(key, std::to_string(v)); }
  Line& str(const char* key, const std::string& v) { return raw(key, Quote(v)); }
  Line& raw(const char* key, const std::string& v) {
    text_ += ",\"" + std::string(key) + "\":" + v;
    return *this;
  }
  ~Line() { std::printf("%s}\n", text_.c_str()); }

 private:
  std::string text_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_dump FILE\n");
    return 2;
  }
  const auto packets = read_trace_file(argv[1]);
  if (packets.empty() || !packets.back().has_footer()) return 1;
  std::map<uint64_t, std::string> names;
  auto name = [&](uint64_t iid) { return iid ? names[iid] : std::string(); };
  for (const auto& p : packets) {
    if (p.has_interned_string()) names[p.interned_string().iid()] = p.interned_string().str();
    if (p.has_run_header()) {
      const auto& h = p.run_header();
      Line("header")
          .unum("start_ns", h.start_ns())
          .unum("start_realtime_ns", h.start_realtime_ns())
          .str("deep_capture", h.settings().deep_capture())
          .unum("nccl_version", h.versions().nccl());
    }
    if (p.has_deep_window()) {
      const auto& w = p.deep_window();
      Line("deep_window")
          .unum("start_ns", w.start_ns())
          .unum("end_ns", w.end_ns())
          .str("cause", vprof::trace::DeepWindowCause_Name(w.cause()));
    }
    if (p.has_process_title()) {
      const auto& t = p.process_title();
      std::string argv;
      for (const auto& a : t.argv()) argv += (argv.empty() ? "" : " ") + a;
      Line("process_title")
          .str("argv", argv)
          .unum("observed_ns", t.observed_ns())
          .raw("at_end", t.at_end() ? "true" : "false")
          .unum("unrecorded_changes", t.unrecorded_changes());
    }
    for (const auto& path : p.loaded_libraries().path()) {
      Line("loaded_library")
          .str("path", path)
          .unum("observed_ns", p.loaded_libraries().observed_ns())
          .unum("unrecorded", p.loaded_libraries().unrecorded());
    }
    if (p.has_gpu_batch()) {
      for (const auto& k : p.gpu_batch().kernel()) {
        Line("kernel")
            .str("name", name(k.name_iid()))
            .unum("start_ns", k.start_ns())
            .unum("duration_ns", k.duration_ns())
            .unum("correlation_id", k.correlation_id())
            .unum("graph_id", k.graph_id());
      }
      for (const auto& a : p.gpu_batch().api()) {
        Line("api")
            .str("name", name(a.name_iid()))
            .unum("start_ns", a.start_ns())
            .unum("duration_ns", a.duration_ns())
            .unum("correlation_id", a.correlation_id());
      }
      for (const auto& g : p.gpu_batch().graph_replay()) {
        Line("graph_replay")
            .unum("graph_id", g.graph_id())
            .unum("start_ns", g.start_ns())
            .unum("duration_ns", g.duration_ns())
            .unum("correlation_id", g.correlation_id());
      }
    }
    for (const auto& f : p.fingerprints().fingerprint()) {
      Line("fingerprint")
          .str("func", name(f.function_iid()))
          .unum("comm_id", f.comm_id())
          .unum("seq", f.seq())
          .num("peer", f.has_peer() ? f.peer() : -1)
          .str("state", vprof::trace::FingerprintState_Name(f.state()))
          .raw("input", f.has_input() ? std::to_string(f.input()) : "-1")
          .raw("output", f.has_output() ? std::to_string(f.output()) : "-1");
    }
    if (p.has_fingerprint_status()) {
      const auto& s = p.fingerprint_status();
      Line("fingerprint_status")
          .str("state", vprof::trace::FingerprintStatusState_Name(s.state()))
          .str("detail", s.detail())
          .unum("version", s.version());
    }
    if (p.has_event_batch()) {
      for (const auto& e : p.event_batch().nccl()) {
        Line("nccl")
            .unum("tid", p.event_batch().tid())
            .str("func", name(e.function_iid()))
            .unum("comm_id", e.comm_id())
            .unum("seq", e.seq())
            .unum("count", e.count())
            .num("datatype", e.has_datatype() ? e.datatype() : -1)
            .unum("bytes", e.bytes())
            .num("result", e.result())
            .unum("enter_ns", e.enter_ns())
            .unum("exit_ns", e.exit_ns());
      }
    }
    if (p.has_communicator()) {
      const auto& c = p.communicator();
      Line("communicator")
          .unum("comm_id", c.comm_id())
          .unum("nranks", c.nranks())
          .unum("rank", c.rank())
          .unum("nccl_version", c.nccl_version());
    }
    if (p.has_injection()) {
      const auto& i = p.injection();
      Line("injection")
          .num("hook", i.hook())
          .str("found", i.found())
          .raw("claimed", i.claimed() ? "true" : "false")
          .raw("attached", i.attached() ? "true" : "false")
          .unum("version", i.version())
          .str("detail", i.detail());
    }
    if (p.has_nccl_plugin_batch()) {
      const auto& b = p.nccl_plugin_batch();
      if (b.dropped()) Line("plugin_dropped").unum("dropped", b.dropped());
      for (const auto& c : b.comm()) {
        Line("plugin_comm")
            .unum("context_id", c.context_id())
            .unum("comm_hash", c.comm_hash())
            .str("name", name(c.name_iid()))
            .unum("nnodes", c.nnodes())
            .unum("nranks", c.nranks())
            .unum("rank", c.rank())
            .unum("init_ns", c.init_ns())
            .unum("finalize_ns", c.finalize_ns())
            .unum("activation_mask", c.activation_mask());
      }
      for (const auto& e : b.event()) {
        Line("plugin_event")
            .str("type", vprof::trace::NcclPluginEventType_Name(e.type()))
            .unum("context_id", e.context_id())
            .unum("event_id", e.event_id())
            .unum("parent_id", e.parent_id())
            .str("func", name(e.func_iid()))
            .unum("seq", e.seq())
            .unum("count", e.count())
            .str("datatype", name(e.datatype_iid()))
            .num("root", e.root())
            .num("peer", e.peer())
            .str("algo", name(e.algo_iid()))
            .str("proto", name(e.proto_iid()))
            .unum("channels", e.channels())
            .unum("warps", e.warps())
            .unum("stream", e.stream())
            .unum("start_ns", e.start_ns())
            .unum("stop_ns", e.stop_ns())
            .unum("tid", e.tid())
            .unum("channel_id", e.channel_id())
            .unum("gpu_start", e.gpu_start())
            .unum("gpu_stop", e.gpu_stop())
            .num("group_depth", e.group_depth());
      }
    }
  }
  std::string counts = "{";
  for (const auto& c : packets.back().footer().counts()) {
    if (counts.size() > 1) counts += ",";
    counts += Quote(c.kind()) + ":[" + std::to_string(c.recorded()) + "," +
              std::to_string(c.dropped()) + "]";
  }
  Line("footer").raw("counts", counts + "}");
  return 0;
}
