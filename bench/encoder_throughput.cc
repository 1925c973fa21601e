// Writer-side throughput: NCCL records drained from thread buffers, encoded
// and written to a trace file, in events per second (median of 5 rounds).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "interpose/core/thread_buffers.h"
#include "interpose/core/trace_writer.h"
#include "interpose/nccl/nccl_functions.h"
#include "interpose/sources.h"

int main() {
  constexpr size_t kRecords = 1 << 16;  // per round, one ring's worth
  char tmpl[] = "/tmp/vprof-bench-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  vprof::Settings settings;
  settings.output_dir = dir;
  vprof::RunInfo run;
  run.host = "bench";
  run.pid = getpid();
  vprof::TraceWriter writer;
  if (!writer.Init(settings, &run, vprof::RegisteredSources()) || !writer.Flush()) return 1;
  vprof::GlobalThreadBuffers().Configure(kRecords, 2);  // no NVTX here
  vprof::ThreadBuffer* buf = vprof::GlobalThreadBuffers().Current();

  vprof::NcclRecord r{};
  r.function = static_cast<uint16_t>(vprof::NcclFn::kAllReduce);
  r.comm_id = 0x1234567890abcdefull;
  r.comm_size = 8;
  r.comm_rank = 3;
  r.count = 1 << 20;
  r.bytes = 4 << 20;
  r.datatype = 7;
  r.stream = 0x7f0000001000ull;
  r.has = vprof::NcclRecord::kHasDatatype | vprof::NcclRecord::kHasRedOp;
  std::vector<double> rates;
  for (int round = 0; round < 5; ++round) {
    for (size_t i = 0; i < kRecords; ++i) {
      r.seq = round * kRecords + i + 1;
      r.enter_ns = 1700000000000000000ull + r.seq * 1000;
      r.exit_ns = r.enter_ns + 12345;
      buf->nccl.Push(r);
    }
    auto t0 = std::chrono::steady_clock::now();
    if (!writer.Flush()) return 1;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(kRecords / s);
  }
  std::sort(rates.begin(), rates.end());
  struct stat st {};
  stat(writer.path(), &st);
  std::printf("encoder_events_per_second %.3g\nbytes_per_nccl_event %.1f\n", rates[2],
              static_cast<double>(st.st_size) / (5.0 * kRecords));
  std::filesystem::remove_all(dir);
  return 0;
}
