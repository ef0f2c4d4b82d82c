// IBSet/IBWait over the scheduler: the flag lives in GM as documented; the wait is a BlockUntil.
#include "aicore/kernel/sync/inter_block.h"

#include <atomic>

#include "aicore/sim/gm_copies.h"
#include "aicore/sim/scheduler.h"

namespace AscendC::detail {

void InterBlockSync(bool set, bool aiv_only, int32_t* gm, uint64_t gm_elements, bool bounded,
                    bool ub_valid, uint64_t ub_bytes, int32_t block_idx, int32_t event_id,
                    const SrcLoc& loc) {
  const char* api = set ? "IBSet" : "IBWait";
  auto& core = Core();
  if (gm == nullptr) {
    Fail(StatusCode::kFailedPrecondition, api, loc,
         "gmWorkspace has no buffer (call SetGlobalBuffer first)");
  }
  if (!ub_valid || ub_bytes < 32) {
    Fail(StatusCode::kInvalidArgument, api, loc, "ubWorkspace must be an allocated tensor of at "
         "least 32 bytes (it has ", ub_bytes, ")");
  }
  const int64_t cores = aiv_only ? ::block_num : 2 * ::block_num;
  if (block_idx < 0 || block_idx >= cores || event_id < 0) {
    Fail(StatusCode::kInvalidArgument, api, loc, "blockIdx ", block_idx, " / eventID ", event_id,
         ": blockIdx must be in [0, ", cores - 1, "] and eventID >= 0");
  }
  const uint64_t slot = uint64_t(event_id) * cores + block_idx;  // 32-byte slots
  const uint64_t need = (slot + 1) * 32;
  if (bounded && gm_elements * sizeof(int32_t) < need) {
    Fail(StatusCode::kOutOfRange, api, loc, "gmWorkspace holds ", gm_elements * sizeof(int32_t),
         " B; flag (blockIdx ", block_idx, ", eventID ", event_id, ") needs ", need, " B");
  }
  int32_t* flag = gm + slot * 8;
  if (set) {
    core.Flush(aicore::sim::Pipe::kAll);  // the writes this flag announces have landed
    aicore::sim::WithSchedulerLock([flag](aicore::sim::LaunchShared&) {
      std::atomic_ref<int32_t>(*flag).store(1, std::memory_order_release);
    });
    return;
  }
  aicore::sim::BlockUntil(
      [flag](aicore::sim::LaunchShared&) {
        return std::atomic_ref<int32_t>(*flag).load(std::memory_order_acquire) == 1;
      },
      [block_idx, event_id](aicore::sim::LaunchShared&) {
        return aicore::StrCat("IBWait for blockIdx ", block_idx, " eventID ", event_id,
                              " (no IBSet with the same arguments has run)");
      });
  // What the setting block wrote before IBSet, raw stores too, may be read now (Note [GM copies]).
  aicore::sim::InvalidateGmCopies();
}

}  // namespace AscendC::detail
