// CrossCoreSetFlag / CrossCoreWaitFlag over the scheduler's shared counters.
#include "aicore/kernel/sync/cross_core.h"

#include <string>
#include <vector>

#include "aicore/kernel/pipe/flags.h"
#include "aicore/sim/scheduler.h"
#include "aicore/sim/source_site.h"

namespace AscendC::detail {
namespace {

using aicore::sim::CoreType;
using aicore::sim::LaunchShared;

constexpr uint16_t kMaxFlagId = 15;
constexpr int64_t kCounterLimit = 15;

struct Target {
  CoreType type;
  int64_t block;
};

const char* TypeName(CoreType t) { return t == CoreType::kAic ? "AIC" : "AIV"; }

// The funnel's sync key of core (type, block)'s counter for `flag`: the timing model pairs sets
// and waits on it. block < 2^20 (block_dim <= 65535, two AIVs each).
int32_t FunnelKey(const Target& t, uint16_t flag) {
  return static_cast<int32_t>((uint32_t{flag} << 21) | (t.type == CoreType::kAic ? 0u : 1u << 20) |
                              static_cast<uint32_t>(t.block));
}
uint64_t CounterKey(const Target& t, uint16_t flag) {
  return (uint64_t{1} << 40) | static_cast<uint32_t>(FunnelKey(t, flag));
}
// The sets participant `who` (of the `need` that together make one increment: modes 0 and 1,
// and AIVs in mode 2) has made and no increment has used yet. group, who < 2^23.
uint64_t ArrivalKey(uint8_t mode, CoreType type, int64_t group, uint16_t flag, int64_t who) {
  return (uint64_t{3} << 56) | (uint64_t{mode} << 52) | (uint64_t{flag} << 47) |
         (type == CoreType::kAic ? 0 : uint64_t{1} << 46) |
         (static_cast<uint64_t>(group) << 23) | static_cast<uint64_t>(who);
}

void CheckCall(const char* api, uint8_t mode, uint16_t flag, const SrcLoc& loc) {
  auto& core = Core();
  if (core.id().type == CoreType::kCoupled) {
    Fail(StatusCode::kFailedPrecondition, api, loc, core.chip().name,
         " is not a split chip: cross-core flags exist only between AICs and AIVs (e.g. "
         "ascend910b1)");
  }
  if (mode > 2) {
    Fail(StatusCode::kInvalidArgument, api, loc, "modeId ", int{mode}, " is outside [0, 2]");
  }
  if (flag > kMaxFlagId) {
    Fail(StatusCode::kInvalidArgument, api, loc, "flagId ", flag, " is outside [0, ", kMaxFlagId,
         "] (user flags are 0-10; SyncAll uses 11-14)");
  }
}

}  // namespace

void CrossCoreSet(uint8_t mode, pipe_t pipe, uint16_t flag, const SrcLoc& loc) {
  constexpr const char* kApi = "CrossCoreSetFlag";
  CheckCall(kApi, mode, flag, loc);
  auto& core = Core();
  const auto& id = core.id();
  const int64_t n_aic = aicore::sim::LaunchCoreCount(CoreType::kAic);
  const int64_t n_aiv = aicore::sim::LaunchCoreCount(CoreType::kAiv);
  std::vector<Target> targets;
  int64_t need = 1;
  int64_t group = 0;
  int64_t who = 0;  // the caller's place among the `need` participants
  switch (mode) {
    case 0:
      need = id.type == CoreType::kAic ? n_aic : n_aiv;
      who = id.block_idx;
      for (int64_t b = 0; b < need; ++b) targets.push_back({id.type, b});
      break;
    case 1:
      if (id.type != CoreType::kAiv) {
        Fail(StatusCode::kInvalidArgument, kApi, loc,
             "mode 1 synchronises the AIVs of one AI Core; it was called on an AIC");
      }
      need = id.sub_block_num;
      group = id.group_idx;
      who = id.sub_block_idx;
      for (int64_t s = 0; s < need; ++s)
        targets.push_back({CoreType::kAiv, id.block_idx - id.sub_block_idx + s});
      break;
    case 2:
      if (n_aic == 0 || n_aiv == 0) {
        Fail(StatusCode::kFailedPrecondition, kApi, loc,
             "mode 2 pairs the AIC and the AIVs of one AI Core, but this launch runs only ",
             TypeName(id.type), "s (launch the kernel in mix mode: KernelMode::kMix)");
      }
      if (id.type == CoreType::kAic) {
        const int64_t ratio = n_aiv / n_aic;
        for (int64_t s = 0; s < ratio; ++s)
          targets.push_back({CoreType::kAiv, id.group_idx * ratio + s});
      } else {
        need = id.sub_block_num;
        group = id.group_idx;
        who = id.sub_block_idx;
        targets.push_back({CoreType::kAic, id.group_idx});
      }
      break;
  }
  core.Flush(aicore::sim::Pipe::kAll);  // what the set publishes lands first (differential mode)
  if (core.observed()) [[unlikely]] {
    for (const Target& t : targets) {
      aicore::sim::Instr in;
      in.kind = aicore::sim::InstrKind::kCrossCoreSet;
      in.api = kApi;
      in.pipe = ToSimPipe(pipe);
      in.event_id = FunnelKey(t, flag);
      in.repeat = static_cast<uint32_t>(need);
      in.loc = loc;
      core.Notify(in);
    }
  }
  const Target* overflow = nullptr;
  aicore::sim::WithSchedulerLock([&](LaunchShared& sh) {
    if (need > 1) {
      // One increment takes one set of every participant: a second set of the same core waits
      // for the others (Note [Cross-core flags]).
      ++sh.counters[ArrivalKey(mode, id.type, group, flag, who)];
      for (int64_t w = 0; w < need; ++w) {
        if (sh.counters[ArrivalKey(mode, id.type, group, flag, w)] == 0) return;
      }
      for (int64_t w = 0; w < need; ++w) --sh.counters[ArrivalKey(mode, id.type, group, flag, w)];
    }
    for (const Target& t : targets) {
      if (sh.counters[CounterKey(t, flag)] >= kCounterLimit) {
        overflow = &t;
        return;
      }
    }
    for (const Target& t : targets) ++sh.counters[CounterKey(t, flag)];
  });
  if (overflow != nullptr) {
    Fail(StatusCode::kResourceExhausted, kApi, loc, "flag ", flag, " of ", TypeName(overflow->type),
         " ", overflow->block, " already holds ", kCounterLimit,
         " unconsumed sets; hardware would hang here: the waiting core must catch up first "
         "(add a reverse CrossCoreSetFlag/CrossCoreWaitFlag pair)");
  }
}

void CrossCoreWait(uint8_t mode, pipe_t pipe, uint16_t flag, const SrcLoc& loc) {
  constexpr const char* kApi = "CrossCoreWaitFlag";
  CheckCall(kApi, mode, flag, loc);
  auto& core = Core();
  const Target self{core.id().type, core.id().block_idx};
  AICORE_ISSUE(core, ([&] {
                 aicore::sim::Instr in;
                 in.kind = aicore::sim::InstrKind::kCrossCoreWait;
                 in.api = kApi;
                 in.pipe = ToSimPipe(pipe);
                 in.event_id = FunnelKey(self, flag);
                 in.loc = loc;
                 return in;
               }()));
  const uint64_t key = CounterKey(self, flag);
  // The site string is built only if the wait never ends (the message of a deadlock): a wait
  // that does not block costs no formatting.
  aicore::sim::BlockUntil(
      [key](LaunchShared& sh) {
        auto it = sh.counters.find(key);
        return it != sh.counters.end() && it->second > 0;
      },
      [flag, mode, loc](LaunchShared&) {
        return aicore::StrCat("CrossCoreWaitFlag(", flag, ") mode ", int{mode}, " at ",
                              aicore::sim::SourceSite(loc), ": no core has set the flag");
      });
  aicore::sim::WithSchedulerLock([key](LaunchShared& sh) { --sh.counters[key]; });
}

}  // namespace AscendC::detail
