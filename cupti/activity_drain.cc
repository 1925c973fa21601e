#include "cupti/activity_drain.h"

#include <string_view>
#include <unordered_map>

#include "cupti/activity_encoder.h"
#include "cupti/capture_plan.h"
#include "cupti/device_memory_sampler.h"
#include "vprof_trace_fields.h"

namespace vprof {

ReadRecords ReadActivityBuffer(const CuptiLibrary& cupti, const TraceWriter& w, uint8_t* data,
                               size_t valid_bytes, const RecordedSpans* spans) {
  ReadRecords read;
  std::unordered_map<std::string_view, uint64_t> new_names;  // views into CUPTI's memory
  CUpti_Activity* r = nullptr;
  while (cupti.cuptiActivityGetNextRecord(data, valid_bytes, &r) == CUPTI_SUCCESS) {
    read.records.push_back(r);
    if (spans && RecordsApiCalls(r->kind) &&
        !spans->Holds(reinterpret_cast<const CUpti_ActivityAPI*>(r)->start)) {
      read.names.push_back(ReadRecords::kLeftOut);
      continue;
    }
    GlobalDeviceMemorySampler().Note(r);
    const std::string_view name = ActivityName(r, cupti.cuptiGetCallbackName);
    uint64_t id = name.empty() ? 0 : w.InternedId(name);
    if (!name.empty() && id == 0) {
      const auto [it, added] =
          new_names.try_emplace(name, ReadRecords::kNewName + read.new_names.size());
      if (added) read.new_names.emplace_back(name);
      id = it->second;
    }
    read.names.push_back(id);
  }
  return read;
}

bool EncodeActivityBuffer(TraceWriter& w, const ReadRecords& read, uint64_t dropped,
                          const SourceCount& count) {
  std::vector<uint64_t> new_iids;  // names' packets precede the batch
  for (const std::string& name : read.new_names) new_iids.push_back(w.Intern(name));
  ProtoEncoder& enc = w.encoder();
  uint64_t recorded = 0;
  bool open = false;
  TraceWriter::PacketTokens t{};
  auto start_batch = [&](uint64_t batch_dropped) {
    t = w.BeginPacket(schema::TracePacket::kGpuBatch);
    if (batch_dropped) enc.AddVarint(schema::GpuBatch::kDropped, batch_dropped);
    open = true;
  };
  if (!w.EnsureRoom(kMaxEncodedActivityBytes + 64)) return false;
  start_batch(dropped);
  for (size_t i = 0; i < read.records.size(); ++i) {
    if (enc.capacity() - enc.size() < kMaxEncodedActivityBytes) {
      w.EndPacket(t);
      open = false;
      if (!w.WriteOut()) return false;
      start_batch(0);
    }
    uint64_t iid = read.names[i];
    if (iid == ReadRecords::kLeftOut) continue;
    if (iid >= ReadRecords::kNewName) iid = new_iids[iid - ReadRecords::kNewName];
    if (EncodeActivity(enc, read.records[i], iid)) ++recorded;
  }
  if (open) w.EndPacket(t);
  w.Count(count, recorded, dropped);
  return true;
}

}  // namespace vprof
