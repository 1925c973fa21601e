// `vprof trigger DIR [--seconds S] [--in S]`: opens a deep window in every
// process writing into the run folder DIR whose VPROF_DEEP is trigger or a
// duty cycle, by writing DIR/vprof.trigger (common/deep_schedule.h). The
// window starts at one wall-clock instant for all of them, so that every rank
// of a job records the same steps in depth.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

std::string TriggerUsage();

// 0 when the trigger file was written; kExitUsage for bad arguments or a DIR
// that is not a folder; kExitFailure when the file could not be written.
int RunTriggerCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
