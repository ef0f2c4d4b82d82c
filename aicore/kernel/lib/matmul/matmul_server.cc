// The Matmul mailbox between the AIVs of a mix group and their AIC.
//
// - Each (launch, group) has a mailbox in a registry; the launch is told apart by an id kept in
//   the scheduler's shared counters, so a mailbox never outlives or leaks into another launch.
// - A client call is a request (a closure over the AIC's MatmulServerApi) pushed under the
//   scheduler lock; the client then BlockUntil its request is done.
// - The server (the AIC inside REGIST_MATMUL_OBJ) BlockUntil a request it may take
//   (Note [Matmul sessions]) or every AIV of the group has connected and quit; it runs the
//   request, records the client's settings to replay them when it switches clients, and marks
//   the request done after flushing the AIC's pipes (the reply stands for the cross-core flag
//   that orders the AIC's writes before the client's reads). A kernel error on the AIC is handed
//   back to the waiting client. Requests and replies are recorded in the funnel as cross-core
//   flags so the timing model sees the AIV -> AIC -> AIV dependencies.

#include "aicore/kernel/lib/matmul/matmul_server.h"

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "aicore/sim/scheduler.h"

namespace AscendC::detail {
namespace {

using aicore::sim::CoreType;
using aicore::sim::LaunchShared;

constexpr uint64_t kLaunchIdKey = 0x4d4d5f4c41554e43ull;  // "MM_LAUNC" in the shared counters
constexpr int kMaxClients = 8;

struct Request {
  MatmulRequest kind = MatmulRequest::kInit;
  int64_t sub = 0;
  int64_t block = 0;  // the client AIV's block index
  std::function<void(MatmulServerApi&)> fn;
  bool in_service = false;  // the server runs fn, which may reference the client's stack
  bool done = false;
  bool failed = false;
  aicore::Status status;
};

struct Mailbox {
  // Shared with the sender: a client cancelled while the server still works on its request (the
  // launch aborting on an error) must not free it under the server, and a quit message outlives
  // the destructor that sent it.
  std::deque<std::shared_ptr<Request>> queue;
  std::array<int, kMaxClients> live{};
  std::array<bool, kMaxClients> connected{};
  int64_t session = -1;  // the client owning the AIC (Note [Matmul sessions]), or -1
};

// Matmul messages appear in the funnel as cross-core flags on the id no user or SyncAll flag
// takes (15), keyed like CrossCoreSetFlag's (See Note [Cross-core flags]): the timing model then
// starts the AIC's work after the request and the client's next instruction after the reply.
constexpr uint32_t kMessageFlag = 15;

int32_t MessageKey(CoreType type, int64_t block) {
  return static_cast<int32_t>((kMessageFlag << 21) | (type == CoreType::kAic ? 0u : 1u << 20) |
                              static_cast<uint32_t>(block));
}

void RecordMessage(aicore::sim::InstrKind kind, CoreType type, int64_t block,
                   aicore::sim::Pipe pipe, const SrcLoc& loc) {
  auto& core = Core();
  AICORE_ISSUE(core, ([&] {
                 aicore::sim::Instr in;
                 in.kind = kind;
                 in.api = kind == aicore::sim::InstrKind::kCrossCoreSet ? "CrossCoreSetFlag"
                                                                        : "CrossCoreWaitFlag";
                 in.pipe = pipe;
                 in.event_id = MessageKey(type, block);
                 in.loc = loc;
                 return in;
               }()));
}

std::mutex registry_mu;
std::map<std::pair<uint64_t, int64_t>, std::shared_ptr<Mailbox>> registry;
std::atomic<uint64_t> next_launch_id{1};

uint64_t LaunchId() {
  uint64_t id = 0;
  aicore::sim::WithSchedulerLock([&](LaunchShared& shared) {
    int64_t& v = shared.counters[kLaunchIdKey];
    if (v == 0) v = static_cast<int64_t>(next_launch_id.fetch_add(1));
    id = static_cast<uint64_t>(v);
  });
  return id;
}

std::shared_ptr<Mailbox> GetBox(uint64_t launch, int64_t group) {
  std::lock_guard<std::mutex> lock(registry_mu);
  auto& box = registry[{launch, group}];
  if (!box) box = std::make_shared<Mailbox>();
  return box;
}

void DropBox(uint64_t launch, int64_t group) {
  std::lock_guard<std::mutex> lock(registry_mu);
  registry.erase({launch, group});
}

// Returns the next request the server may take (See Note [Matmul sessions]), removing it.
std::shared_ptr<Request> Take(Mailbox& box) {
  for (auto it = box.queue.begin(); it != box.queue.end(); ++it) {
    std::shared_ptr<Request> r = *it;
    if (box.session < 0 || r->sub == box.session || r->kind == MatmulRequest::kQuit) {
      box.queue.erase(it);
      return r;
    }
  }
  return nullptr;
}

bool CanTake(const Mailbox& box) {
  for (const auto& r : box.queue) {
    if (box.session < 0 || r->sub == box.session || r->kind == MatmulRequest::kQuit) return true;
  }
  return false;
}

bool AllQuit(const Mailbox& box, int64_t expected) {
  if (!box.queue.empty()) return false;
  for (int64_t i = 0; i < expected && i < kMaxClients; ++i) {
    if (!box.connected[i] || box.live[i] > 0) return false;
  }
  return true;
}

bool IsSetting(MatmulRequest r) {
  switch (r) {
    case MatmulRequest::kInit:
    case MatmulRequest::kSetOrgShape:
    case MatmulRequest::kSetTail:
    case MatmulRequest::kSetTensorA:
    case MatmulRequest::kSetTensorB:
    case MatmulRequest::kSetBias:
    case MatmulRequest::kClearBias:
      return true;
    default:
      return false;
  }
}

// One client's settings, replayed in order when the server switches to it. Init starts over.
struct ClientLog {
  std::vector<std::pair<MatmulRequest, std::function<void(MatmulServerApi&)>>> calls;
  void Record(MatmulRequest r, const std::function<void(MatmulServerApi&)>& fn) {
    if (r == MatmulRequest::kInit) calls.clear();
    // Only the latest tensor or bias setting matters; shapes accumulate (SetTail keeps -1s).
    const bool replace = r == MatmulRequest::kSetTensorA || r == MatmulRequest::kSetTensorB ||
                         r == MatmulRequest::kSetBias || r == MatmulRequest::kClearBias;
    if (replace) {
      for (auto it = calls.begin(); it != calls.end();) {
        const bool bias = r == MatmulRequest::kSetBias || r == MatmulRequest::kClearBias;
        const bool same = it->first == r || (bias && (it->first == MatmulRequest::kSetBias ||
                                                      it->first == MatmulRequest::kClearBias));
        it = same ? calls.erase(it) : it + 1;
      }
    }
    calls.emplace_back(r, fn);
  }
};

}  // namespace

const char* MatmulRequestName(MatmulRequest r) {
  switch (r) {
    case MatmulRequest::kInit:
      return "Init";
    case MatmulRequest::kSetOrgShape:
      return "SetOrgShape";
    case MatmulRequest::kSetTail:
      return "SetTail";
    case MatmulRequest::kSetTensorA:
      return "SetTensorA";
    case MatmulRequest::kSetTensorB:
      return "SetTensorB";
    case MatmulRequest::kSetBias:
      return "SetBias";
    case MatmulRequest::kClearBias:
      return "ClearBias";
    case MatmulRequest::kIterate:
      return "Iterate";
    case MatmulRequest::kGetTensorC:
      return "GetTensorC";
    case MatmulRequest::kIterateAll:
      return "IterateAll";
    case MatmulRequest::kEnd:
      return "End";
    case MatmulRequest::kQuit:
      return "~Matmul";
  }
  return "?";
}

bool IsMixServer() {
  auto& core = Core();
  return core.id().type == CoreType::kAic && core.chip().split() &&
         aicore::sim::LaunchCoreCount(CoreType::kAiv) > 0;
}

void MatmulClient::Connect(const SrcLoc& loc) {
  if (active_) return;
  auto& core = Core();
  if (aicore::sim::LaunchCoreCount(CoreType::kAic) == 0) {
    Fail(StatusCode::kFailedPrecondition, "Matmul::Init", loc,
         "a Matmul on an AIV is served by the AIC of its group, but this launch has no AIC: "
         "launch with KernelMode::kMix (or run the Matmul in a cube-only launch, "
         "KernelMode::kAic)");
  }
  launch_ = LaunchId();
  group_ = core.id().group_idx;
  sub_ = core.id().sub_block_idx;
  if (sub_ < 0 || sub_ >= kMaxClients) {
    Fail(StatusCode::kInternal, "Matmul::Init", loc, "sub-block index ", sub_, " out of range");
  }
  auto box = GetBox(launch_, group_);
  bool second = false;
  aicore::sim::WithSchedulerLock([&](LaunchShared&) {
    second = box->live[sub_] > 0;
    if (!second) {
      box->live[sub_] = 1;
      box->connected[sub_] = true;
    }
  });
  if (second) {
    Fail(StatusCode::kUnimplemented, "Matmul::Init", loc,
         "this AIV already has a Matmul "
         "object served by its AIC; mix launches support one Matmul object per AIV");
  }
  active_ = true;
}

void MatmulClient::CallImpl(MatmulRequest r, const SrcLoc& loc,
                            std::function<void(MatmulServerApi&)> fn) {
  auto box = GetBox(launch_, group_);
  auto shared = std::make_shared<Request>();
  Request& req = *shared;
  req.kind = r;
  req.sub = sub_;
  req.block = Core().id().block_idx;
  req.fn = std::move(fn);
  RecordMessage(aicore::sim::InstrKind::kCrossCoreSet, CoreType::kAic, group_,
                aicore::sim::Pipe::kS, loc);
  aicore::sim::WithSchedulerLock([&](LaunchShared&) { box->queue.push_back(shared); });
  const int64_t group = group_;
  // While the server runs fn (which may reference this frame), an aborting launch must not
  // unwind this block: `hold` defers the cancellation until the request is finished.
  aicore::sim::BlockUntil([&](LaunchShared&) { return req.done; },
                          [&, group, where = aicore::sim::SourceSite(loc)](LaunchShared&) {
                            return aicore::StrCat("waits at ", where, " for the AIC of group ",
                                                  group, " to serve Matmul::",
                                                  MatmulRequestName(r),
                                                  " (is REGIST_MATMUL_OBJ reached on the AIC?)");
                          },
                          [shared](LaunchShared&) { return shared->in_service; });
  RecordMessage(aicore::sim::InstrKind::kCrossCoreWait, CoreType::kAiv, req.block,
                aicore::sim::Pipe::kS, loc);
  if (req.failed) {
    aicore::sim::KernelFailMessage(req.status.code(),
                                   (std::string("Matmul::") + MatmulRequestName(r)).c_str(), loc,
                                   "the AIC serving this call failed: " + req.status.message());
  }
}

void MatmulClient::Quit() noexcept {
  if (!active_) return;
  active_ = false;
  try {
    auto box = GetBox(launch_, group_);
    auto req = std::make_shared<Request>();
    req->kind = MatmulRequest::kQuit;
    req->sub = sub_;
    RecordMessage(aicore::sim::InstrKind::kCrossCoreSet, CoreType::kAic, group_,
                  aicore::sim::Pipe::kS, SrcLoc::current());
    aicore::sim::WithSchedulerLock([&](LaunchShared&) { box->queue.push_back(std::move(req)); });
  } catch (...) {
    // The launch is being torn down; the server is gone or cancelled too.
  }
}

void ServeMatmulRequests(MatmulServerApi& api, const SrcLoc& loc) {
  auto& core = Core();
  const int64_t group = core.id().group_idx;
  const uint64_t launch = LaunchId();
  const int64_t aic = std::max<int64_t>(1, aicore::sim::LaunchCoreCount(CoreType::kAic));
  const int64_t expected = std::max<int64_t>(1, aicore::sim::LaunchCoreCount(CoreType::kAiv) / aic);
  auto box = GetBox(launch, group);
  std::map<int64_t, ClientLog> logs;
  int64_t current = -1;
  for (;;) {
    aicore::sim::BlockUntil([&](LaunchShared&) { return CanTake(*box) || AllQuit(*box, expected); },
                            [&](LaunchShared&) {
                              int quit = 0;
                              for (int64_t i = 0; i < expected && i < kMaxClients; ++i) {
                                quit += box->connected[i] && box->live[i] == 0;
                              }
                              return aicore::StrCat(
                                  "serves Matmul for the ", expected, " AIVs of group ", group,
                                  " (", quit,
                                  " done); an AIV that never uses the Matmul keeps "
                                  "the AIC waiting");
                            });
    std::shared_ptr<Request> r;
    bool finished = false;
    aicore::sim::WithSchedulerLock([&](LaunchShared& sh) {
      // An aborting launch cancels waiting clients, whose requests reference their stacks: take
      // none then. A request taken before stays held (in_service) until it is done.
      if (sh.aborting) {
        finished = true;
        return;
      }
      r = Take(*box);
      finished = r == nullptr && AllQuit(*box, expected);
      if (r != nullptr && r->kind != MatmulRequest::kQuit) r->in_service = true;
    });
    if (finished) break;
    if (r == nullptr) continue;
    RecordMessage(aicore::sim::InstrKind::kCrossCoreWait, CoreType::kAic, group,
                  aicore::sim::Pipe::kS, loc);
    if (r->kind == MatmulRequest::kQuit) {
      if (current == r->sub && api.Busy()) api.End(loc);
      if (current == r->sub) current = -1;
      const int64_t sub = r->sub;
      aicore::sim::WithSchedulerLock([&](LaunchShared&) {
        box->live[sub] = 0;
        if (box->session == sub) box->session = -1;
      });
      continue;
    }
    try {
      if (r->sub != current) {
        for (auto& [kind, fn] : logs[r->sub].calls) fn(api);
        current = r->sub;
      }
      r->fn(api);
      // The reply is the cross-core sync: what the AIC wrote (C, the staging block) must have
      // landed before the client reads it (See Note [Differential execution]).
      core.Flush(aicore::sim::Pipe::kAll);
      if (IsSetting(r->kind)) logs[r->sub].Record(r->kind, r->fn);
    } catch (const aicore::Error& e) {
      r->failed = true;
      r->status = e.status();
      current = -1;
    } catch (...) {  // this block is being cancelled: release the client before unwinding
      aicore::sim::WithSchedulerLock([&](LaunchShared&) { r->in_service = false; });
      throw;
    }
    RecordMessage(aicore::sim::InstrKind::kCrossCoreSet, CoreType::kAiv, r->block,
                  aicore::sim::Pipe::kFix, loc);
    const int64_t session = !r->failed && api.Busy() ? r->sub : -1;
    aicore::sim::WithSchedulerLock([&](LaunchShared&) {
      box->session = session;
      r->in_service = false;
      r->done = true;
    });
  }
  DropBox(launch, group);
}

}  // namespace AscendC::detail
