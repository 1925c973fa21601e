// NVTX capture: vprof as an NVTX injection library.
//
// Every library built with the NVTX3 headers (PyTorch, NCCL, the program)
// initialises NVTX on its own first call: it dlopens NVTX_INJECTION64_PATH and
// calls InitializeInjectionNvtx2 (entry_points.cc), which lands here once per
// such module and fills that module's function table with vprof's callbacks.
#pragma once

#include <cstdint>

namespace vprof {

// getExportTable is NVTX's NvtxGetExportTableFunc_t. Returns 1 when vprof's
// callbacks are installed, 0 (NVTX then runs without a tool) when vprof is off
// or the table is not one vprof understands.
int AttachNvtx(const void* (*get_export_table)(uint32_t export_table_id));

}  // namespace vprof
