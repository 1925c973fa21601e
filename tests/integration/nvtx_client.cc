// A program that annotates itself with NVTX through the real NVTX3 headers
// (header-only: the loader that honours NVTX_INJECTION64_PATH is compiled in
// here, as in PyTorch or NCCL). It writes what it did to argv[1], one range
// per line, so a test can hold the trace against it:
//   <kind> <domain> <depth> <lo_ns> <hi_ns> <name>
// where the range must start no earlier than lo and end no later than hi
// (CLOCK_MONOTONIC, vprof's clock), depth is what nvtxRangePush returned, or
// -9 where the call has no depth.
#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

namespace {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

FILE* g_truth = nullptr;

void truth(const char* kind, const char* domain, int depth, uint64_t lo, uint64_t hi,
           const std::string& name) {
  std::fprintf(g_truth, "%s %s %d %llu %llu %s\n", kind, domain, depth,
               static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
               name.c_str());
}

nvtxEventAttributes_t attributes() {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: nvtx_client TRUTH_FILE LOOPS\n");
    return 2;
  }
  g_truth = std::fopen(argv[1], "w");
  if (!g_truth) return 2;
  const int loops = std::stoi(argv[2]);

  // Nesting on one thread, with a mark inside.
  uint64_t t0 = now_ns();
  int outer = nvtxRangePushA("outer");
  uint64_t t1 = now_ns();
  int inner = nvtxRangePushA("inner");
  nvtxMarkA("tick");
  nvtxRangePop();
  uint64_t t2 = now_ns();
  nvtxRangePop();
  uint64_t t3 = now_ns();
  truth("push", "-", outer, t0, t3, "outer");
  truth("push", "-", inner, t1, t2, "inner");
  truth("mark", "-", -9, t1, t2, "tick");

  // Attributes: colour and category.
  nvtxEventAttributes_t a = attributes();
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF00FF00u;
  a.category = 7;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "colored";
  t0 = now_ns();
  int colored = nvtxRangePushEx(&a);
  nvtxRangePop();
  truth("push", "-", colored, t0, now_ns(), "colored");

  // A domain with a registered string, interleaved with a default-domain range:
  // each domain nests on its own.
  nvtxDomainHandle_t domain = nvtxDomainCreateA("vprof-test");
  nvtxStringHandle_t registered = nvtxDomainRegisterStringA(domain, "registered-name");
  nvtxEventAttributes_t r = attributes();
  r.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  r.message.registered = registered;
  t0 = now_ns();
  int in_domain = nvtxDomainRangePushEx(domain, &r);
  int interleaved = nvtxRangePushA("interleaved");
  nvtxDomainRangePop(domain);
  t1 = now_ns();
  nvtxRangePop();
  truth("push", "vprof-test", in_domain, t0, t1, "registered-name");
  truth("push", "-", interleaved, t0, now_ns(), "interleaved");

  // A range started here and ended on another thread.
  t0 = now_ns();
  nvtxRangeId_t id = nvtxRangeStartA("cross-thread");
  std::thread([id] { nvtxRangeEnd(id); }).join();
  truth("start", "-", -9, t0, now_ns(), "cross-thread");

  // Wide text keeps its ASCII; a long name is cut to what vprof keeps.
  t0 = now_ns();
  int wide = nvtxRangePushW(L"wide-\u00e9");
  nvtxRangePop();
  truth("push", "-", wide, t0, now_ns(), "wide-?");
  const std::string long_name(200, 'x');
  t0 = now_ns();
  int cut = nvtxRangePushA(long_name.c_str());
  nvtxRangePop();
  truth("push", "-", cut, t0, now_ns(), std::string(95, 'x'));
  // The cut falls inside a character: it moves back before it. Bytes that are
  // not UTF-8 become U+FFFD.
  const std::string cut_inside = std::string(94, 'y') + "\xc3\xa9" + std::string(10, 'z');
  t0 = now_ns();
  int cut_char = nvtxRangePushA(cut_inside.c_str());
  nvtxRangePop();
  truth("push", "-", cut_char, t0, now_ns(), std::string(94, 'y'));
  t0 = now_ns();
  int invalid = nvtxRangePushA("bad-\xff-name");
  nvtxRangePop();
  truth("push", "-", invalid, t0, now_ns(), "bad-\xef\xbf\xbd-name");

  // Volume: each loop is one range.
  t0 = now_ns();
  for (int i = 0; i < loops; ++i) {
    nvtxRangePushA("loop");
    nvtxRangePop();
  }
  truth("loop", "-", loops, t0, now_ns(), "loop");
  std::fclose(g_truth);
  std::printf("nvtx_client done\n");
  return 0;
}
