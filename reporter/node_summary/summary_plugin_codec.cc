#include "reporter/node_summary/summary_plugin_codec.h"

namespace vprof::reporter {
namespace {

using vprof::summary::PluginTotals;

void EncodeContext(uint64_t context_id, const NcclPluginContext& context,
                   vprof::summary::PluginContext* out) {
  out->set_context_id(context_id);
  out->set_described(context.described);
  out->set_comm_hash(context.comm_hash);
  out->set_name(context.name);
  out->set_nnodes(context.nnodes);
  out->set_nranks(context.nranks);
  out->set_rank(context.rank);
  out->set_init_ns(context.init_ns);
  out->set_finalize_ns(context.finalize_ns);
  for (const auto& [function, counts] : context.ops) {
    vprof::summary::PluginOpCounts& row = *out->add_ops();
    row.set_function(function);
    row.set_coll(counts.coll);
    row.set_p2p(counts.p2p);
  }
}

NcclPluginContext DecodeContext(const vprof::summary::PluginContext& in) {
  NcclPluginContext context;
  context.described = in.described();
  context.comm_hash = in.comm_hash();
  context.name = in.name();
  context.nnodes = in.nnodes();
  context.nranks = in.nranks();
  context.rank = in.rank();
  context.init_ns = in.init_ns();
  context.finalize_ns = in.finalize_ns();
  for (const auto& row : in.ops()) context.ops[row.function()] = {row.coll(), row.p2p()};
  return context;
}

}  // namespace

PluginTotals EncodePlugin(const NcclPluginRecord& record) {
  PluginTotals totals;
  if (record.injection) *totals.mutable_injection() = *record.injection;
  totals.set_batches(record.batches);
  totals.set_dropped(record.dropped);
  totals.set_coll_events(record.coll_events);
  totals.set_p2p_events(record.p2p_events);
  totals.set_graph_captured_events(record.graph_captured_events);
  for (const auto& [context_id, context] : record.contexts) {
    EncodeContext(context_id, context, totals.add_contexts());
  }
  for (const auto& [use, count] : record.algorithms) {
    vprof::summary::AlgorithmUse& row = *totals.add_algorithms();
    row.set_func(use.func);
    row.set_algo(use.algo);
    row.set_proto(use.proto);
    row.set_channels(use.channels);
    row.set_coll_events(count);
  }
  return totals;
}

NcclPluginRecord DecodePlugin(const PluginTotals& totals) {
  NcclPluginRecord record;
  if (totals.has_injection()) {
    record.injection = std::make_shared<const vprof::trace::InjectionStatus>(totals.injection());
  }
  record.batches = totals.batches();
  record.dropped = totals.dropped();
  record.coll_events = totals.coll_events();
  record.p2p_events = totals.p2p_events();
  record.graph_captured_events = totals.graph_captured_events();
  for (const auto& context : totals.contexts()) {
    record.contexts[context.context_id()] = DecodeContext(context);
  }
  for (const auto& row : totals.algorithms()) {
    record.algorithms[{row.func(), row.algo(), row.proto(), row.channels()}] = row.coll_events();
  }
  return record;
}

}  // namespace vprof::reporter
