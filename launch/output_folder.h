// The folder a launcher writes a run's traces and manifest into.
#pragma once

#include <string>

namespace vprof::reporter {

// Creates `directory` (with its parents) unless it exists, and checks that it
// does not belong to another run: a manifest.json there with a run_id other
// than `run_id` makes it refuse, unless `force`. Returns "" when the folder
// is ready, else the message (naming the folder and the run found there).
std::string ClaimOutputFolder(const std::string& directory, const std::string& run_id, bool force);

}  // namespace vprof::reporter
