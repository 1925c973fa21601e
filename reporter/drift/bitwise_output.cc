#include "reporter/drift/bitwise_output.h"

#include "reporter/base/exit_status.h"
#include "reporter/base/json_writer.h"
#include "reporter/drift/run_fingerprints.h"
#include "reporter/render/short_kernel_name.h"

namespace vprof::reporter {
namespace {

// "ncclAllReduce seq 4", "ncclSend seq 2 (peer 1)".
std::string Brief(const DriftCall& c) {
  std::string s = c.function + " seq " + std::to_string(c.seq);
  if (c.peer >= 0) s += " (peer " + std::to_string(c.peer) + ")";
  return s;
}

std::string Describe(const DriftCall& c) { return Brief(c) + " on communicator " + c.comm_label; }

const char* Meaning(DriftClass c) {
  switch (c) {
    case DriftClass::kReduction:
      return "the reduction's order or topology changed (algorithm, protocol, channels, rank "
             "placement, a custom all-reduce)";
    case DriftClass::kUpstream:
      return "the data drifted before this call, in arithmetic or inputs, after the last call "
             "that agreed";
    case DriftClass::kRepresentation:
      return "the data's representation changed";
    case DriftClass::kMetadata:
      return "the calls themselves differ (shapes, counts, membership or the calls made)";
    case DriftClass::kNone:
      break;
  }
  return "";
}

void WriteCall(JsonWriter& w, std::string_view key, const std::optional<DriftCall>& c) {
  w.Key(key);
  if (!c) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Field("communicator", c->comm_index + 1);
  w.Field("communicator_label", c->comm_label);
  w.Field("function", c->function);
  w.Field("seq", c->seq);
  if (c->peer >= 0) w.Field("peer", c->peer);
  w.EndObject();
}

std::string Shape(const std::array<uint32_t, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

// "12 kernels of 5 kinds", and the graph replays recorded whole.
std::string Launched(const LaunchWindow& w) {
  std::string s = std::to_string(w.kernels) + (w.kernels == 1 ? " kernel" : " kernels") + " of " +
                  std::to_string(w.launches.size()) + (w.launches.size() == 1 ? " kind" : " kinds");
  if (w.graph_replays) {
    s += ", and " + std::to_string(w.graph_replays) + " CUDA-graph replays recorded whole";
  }
  return s;
}

void WriteDiffering(const char* label, char run, const DifferingKernel& k, std::ostream& out) {
  const KernelLaunches& l = k.launches;
  out << "    " << label << ": " << ShortKernelName(l.name);
  out << " (grid " << Shape(l.grid) << ", block " << Shape(l.block) << ")";
  out << ": " << l.count << (l.count == 1 ? " launch in " : " launches in ") << run << ", "
      << k.count_other << " in " << (run == 'A' ? 'B' : 'A') << "\n";
}

void WriteWhyText(const WhyDrifted& why, std::ostream& out) {
  out << "  Why it drifted";
  if (why.unavailable.empty()) {
    const DriftWindow& w = why.window;
    out << " (the GPU work rank " << w.rank << " launched "
        << (w.after ? "after " + Brief(*w.after) + " returned" : std::string("from the start"))
        << ", through " << Brief(w.through) << ")";
  }
  out << ":\n";
  if (why.unavailable.empty() && EmptyWindowReason(why.a).empty() &&
      EmptyWindowReason(why.b).empty()) {
    out << "    A launched " << Launched(why.a) << "; B " << Launched(why.b) << "\n";
  }
  out << "    " << WhyFinding(why) << "\n";
  if (why.first_a) WriteDiffering("first in A", 'A', *why.first_a, out);
  if (why.first_b) WriteDiffering("first in B", 'B', *why.first_b, out);
}

void WriteShape(JsonWriter& w, std::string_view key, const std::array<uint32_t, 3>& d) {
  w.Key(key);
  w.BeginArray(JsonWriter::Layout::kOneLine);
  for (uint32_t v : d) w.Uint(v);
  w.EndArray();
}

void WriteDifferingJson(JsonWriter& w, std::string_view key,
                        const std::optional<DifferingKernel>& k) {
  w.Key(key);
  if (!k) {
    w.Null();
    return;
  }
  w.BeginObject(JsonWriter::Layout::kOneLine);
  w.Field("name", k->launches.name);
  WriteShape(w, "grid", k->launches.grid);
  WriteShape(w, "block", k->launches.block);
  w.Field("launches", k->launches.count);
  w.Field("launches_other", k->count_other);
  w.EndObject();
}

void WriteWindowJson(JsonWriter& w, std::string_view key, const LaunchWindow& window) {
  w.Object(
      key,
      [&] {
        w.Field("kernels", window.kernels);
        w.Field("kinds", static_cast<uint64_t>(window.launches.size()));
        w.Field("graph_replays", window.graph_replays);
        w.Field("no_kernels", EmptyWindowReason(window));
      },
      JsonWriter::Layout::kOneLine);
}

void WriteWhyJson(JsonWriter& w, const std::optional<WhyDrifted>& why) {
  w.Key("why_drifted");
  if (!why) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Field("unavailable", why->unavailable);
  const bool windowed = why->unavailable.empty();
  w.Key("rank");
  windowed ? w.Int(why->window.rank) : w.Null();
  WriteCall(w, "after", windowed ? why->window.after : std::nullopt);
  WriteCall(w, "through", windowed ? std::optional(why->window.through) : std::nullopt);
  for (const auto& [key, window] : {std::pair{"a", &why->a}, std::pair{"b", &why->b}}) {
    if (windowed) {
      WriteWindowJson(w, key, *window);
    } else {
      w.Key(key);
      w.Null();
    }
  }
  WriteDifferingJson(w, "first_a", why->first_a);
  WriteDifferingJson(w, "first_b", why->first_b);
  w.Field("family_a", std::string(why->cause.label_a));
  w.Field("family_b", std::string(why->cause.label_b));
  w.Field("cause", std::string(why->cause.cause));
  w.Field("finding", WhyFinding(*why));
  w.EndObject();
}

}  // namespace

void WriteBitwiseText(const BitwiseDiff& d, const std::optional<WhyDrifted>& why,
                      std::ostream& out) {
  out << "Bitwise comparison of collective fingerprints\n"
      << "  A: " << d.dir_a << "\n  B: " << d.dir_b << "\n"
      << "  " << d.ranks << (d.ranks == 1 ? " rank; " : " ranks; ") << d.compared
      << " calls compared, " << d.agreed << " agreed before the first difference";
  if (d.not_compared) out << ", " << d.not_compared << " not fingerprinted in A or B (skipped)";
  out << "\n";
  if (!d.first) {
    out << "  Every compared call agrees, bit for bit.\n";
  } else {
    out << "  First difference: " << Describe(*d.first) << "\n"
        << "    " << d.detail << "\n"
        << "    class: " << DriftClassName(d.drift) << ": " << Meaning(d.drift) << "\n";
    out << "  Last call that agreed: "
        << (d.last_agreeing ? Describe(*d.last_agreeing) : std::string("none")) << "\n";
  }
  out << "  Profile: " << d.profile << " (" << d.differing
      << (d.differing == 1 ? " call differs" : " calls differ") << "; explained by";
  if (d.axes.empty()) out << " nothing";
  for (DriftClass c : d.axes) out << " " << DriftClassName(c);
  out << ")\n";
  if (d.settings.empty()) {
    out << "  Recorded settings: the same in both runs";
    if (d.drift == DriftClass::kReduction) {
      out << " (a nondeterministic reduction, or a setting vprof does not record)";
    }
    out << "\n";
  } else {
    out << "  Recorded settings that differ:\n";
    for (const SettingChange& s : d.settings) {
      out << "    " << s.name << ": " << (s.a.empty() ? "(unset)" : s.a) << " in A, "
          << (s.b.empty() ? "(unset)" : s.b) << " in B\n";
    }
  }
  if (!d.settings_recorded_once.empty()) {
    out << "  Recorded in one run only (a gap of capture, not a difference):\n";
    for (const SettingGap& g : d.settings_recorded_once) {
      out << "    " << g.name << " recorded in " << g.run << " only (" << g.value << ")\n";
    }
  }
  if (why) WriteWhyText(*why, out);
  if (!d.inputs_whole)
    out << "  Some trace of A or B was cut: only its readable part was compared.\n";
}

void WriteBitwiseJson(const BitwiseDiff& d, const std::optional<WhyDrifted>& why,
                      std::ostream& out) {
  JsonWriter w(out);
  w.BeginObject();
  w.Field("a", d.dir_a);
  w.Field("b", d.dir_b);
  w.Field("ranks", d.ranks);
  w.Field("identical", !d.first.has_value());
  w.Field("compared", d.compared);
  w.Field("agreed", d.agreed);
  w.Field("differing", d.differing);
  w.Field("not_compared", d.not_compared);
  w.Array(
      "axes", d.axes, [&](DriftClass c) { w.String(DriftClassName(c)); },
      JsonWriter::Layout::kOneLine);
  w.Field("profile", d.profile);
  w.Field("drift", std::string(DriftClassName(d.drift)));
  WriteCall(w, "first_difference", d.first);
  w.Field("detail", d.detail);
  w.Values("ranks_differing", d.ranks_differing, JsonWriter::Layout::kOneLine);
  WriteCall(w, "last_agreeing", d.last_agreeing);
  w.Objects(
      "settings_differing", d.settings,
      [&](const SettingChange& s) {
        w.Field("name", s.name);
        w.Field("a", s.a);
        w.Field("b", s.b);
      },
      JsonWriter::Layout::kOneLine);
  w.Objects(
      "settings_recorded_once", d.settings_recorded_once,
      [&](const SettingGap& g) {
        w.Field("name", g.name);
        w.Field("recorded_in", std::string(1, g.run));
        w.Field("value", g.value);
      },
      JsonWriter::Layout::kOneLine);
  WriteWhyJson(w, why);
  w.Field("all_inputs_whole", d.inputs_whole);
  w.EndObject();
  out << "\n";
}

int RunBitwiseDiff(const std::string& dir_a, const std::string& dir_b, bool json, std::ostream& out,
                   std::ostream& err) {
  RunFingerprints a, b;
  int status = kExitUsage;
  if (!LoadRunFingerprints(dir_a, &a, err, &status)) return status;
  if (!LoadRunFingerprints(dir_b, &b, err, &status)) return status;
  BitwiseDiff diff;
  std::string error;
  if (!CompareFingerprints(a, b, &diff, &error)) {
    err << "vprof: diff --bitwise: " << error << "\n";
    return kExitUsage;
  }
  const std::optional<WhyDrifted> why = ExplainDrift(diff);
  if (json) {
    WriteBitwiseJson(diff, why, out);
  } else {
    WriteBitwiseText(diff, why, out);
  }
  if (!out.flush()) {
    err << "vprof: diff: cannot write to standard output\n";
    return kExitFailure;
  }
  return diff.inputs_whole ? kExitOk : kExitInputNotWhole;
}

}  // namespace vprof::reporter
