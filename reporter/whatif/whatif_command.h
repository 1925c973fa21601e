// `vprof whatif RUN [change...]`: the measured steps replayed with the
// user's change (whatif_change.h); the projected step time, the saving and
// what is then on the critical path.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

std::string WhatifUsage();
int RunWhatifCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
