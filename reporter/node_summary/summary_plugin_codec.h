// A process's NCCL profiler-plugin totals (nccl_plugin_record.h) to and from a
// node summary. They concern one process only, so a summary carries them
// whole; this mirrors NcclPluginRecord field by field and must follow it when
// it grows.
#pragma once

#include "reporter/ingest/nccl_plugin_record.h"
#include "reporter/node_summary/node_summary.pb.h"

namespace vprof::reporter {

vprof::summary::PluginTotals EncodePlugin(const NcclPluginRecord& record);
NcclPluginRecord DecodePlugin(const vprof::summary::PluginTotals& totals);

}  // namespace vprof::reporter
