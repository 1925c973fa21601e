#include "reporter/export/export_filter.h"

#include <algorithm>

#include "reporter/base/units.h"
#include "reporter/export/export_trace_walker.h"

namespace vprof::reporter {
namespace {

class FilteringSink : public TimelineSink {
 public:
  FilteringSink(const ExportPlan& plan, const ExportProcess& process, TimelineSink& sink,
                ExportTally& tally)
      : kinds_(plan.kinds),
        from_ns_(process.from_ns),
        to_ns_(process.to_ns),
        sink_(sink),
        tally_(tally) {}

  // Names cost nothing to keep and let a kept record's thread be named.
  void ThreadName(uint32_t tid, std::string_view name) override { sink_.ThreadName(tid, name); }

  void NcclCall(const NcclCallSite& call) override {
    if (Keeps(ExportKind::kNccl, call.enter_ns, call.exit_ns)) sink_.NcclCall(call);
  }
  void Nvtx(const NvtxItem& range) override {
    if (Keeps(ExportKind::kNvtx, range.start_ns, range.end_ns)) sink_.Nvtx(range);
  }
  void Api(const ApiItem& api) override {
    if (Keeps(ExportKind::kApi, api.start_ns, End(api.start_ns, api.record.duration_ns()))) {
      sink_.Api(api);
    }
  }
  void Kernel(const KernelItem& kernel) override {
    if (Keeps(ExportKind::kKernels, kernel.start_ns,
              End(kernel.start_ns, kernel.record.duration_ns()))) {
      sink_.Kernel(kernel);
    }
  }
  void Memcpy(const CopyItem& copy) override {
    if (Keeps(ExportKind::kKernels, copy.start_ns, End(copy.start_ns, copy.record.duration_ns()))) {
      sink_.Memcpy(copy);
    }
  }
  void Memset(const MemsetItem& set) override {
    if (Keeps(ExportKind::kKernels, set.start_ns, End(set.start_ns, set.record.duration_ns()))) {
      sink_.Memset(set);
    }
  }
  void GraphReplay(const GraphReplayItem& replay) override {
    if (Keeps(ExportKind::kKernels, replay.start_ns,
              End(replay.start_ns, replay.record.duration_ns()))) {
      sink_.GraphReplay(replay);
    }
  }
  void PluginColl(const PluginCollItem& coll) override {
    if (Keeps(ExportKind::kNccl, coll.start_ns, coll.stop_ns)) sink_.PluginColl(coll);
  }
  void MemoryHeld(const MemoryHeldItem& held) override {
    if (Keeps(ExportKind::kMemory, held.at_ns, held.at_ns)) sink_.MemoryHeld(held);
  }
  void DeviceMemorySample(const DeviceMemorySampleItem& sample) override {
    if (Keeps(ExportKind::kMemory, sample.at_ns, sample.at_ns)) sink_.DeviceMemorySample(sample);
  }

 private:
  static int64_t End(int64_t start_ns, uint64_t duration_ns) {
    return start_ns + static_cast<int64_t>(duration_ns);
  }

  // A record is kept when its kind is asked for and it overlaps the window
  // (a record cut by the window's edge is kept whole).
  bool Keeps(ExportKind kind, int64_t start_ns, int64_t end_ns) {
    const size_t index = static_cast<size_t>(kind);
    if ((kinds_ & KindBit(kind)) == 0) {
      ++tally_.left_out_by_kind[index];
      return false;
    }
    if (std::max(start_ns, end_ns) < from_ns_ || start_ns > to_ns_) {
      ++tally_.left_out_by_time[index];
      return false;
    }
    ++tally_.kept[index];
    return true;
  }

  const uint32_t kinds_;
  const int64_t from_ns_;
  const int64_t to_ns_;
  TimelineSink& sink_;
  ExportTally& tally_;
};

}  // namespace

std::string_view ExportKindName(ExportKind kind) {
  switch (kind) {
    case ExportKind::kApi:
      return "api";
    case ExportKind::kNccl:
      return "nccl";
    case ExportKind::kNvtx:
      return "nvtx";
    case ExportKind::kKernels:
      return "kernels";
    case ExportKind::kMemory:
      return "memory";
  }
  return "?";
}

uint64_t ExportTally::Kept() const {
  uint64_t total = 0;
  for (const uint64_t count : kept) total += count;
  return total;
}

std::string ExportTally::LeftOut() const {
  uint64_t total = 0;
  std::string parts;
  const auto add = [&](uint64_t count, ExportKind kind, std::string_view why) {
    if (count == 0) return;
    total += count;
    parts += (parts.empty() ? "" : ", ") + std::to_string(count) + " " +
             std::string(ExportKindName(kind)) + std::string(why);
  };
  for (size_t index = 0; index < kExportKindCount; ++index) {
    const auto kind = static_cast<ExportKind>(index);
    add(left_out_by_kind[index], kind, " (not in --kinds)");
    add(left_out_by_time[index], kind, " outside the window");
  }
  if (total == 0) return "";
  return FormatCount(total, "record", "records") + " left out: " + parts;
}

void WalkSelected(const ExportPlan& plan, const ExportProcess& process, TimelineSink& sink,
                  ExportTally& tally) {
  FilteringSink filtered(plan, process, sink, tally);
  WalkTrace(process.path, process.shift_ns, filtered);
}

}  // namespace vprof::reporter
