// txt2vtrace IN.txtpb OUT.vtrace [--drop-last-bytes N]
//
// Turns a trace written by hand in protobuf text format (a vprof.trace.Trace:
// `packet { run_header { ... } } packet { ... }`) into the binary trace file
// the capture side writes. A file holds a Trace message written packet by
// packet, each packet as Trace field 1, so serializing the whole Trace gives
// exactly the on-disk framing. A packet whose `sequence` is unset gets its
// position (1, 2, ...), as the capture side numbers them.
// --drop-last-bytes N leaves out the file's last N bytes: a trace cut in the
// middle of a packet, as a killed process leaves it.
#include <google/protobuf/text_format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "vprof_trace.pb.h"

namespace {

constexpr const char* kUsage = "usage: txt2vtrace IN.txtpb OUT.vtrace [--drop-last-bytes N]\n";

int Fail(const std::string& message) {
  std::cerr << "txt2vtrace: " << message << '\n';
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  size_t drop_last_bytes = 0;
  if (args.size() == 4 && args[2] == "--drop-last-bytes") {
    char* end = nullptr;
    drop_last_bytes = std::strtoull(args[3].c_str(), &end, 10);
    if (args[3].empty() || *end != '\0') {
      return Fail("--drop-last-bytes: expected a whole number of bytes, got '" + args[3] + "'");
    }
  } else if (args.size() != 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& in_path = args[0];
  const std::string& out_path = args[1];

  std::ifstream in(in_path);
  if (!in) return Fail(in_path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  vprof::trace::Trace trace;
  // protobuf logs the line, column and what is wrong on standard error.
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &trace)) {
    return Fail(in_path + ": not a vprof.trace.Trace in protobuf text format (see above)");
  }
  for (int i = 0; i < trace.packet_size(); ++i) {
    vprof::trace::TracePacket& packet = *trace.mutable_packet(i);
    if (packet.sequence() == 0) packet.set_sequence(static_cast<uint64_t>(i) + 1);
  }
  std::string bytes = trace.SerializeAsString();
  if (drop_last_bytes > bytes.size()) {
    return Fail("--drop-last-bytes " + std::to_string(drop_last_bytes) + ": the trace has only " +
                std::to_string(bytes.size()) + " bytes");
  }
  bytes.resize(bytes.size() - drop_last_bytes);
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Fail(out_path + ": cannot write");
  return 0;
}
