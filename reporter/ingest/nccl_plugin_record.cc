#include "reporter/ingest/nccl_plugin_record.h"

#include "vprof_trace.pb.h"

namespace vprof::reporter {

bool NcclPluginRecord::attached() const {
  return (injection && injection->attached()) || batches > 0;
}

}  // namespace vprof::reporter
