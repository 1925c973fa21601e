// `vprof slurm` (scripts/vprof-slurm): profiling a Slurm job.
//   srun vprof-slurm [options] -- CMD ...   profiles each task of the step
//   vprof-slurm --report [options]          after the steps, in the batch script:
//                                           summarizes each node in parallel (one srun
//                                           task per node), then merges the summaries
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

std::string SlurmUsage();

// Task mode returns the command's exit status (128 + N for signal N); report
// mode the report's (reporter/README.md).
int RunSlurmCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
