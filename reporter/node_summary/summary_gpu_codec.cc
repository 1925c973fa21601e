#include "reporter/node_summary/summary_gpu_codec.h"

#include "reporter/node_summary/summary_codec.h"

namespace vprof::reporter {
namespace {

using vprof::summary::GpuTotals;

void EncodeLinked(const LinkedGpuTime& linked, vprof::summary::LinkedGpuTime* out) {
  out->set_linked_calls(linked.linked_calls);
  out->set_kernels(linked.kernels);
  out->set_gpu_ns(linked.gpu_ns);
}

LinkedGpuTime DecodeLinked(const vprof::summary::LinkedGpuTime& linked) {
  return {linked.linked_calls(), linked.kernels(), linked.gpu_ns()};
}

void EncodeLinkage(const NcclLinkage& nccl, GpuTotals& out) {
  out.set_nccl_calls(nccl.calls);
  out.set_nccl_grouped_calls(nccl.grouped_calls);
  out.set_nccl_linked_calls(nccl.linked_calls);
  out.set_nccl_linked_kernels(nccl.linked_kernels);
  out.set_nccl_linked_kernels_without_call(nccl.linked_kernels_without_call);
  out.set_nccl_kernels(nccl.nccl_kernels);
  out.set_nccl_unlinked_kernels(nccl.unlinked_nccl_kernels);
  for (const auto& [function, time] : nccl.functions) {
    vprof::summary::FunctionGpuTime& row = *out.add_nccl_functions();
    row.set_function(std::string(NcclFunctionName(function)));
    row.set_calls(time.calls);
    row.set_host_ns(time.host_ns);
    EncodeLinked(time.linked, row.mutable_linked());
  }
  for (const auto& [key, linked] : nccl.collectives) {
    vprof::summary::OpGpuTime& row = *out.add_nccl_collectives();
    row.set_comm_id(key.comm_id);
    row.set_op(std::string(NcclFunctionName(key.op)));
    row.set_bucket_log2(key.bucket.log2);
    EncodeLinked(linked, row.mutable_linked());
  }
}

NcclLinkage DecodeLinkage(const GpuTotals& totals) {
  NcclLinkage nccl;
  nccl.calls = totals.nccl_calls();
  nccl.grouped_calls = totals.nccl_grouped_calls();
  nccl.linked_calls = totals.nccl_linked_calls();
  nccl.linked_kernels = totals.nccl_linked_kernels();
  nccl.linked_kernels_without_call = totals.nccl_linked_kernels_without_call();
  nccl.nccl_kernels = totals.nccl_kernels();
  nccl.unlinked_nccl_kernels = totals.nccl_unlinked_kernels();
  for (const auto& row : totals.nccl_functions()) {
    nccl.functions[DecodeFunction(row.function())] = {row.calls(), row.host_ns(),
                                                      DecodeLinked(row.linked())};
  }
  for (const auto& row : totals.nccl_collectives()) {
    const OpKey key{row.comm_id(), DecodeFunction(row.op()), SizeBucket{row.bucket_log2()}};
    nccl.collectives[key] = DecodeLinked(row.linked());
  }
  return nccl;
}

}  // namespace

void EncodeActivity(const ActivityTotals& totals, vprof::summary::ActivityTotals* out) {
  out->set_count(totals.count);
  out->set_bytes(totals.bytes);
  out->set_total_ns(totals.total_ns);
}

ActivityTotals DecodeActivity(const vprof::summary::ActivityTotals& totals) {
  return {totals.count(), totals.bytes(), totals.total_ns()};
}

void EncodeNamedTotals(const std::map<std::string, ActivityTotals>& totals,
                       google::protobuf::RepeatedPtrField<vprof::summary::NamedTotals>& out) {
  for (const auto& [name, named] : totals) {
    vprof::summary::NamedTotals& row = *out.Add();
    row.set_name(name);
    EncodeActivity(named, row.mutable_totals());
  }
}

std::map<std::string, ActivityTotals> DecodeNamedTotals(
    const google::protobuf::RepeatedPtrField<vprof::summary::NamedTotals>& rows) {
  std::map<std::string, ActivityTotals> totals;
  for (const auto& row : rows) totals[row.name()] = DecodeActivity(row.totals());
  return totals;
}

GpuTotals EncodeGpu(const GpuRecord& record) {
  GpuTotals totals;
  if (record.capture) *totals.mutable_capture() = *record.capture;
  totals.set_batches(record.batches);
  EncodeActivity(record.kernels, totals.mutable_kernels());
  EncodeActivity(record.memcpy, totals.mutable_memcpy());
  EncodeActivity(record.memset, totals.mutable_memset());
  EncodeActivity(record.syncs, totals.mutable_syncs());
  totals.set_api_calls(record.api_calls);
  totals.set_dropped_records(record.dropped_records);
  totals.set_cupti_overhead_ns(record.cupti_overhead_ns);
  EncodeNamedTotals(record.kernels_by_name, *totals.mutable_kernels_by_name());
  EncodeLinkage(record.nccl, totals);
  totals.set_event_records(record.stream_waits.event_records);
  totals.set_waits(record.stream_waits.waits);
  totals.set_matched_waits(record.stream_waits.matched_waits);
  for (const auto& [streams, waits] : record.stream_waits.edges) {
    vprof::summary::StreamEdge& edge = *totals.add_stream_edges();
    edge.set_recording_stream(streams.first);
    edge.set_waiting_stream(streams.second);
    edge.set_waits(waits);
  }
  totals.set_nccl_graph_kernels(record.nccl_graph_kernels);
  EncodeNamedTotals(record.ipc_calls, *totals.mutable_ipc_calls());
  EncodeActivity(record.peer_copies, totals.mutable_peer_copies());
  EncodeActivity(record.pageable_copies, totals.mutable_pageable_copies());
  EncodeActivity(record.pinned_copies, totals.mutable_pinned_copies());
  EncodeActivity(record.vprof_kernels, totals.mutable_vprof_kernels());
  // Written only when recorded, so that a summary of traces without them is the same bytes.
  if (record.graph_replays.count) {
    EncodeActivity(record.graph_replays, totals.mutable_graph_replays());
    totals.set_graph_replay_kernels(record.graph_replay_nodes.kernels);
    totals.set_graph_replay_memsets(record.graph_replay_nodes.memsets);
    totals.set_graph_replay_memcpys(record.graph_replay_nodes.memcpys);
    totals.set_graph_replays_unlisted(record.graph_replays_unlisted);
  }
  for (const auto& [id, device] : record.devices) {
    vprof::summary::GpuDeviceInfo& row = *totals.add_devices();
    row.set_id(id);
    row.set_uuid(device.uuid);
    row.set_name(device.name);
  }
  return totals;
}

GpuRecord DecodeGpu(const GpuTotals& totals) {
  GpuRecord record;
  if (totals.has_capture()) {
    record.capture = std::make_shared<const vprof::trace::GpuCaptureStatus>(totals.capture());
  }
  record.batches = totals.batches();
  record.kernels = DecodeActivity(totals.kernels());
  record.memcpy = DecodeActivity(totals.memcpy());
  record.memset = DecodeActivity(totals.memset());
  record.syncs = DecodeActivity(totals.syncs());
  record.api_calls = totals.api_calls();
  record.dropped_records = totals.dropped_records();
  record.cupti_overhead_ns = totals.cupti_overhead_ns();
  record.kernels_by_name = DecodeNamedTotals(totals.kernels_by_name());
  record.nccl = DecodeLinkage(totals);
  record.stream_waits.event_records = totals.event_records();
  record.stream_waits.waits = totals.waits();
  record.stream_waits.matched_waits = totals.matched_waits();
  for (const auto& edge : totals.stream_edges()) {
    record.stream_waits.edges[{edge.recording_stream(), edge.waiting_stream()}] = edge.waits();
  }
  record.nccl_graph_kernels = totals.nccl_graph_kernels();
  record.ipc_calls = DecodeNamedTotals(totals.ipc_calls());
  record.peer_copies = DecodeActivity(totals.peer_copies());
  record.pageable_copies = DecodeActivity(totals.pageable_copies());
  record.pinned_copies = DecodeActivity(totals.pinned_copies());
  record.vprof_kernels = DecodeActivity(totals.vprof_kernels());
  record.graph_replays = DecodeActivity(totals.graph_replays());
  record.graph_replay_nodes = {totals.graph_replay_kernels(), totals.graph_replay_memsets(),
                               totals.graph_replay_memcpys()};
  record.graph_replays_unlisted = totals.graph_replays_unlisted();
  for (const auto& row : totals.devices()) record.devices[row.id()] = {row.uuid(), row.name()};
  return record;
}

}  // namespace vprof::reporter
