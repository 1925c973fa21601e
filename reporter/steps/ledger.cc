#include "reporter/steps/ledger.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "reporter/base/binomial_tail.h"
#include "reporter/base/units.h"
#include "reporter/steps/comm_roles.h"

namespace vprof::reporter {
namespace {

// One rank's kernel of one collective.
struct Member {
  uint64_t comm_id;
  uint64_t seq;
  int64_t duration_ns;
  uint32_t rank;  // into StepsReport::ranks
};

// A collective over its members' kernels: the shortest, whose member
// arrived last, and how many ranks' kernels were seen.
struct Shortest {
  uint64_t comm_id;
  uint64_t seq;
  int64_t duration_ns;
  uint32_t rank;
  uint32_t members;
};

std::vector<Shortest> ShortestMembers(const StepsReport& steps) {
  std::vector<Member> members;
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    for (const RankStepReport& step : steps.ranks[r].steps) {
      for (const StepCollective& collective : step.collectives) {
        if (collective.comm_id == 0 || collective.seq == 0) continue;
        members.push_back({collective.comm_id, collective.seq, collective.duration_ns, r});
      }
    }
  }
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return std::tie(a.comm_id, a.seq, a.duration_ns, a.rank) <
           std::tie(b.comm_id, b.seq, b.duration_ns, b.rank);
  });
  std::vector<Shortest> shortest;
  for (size_t i = 0; i < members.size();) {
    const Member& first = members[i];
    std::vector<uint32_t> ranks;
    size_t end = i;
    for (; end < members.size() && members[end].comm_id == first.comm_id &&
           members[end].seq == first.seq;
         ++end) {
      ranks.push_back(members[end].rank);
    }
    std::sort(ranks.begin(), ranks.end());
    const auto distinct = std::unique(ranks.begin(), ranks.end()) - ranks.begin();
    shortest.push_back(
        {first.comm_id, first.seq, first.duration_ns, first.rank, static_cast<uint32_t>(distinct)});
    i = end;
  }
  return shortest;
}

const Shortest* Find(const std::vector<Shortest>& shortest, uint64_t comm_id, uint64_t seq) {
  const auto it = std::lower_bound(shortest.begin(), shortest.end(), std::pair{comm_id, seq},
                                   [](const Shortest& s, const std::pair<uint64_t, uint64_t>& key) {
                                     return std::pair{s.comm_id, s.seq} < key;
                                   });
  return it != shortest.end() && it->comm_id == comm_id && it->seq == seq ? &*it : nullptr;
}

// Of `collective`'s exposed pieces, the time before `wait_ns` from its start.
int64_t ExposedWithin(const RankStepReport& step, const StepCollective& collective,
                      int64_t wait_ns) {
  int64_t within = 0;
  for (uint32_t i = 0; i < collective.pieces; ++i) {
    const ExposedPiece& piece = step.exposed_pieces[collective.first_piece + i];
    within += std::max<int64_t>(0, std::min(piece.to_ns, wait_ns) - piece.from_ns);
  }
  return std::min(within, collective.exposed_ns);
}

// Adds `ns` to the item of that key in `ledger`, made when new.
void Add(std::vector<LedgerItem>& ledger, LedgerItem item) {
  if (item.ns == 0) return;
  for (LedgerItem& each : ledger) {
    if (each.cause == item.cause && each.role == item.role && each.phase == item.phase &&
        each.late == item.late) {
      each.ns += item.ns;
      return;
    }
  }
  ledger.push_back(item);
}

// Moves `cost` out of the host-bound idle items, in proportion to each,
// into one vprof-cost item.
void TakeVprofCost(std::vector<LedgerItem>& ledger, int64_t cost) {
  int64_t idle = 0;
  for (const LedgerItem& item : ledger) {
    if (item.cause == LedgerCause::kHostBoundIdle) idle += item.ns;
  }
  cost = std::min(cost, idle);
  if (cost <= 0) return;
  int64_t taken = 0;
  LedgerItem* largest = nullptr;
  for (LedgerItem& item : ledger) {
    if (item.cause != LedgerCause::kHostBoundIdle) continue;
    const auto share = static_cast<int64_t>(static_cast<__int128>(item.ns) * cost / idle);
    item.ns -= share;
    taken += share;
    if (!largest || item.ns > largest->ns) largest = &item;
  }
  largest->ns -= cost - taken;  // the rounding
  ledger.push_back({cost, LedgerCause::kVprofCost});
  std::erase_if(ledger, [](const LedgerItem& item) { return item.ns == 0; });
}

void FillStepLedger(const std::vector<Shortest>& shortest, const RankStepsReport& rank,
                    uint32_t rank_index, RankStepReport& step) {
  std::vector<LedgerItem>& ledger = step.ledger;
  ledger.clear();
  for (const PhaseTime& time : step.compute_by_phase) {
    Add(ledger, {time.ns, LedgerCause::kCompute, CommRole::kUnclassified, time.phase});
  }
  for (const StepCollective& collective : step.collectives) {
    if (collective.exposed_ns == 0) continue;
    const CommRole role = collective.role;
    int64_t wait = 0;
    uint32_t late = 0;
    if (const Shortest* s = Find(shortest, collective.comm_id, collective.seq);
        s && s->members >= 2 && s->rank != rank_index) {
      wait = ExposedWithin(step, collective, collective.duration_ns - s->duration_ns);
      late = s->rank;
    }
    Add(ledger, {wait, LedgerCause::kWaitForRank, role, collective.phase, late});
    Add(ledger, {collective.exposed_ns - wait, LedgerCause::kTransfer, role, collective.phase});
  }
  Add(ledger, {step.times.copy_ns, LedgerCause::kCopy});
  for (const PhaseTime& time : step.host_idle_by_phase) {
    Add(ledger, {time.ns, LedgerCause::kHostBoundIdle, CommRole::kUnclassified, time.phase});
  }
  Add(ledger, {step.times.idle_waiting_ns, LedgerCause::kWaitingIdle});
  if (rank.launch_cost) {
    TakeVprofCost(ledger, static_cast<int64_t>(rank.launch_cost->added_per_launch_ns *
                                               uint64_t{step.launches}));
  }
}

// The replay's communication pieces get the role of the step's collective
// they are: the same communicator, seq and kernel start.
void NameReplayRoles(RankStepReport& step) {
  if (step.replay.empty()) return;
  std::map<std::tuple<uint64_t, uint64_t, int64_t>, CommRole> roles;
  for (const StepCollective& c : step.collectives) roles[{c.comm_id, c.seq, c.start_ns}] = c.role;
  for (ReplayWork& work : step.replay) {
    if (work.kind != WorkKind::kComm) continue;
    const auto found = roles.find({work.comm_id, work.seq, work.start_ns});
    if (found != roles.end()) work.role = found->second;
  }
}

int64_t WaitOf(const std::vector<LedgerItem>& ledger) {
  int64_t wait = 0;
  for (const LedgerItem& item : ledger) {
    if (item.cause == LedgerCause::kWaitForRank) wait += item.ns;
  }
  return wait;
}

// The rank whose ledger is full step `i`'s (the header's rule).
uint32_t LedgerRankOf(const StepsReport& steps, size_t i) {
  const FullStepReport& full = steps.full_steps[i];
  int64_t end = INT64_MIN;
  for (const RankStepsReport& rank : steps.ranks) end = std::max(end, rank.steps[i].end_ns);
  const int64_t together =
      std::max(kStepEndTogetherMinNs,
               static_cast<int64_t>(kStepEndTogether * static_cast<double>(full.duration_ns)));
  std::optional<uint32_t> chosen;
  int64_t chosen_wait = 0;
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    const RankStepReport& step = steps.ranks[r].steps[i];
    if (step.end_ns < end - together) continue;
    const int64_t wait = WaitOf(step.ledger);
    const auto key = std::tuple(wait, step.end_ns);
    if (!chosen || key > std::tuple(chosen_wait, steps.ranks[*chosen].steps[i].end_ns)) {
      chosen = r;
      chosen_wait = wait;
    }
  }
  return *chosen;
}

// The ranks others waited for, with the chance test: per rank, its
// collectives of each role tested apart (a rank late at every gradient
// bucket and never at the metrics that follow them is late, however many
// of those it has), the role with the least probable count deciding.
std::vector<LateRank> LateRanks(const StepsReport& steps, const std::vector<Shortest>& shortest) {
  struct Group {
    uint64_t collectives = 0;
    uint64_t last = 0;
    double expected = 0;
    std::map<std::string, uint64_t> last_by_phase;
  };
  std::vector<LateRank> late(steps.ranks.size());
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    const RankStepsReport& rank = steps.ranks[r];
    LateRank& each = late[r];
    each.index = r;
    std::map<CommRole, Group> groups;
    for (const RankStepReport& step : rank.steps) {
      for (const StepCollective& collective : step.collectives) {
        const Shortest* s = Find(shortest, collective.comm_id, collective.seq);
        if (!s || s->members < 2) continue;
        Group& group = groups[collective.role];
        const double chance = 1.0 / s->members;
        ++each.collectives;
        each.expected_last += chance;
        ++group.collectives;
        group.expected += chance;
        // A rank's two kernels of one collective count once, by the shortest.
        if (s->rank == r && s->duration_ns == collective.duration_ns) {
          ++each.last;
          ++group.last;
          ++group.last_by_phase[rank.phase_names[collective.phase]];
        }
      }
    }
    const Group* decided = nullptr;
    double least = 2;
    for (const auto& [role, group] : groups) {
      const double p = BinomialUpperTail(group.last, group.collectives,
                                         group.expected / static_cast<double>(group.collectives));
      if (p < least || (p == least && decided && group.last > decided->last)) {
        least = p;
        decided = &group;
        each.role = role;
      }
    }
    if (!decided) continue;
    each.p_value = std::min(1.0, least * static_cast<double>(groups.size()));
    each.role_collectives = decided->collectives;
    each.last_in_role = decided->last;
    each.role_expected = decided->expected;
    uint64_t most = 0;
    for (const auto& [phase, count] : decided->last_by_phase) {
      if (count > most) {
        most = count;
        each.phase = phase;
      }
    }
  }
  return late;
}

// One step the ledger sums: a rank's step (indexes into StepsReport) and
// the whole its shares are of.
struct Pick {
  uint32_t rank;
  size_t step;
  int64_t whole_ns;
};

StepsLedger Summarize(const StepsReport& steps, const std::vector<Pick>& picks) {
  StepsLedger ledger;
  ledger.steps = static_cast<uint32_t>(picks.size());
  ledger.ledger_steps.assign(steps.ranks.size(), 0);
  using Key = std::tuple<LedgerCause, CommRole, std::string, uint32_t>;
  std::map<Key, int64_t> sums;
  int64_t whole_sum = 0, window_sum = 0;
  for (const Pick& pick : picks) {
    ++ledger.ledger_steps[pick.rank];
    whole_sum += pick.whole_ns;
    const RankStepsReport& rank = steps.ranks[pick.rank];
    const RankStepReport& step = rank.steps[pick.step];
    window_sum += step.times.window_ns;
    for (const LedgerItem& item : step.ledger) {
      const bool waits = item.cause == LedgerCause::kWaitForRank;
      sums[{item.cause, item.role, rank.phase_names[item.phase], waits ? item.late : 0}] += item.ns;
    }
  }
  if (picks.empty()) return ledger;
  const auto n = static_cast<int64_t>(picks.size());
  ledger.mean_step_ns = whole_sum / n;
  ledger.mean_window_ns = window_sum / n;
  for (const auto& [key, ns] : sums) {
    const auto& [cause, role, phase, late] = key;
    LedgerLine line{cause, role, phase, std::nullopt, ns / n, 0};
    if (cause == LedgerCause::kWaitForRank) line.late = late;
    if (ledger.mean_step_ns > 0) {
      line.share = static_cast<double>(line.per_step_ns) / static_cast<double>(ledger.mean_step_ns);
    }
    ledger.lines.push_back(std::move(line));
  }
  std::stable_sort(
      ledger.lines.begin(), ledger.lines.end(),
      [](const LedgerLine& a, const LedgerLine& b) { return a.per_step_ns > b.per_step_ns; });
  return ledger;
}

}  // namespace

std::string LateRankText(const LateRank& late) {
  std::string text = "last at " + std::to_string(late.last_in_role) + " of its " +
                     std::to_string(late.role_collectives) + " " +
                     std::string(CommRoleAdjective(late.role)) + " collectives";
  if (!late.phase.empty()) text += ", in " + late.phase;
  text += ", where chance gives " + FormatNumber(late.role_expected);
  if (late.p_value < 1) {
    text += " (one-sided binomial p = " + FormatNumber(late.p_value) + ", over its roles)";
  }
  return text + "; " + std::to_string(late.last) + " of its " + std::to_string(late.collectives) +
         " collectives in all";
}

std::string_view LedgerCauseName(LedgerCause cause) {
  switch (cause) {
    case LedgerCause::kCompute:
      return "compute";
    case LedgerCause::kWaitForRank:
      return "waiting for a late rank";
    case LedgerCause::kTransfer:
      return "transfer";
    case LedgerCause::kCopy:
      return "copies";
    case LedgerCause::kHostBoundIdle:
      return "host-bound idle";
    case LedgerCause::kVprofCost:
      return "vprof's own cost";
    case LedgerCause::kWaitingIdle:
      break;
  }
  return "waiting idle";
}

std::string LedgerLineName(const StepsReport& steps, const LedgerLine& line) {
  const std::string in_phase = line.phase.empty() ? "" : " in " + line.phase;
  switch (line.cause) {
    case LedgerCause::kCompute:
    case LedgerCause::kHostBoundIdle:
      return std::string(LedgerCauseName(line.cause)) + in_phase;
    case LedgerCause::kWaitForRank: {
      std::string rank = "an unknown rank";
      if (line.late && *line.late < steps.ranks.size()) {
        const RankStepsReport& late = steps.ranks[*line.late];
        rank = late.rank ? "rank " + std::to_string(*late.rank) : late.file;
      }
      return "waiting for " + rank + " at " + std::string(CommRoleName(line.role)) + in_phase;
    }
    case LedgerCause::kTransfer:
      // "transfer of weight sync", not "... in weight sync" again.
      return "transfer of " + std::string(CommRoleName(line.role)) +
             (line.phase == CommRoleName(line.role) ? "" : in_phase);
    default:
      break;
  }
  return std::string(LedgerCauseName(line.cause));
}

StepsLedger LedgerOfFullSteps(const StepsReport& steps, const std::vector<uint32_t>& full_steps) {
  std::vector<Pick> picks;
  for (const uint32_t i : full_steps) {
    const FullStepReport& full = steps.full_steps[i];
    if (full.ledger_rank) picks.push_back({*full.ledger_rank, i, full.duration_ns});
  }
  return Summarize(steps, picks);
}

void BuildLedgers(StepsReport& steps) {
  if (steps.ranks.empty()) return;
  const std::vector<Shortest> shortest = ShortestMembers(steps);
  const CommRoles roles = CommRoles::Of(steps);
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    RankStepsReport& rank = steps.ranks[r];
    for (RankStepReport& step : rank.steps) {
      for (StepCollective& collective : step.collectives) {
        collective.role = roles.RoleOf(rank, collective);
      }
      NameReplayRoles(step);
      FillStepLedger(shortest, rank, r, step);
    }
  }

  // The steps the ledger sums: each full step's ledger rank's; without full
  // steps, every measured step of the rank with the longest mean window.
  std::vector<Pick> picks;
  if (!steps.full_steps.empty()) {
    for (size_t i = 0; i < steps.full_steps.size(); ++i) {
      const uint32_t r = LedgerRankOf(steps, i);
      steps.full_steps[i].ledger_rank = r;
      picks.push_back({r, i, steps.full_steps[i].duration_ns});
    }
  } else {
    std::optional<uint32_t> longest;
    const auto mean_window = [&](uint32_t r) {
      const RankStepsReport& rank = steps.ranks[r];
      return rank.total.window_ns / static_cast<int64_t>(rank.steps.size());
    };
    for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
      if (steps.ranks[r].steps.empty()) continue;
      if (!longest || mean_window(r) > mean_window(*longest)) longest = r;
    }
    if (!longest) return;
    const RankStepsReport& rank = steps.ranks[*longest];
    for (size_t i = 0; i < rank.steps.size(); ++i) {
      picks.push_back({*longest, i, rank.steps[i].times.window_ns});
    }
  }
  StepsLedger ledger = Summarize(steps, picks);
  ledger.full_steps = !steps.full_steps.empty();
  ledger.roles = roles.evidence();

  for (const Shortest& s : shortest) {
    (s.members >= 2 ? ledger.matched_collectives : ledger.unmatched_collectives) += 1;
  }
  std::vector<LateRank> late = LateRanks(steps, shortest);
  for (const LedgerLine& line : ledger.lines) {
    if (line.late) late[*line.late].wait_per_step_ns += line.per_step_ns;
  }
  size_t tested = 0;
  for (const LateRank& each : late) tested += each.collectives > 0;
  const double false_alarm =
      kStragglerFalseAlarm / static_cast<double>(std::max<size_t>(1, tested));
  for (LateRank& each : late) {
    each.straggler = each.p_value < false_alarm &&
                     static_cast<double>(each.wait_per_step_ns) >=
                         kStragglerMinShare * static_cast<double>(ledger.mean_step_ns);
  }
  std::erase_if(late,
                [](const LateRank& each) { return each.wait_per_step_ns == 0 && each.last == 0; });
  std::stable_sort(late.begin(), late.end(), [](const LateRank& a, const LateRank& b) {
    return a.wait_per_step_ns > b.wait_per_step_ns;
  });
  ledger.late = std::move(late);
  steps.ledger = std::move(ledger);
}

}  // namespace vprof::reporter
