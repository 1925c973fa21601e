// The bitwise comparison of two runs' collective fingerprints: the first
// collective (in run A's call order) whose fingerprints differ on any rank,
// what kind of drift that is, and which of the recorded settings differ.
//
// Calls are aligned by rank, by communicator (the k-th a rank created in A
// with the k-th in B: same size, same creating call) and by seq (and peer for
// send/recv). The first difference is classified:
//   representation   the dtype differs (bf16 against fp32, ...)
//   metadata         the function, count, reduction op or root differs, or
//                    one run made the call and the other did not
//   upstream         an input differs on some rank: the drift arose before
//                    this call, in arithmetic or data, after the last call
//                    that still agreed
//   reduction        every input agrees and an output differs: the order or
//                    topology of the reduction (algorithm, protocol,
//                    channels, rank placement, a custom all-reduce)
// A call either run did not fingerprint (sampling, graph capture, a full
// pool, a failure) is counted and skipped, never taken for agreement.
//
// Settings differ only where both runs recorded them: a version one run
// could not record (0: its library was not loaded when asked) is a gap of
// capture, listed apart. NCCL_* variables are recorded whole in both runs
// (the environment), so one set in a run only is a difference.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reporter/drift/run_fingerprints.h"

namespace vprof::reporter {

enum class DriftClass { kNone, kRepresentation, kMetadata, kUpstream, kReduction };

const char* DriftClassName(DriftClass c);  // "representation", ...

struct DriftCall {
  uint32_t comm_index = 0;  // creation order on the rank, from 0
  std::string comm_label;   // "#1 (ncclCommInitRank, 4 ranks)"
  std::string function;
  uint64_t seq = 0;
  int32_t peer = -1;
};

struct SettingChange {
  std::string name;  // "NCCL_ALGO", "NCCL version", "host of rank 3"
  std::string a, b;  // "" when unset
};

// A setting one run recorded and the other did not.
struct SettingGap {
  std::string name;  // "NCCL version"
  char run = 'A';    // the run that recorded it
  std::string value;
};

// Where the GPU work that may explain the first difference lies, on the rank
// the difference shows on (the first of them): launched after the last call
// on that rank that agreed returned (0: from the start of the trace),
// through the differing call's return (its own kernels included), on each
// run's clock.
struct DriftWindow {
  int32_t rank = -1;
  std::string file_a, file_b;
  std::optional<DriftCall> after;  // none: no earlier call on the rank agreed
  DriftCall through;
  uint64_t a_after_ns = 0, a_until_ns = 0;
  uint64_t b_after_ns = 0, b_until_ns = 0;
};

struct BitwiseDiff {
  std::string dir_a, dir_b;
  uint32_t ranks = 0;
  uint64_t compared = 0;      // calls compared (a collective once, whatever its ranks)
  uint64_t agreed = 0;        // of them, before the first difference
  uint64_t differing = 0;     // of them, differing (after the first, mostly its consequences)
  uint64_t not_compared = 0;  // a side without a fingerprint
  DriftClass drift = DriftClass::kNone;
  std::optional<DriftCall> first;
  std::vector<int32_t> ranks_differing;
  std::string detail;  // what differs, for people
  std::optional<DriftCall> last_agreeing;
  std::vector<SettingChange> settings;  // recorded in both runs, with other values
  std::vector<SettingGap> settings_recorded_once;
  // Set with `first` when both runs made it on that rank; otherwise why not.
  std::optional<DriftWindow> window;
  std::string no_window;
  // The smallest set of classes that explains every difference: each class
  // wherever it shows, except that an input differing after values already
  // diverged is taken for a consequence (only the first upstream difference
  // counts). And the alignment profile that set makes: A0 none, A1 upstream
  // (arithmetic) only, A2 reduction/topology only, A3 representation only,
  // A4 two of those three, A5 all three or any metadata difference.
  std::set<DriftClass> axes;
  std::map<DriftClass, DriftCall> axis_first;  // where each of them first shows
  std::string profile;
  bool inputs_whole = true;
};

// The first of `axes` (in DriftClass order) that a run declared `profile`
// ("A0".."A5") may not show: A0 none, A1 upstream, A2 reduction, A3
// representation, A4 two of those three, A5 any; metadata only under A5.
std::optional<DriftClass> ForbiddenAxis(const std::string& profile,
                                        const std::set<DriftClass>& axes);

// Compares A and B. Not comparable (a run without fingerprints, different
// ranks, different sampling or fingerprint versions): false, with *error
// naming the run and what is missing or different.
bool CompareFingerprints(const RunFingerprints& a, const RunFingerprints& b, BitwiseDiff* diff,
                         std::string* error);

}  // namespace vprof::reporter
