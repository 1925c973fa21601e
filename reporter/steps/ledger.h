// One ledger per step: every nanosecond of a rank's step window in exactly
// one cause (LedgerCause): compute by phase; exposed communication split
// into waiting for the member of its collective that arrived last and the
// transfer after it, by role (comm_roles.h); copies; host-bound idle by
// phase, less what vprof's own recording added to the launches; and idle
// waiting on a stream or event.
//
// The split needs every rank: a member's kernel of a collective spans its
// wait for the others and the transfer, so over the members (communicator,
// seq) the shortest kernel is the transfer and belongs to the member that
// arrived last; each other member's kernel is longer by its wait for that
// one. Durations, not start times: no clock needs aligning across hosts.
// The wait is the first part of the kernel; what of it no compute hid is
// the ledger's wait.
//
// Each full step takes the ledger of the rank that ends it; where several
// end together (within kStepEndTogether of the step), as the ranks of a
// synchronous step do at its last collective, of the one that waited
// longest for another, so that the wait is named with the rank it waited
// for rather than shown as that rank's own work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Ranks whose windows end within this share of a full step of its end
// (never under kStepEndTogetherMinNs) end it together.
inline constexpr double kStepEndTogether = 0.01;
inline constexpr int64_t kStepEndTogetherMinNs = 50'000;

// A rank named late only when the chance of its being the last member in
// that many collectives, were every member equally likely to be, is below
// this over all the ranks (one-sided binomial test, Bonferroni: this ÷ the
// ranks tested for each) ...
inline constexpr double kStragglerFalseAlarm = 0.001;
// ... and the others' wait for it is at least this share of the mean step.
inline constexpr double kStragglerMinShare = 0.01;

// Fills every measured step's ledger, each full step's ledger_rank and
// `steps.ledger`. Needs the full steps (CompleteFullSteps).
void BuildLedgers(StepsReport& steps);

// The lines of the given full steps' ledgers alone (indexes into
// StepsReport::full_steps, after BuildLedgers), summed as `steps.ledger`'s
// are over every measured full step: what a cause is on some of the steps.
StepsLedger LedgerOfFullSteps(const StepsReport& steps, const std::vector<uint32_t>& full_steps);

// "last at 61 of its 76 gradient-bucket collectives, in backward, where
// chance gives 19 (one-sided binomial p = 1.2e-20, over its roles); 69 of its
// 99 collectives in all".
std::string LateRankText(const LateRank& late);

// "compute", "waiting for a late rank", "transfer", "copies",
// "host-bound idle", "vprof's own cost", "waiting idle".
std::string_view LedgerCauseName(LedgerCause cause);

// The line as a person reads it: "compute in backward", "waiting for rank 3
// in backward", "transfer of gradient buckets", "host-bound idle in forward".
std::string LedgerLineName(const StepsReport& steps, const LedgerLine& line);

}  // namespace vprof::reporter
