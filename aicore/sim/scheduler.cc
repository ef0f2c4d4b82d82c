// The block scheduler.
//
// - A launch expands into cores (tasks): block_dim AIVs, AICs, or mix groups of 1 AIC + 2 AIVs.
// - Worker threads (the caller is worker 0) take not-yet-started tasks from a shared counter and
//   run each as a fiber with its own Core. A started fiber stays on its worker
//   (Note [Fibers stay on their worker]).
// - A fiber that must wait calls BlockUntil: it records a predicate and suspends. Its worker keeps
//   it in a blocked list and re-checks the predicate whenever the launch's epoch changes (any
//   state change under the lock bumps it and wakes all workers).
// - A worker with nothing runnable and no tasks left waits on the condition variable. When every
//   active worker is idle at the same epoch, no blocked block can ever proceed: that is a deadlock.
//   The report lists each blocked block's wait; the blocked fibers are resumed with a cancel flag
//   so their stacks unwind.
// - The first kernel error aborts the launch the same way; tasks not yet started are skipped.
// - Limits are errors: a block whose stack or local memory cannot be mapped (address space or
//   vm.max_map_count exhausted, see Note [Mapping budget]) aborts the launch with a
//   ResourceExhausted status; worker threads that cannot be created leave fewer workers.
// - AICORE_LOG_LEVEL=debug logs each launch (kernel, blockDim, mode, chip, cores, workers) and
//   its outcome, and each scheduling decision: a block started on a worker, suspended (with what
//   it waits on), resumed or cancelled, a deadlock or an abort.
#include "aicore/sim/scheduler.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "aicore/core/env.h"
#include "aicore/core/log.h"
#include "aicore/sim/fiber.h"
#include "aicore/sim/gm_copies.h"
#include "aicore/sim/gm_registry.h"
#include "aicore/sim/page_pool.h"
#include "aicore/sim/source_site.h"

namespace aicore::sim {

namespace {

// Kernel objects (TPipe, queues, tiling) and local arrays live on the fiber stack; AICORE_STACK_KB
// or SetFiberStackKiB change the default.
constexpr int64_t kDefaultStackKiB = 1024;
// Workers are OS threads: beyond a few per host core they only add switching, and tens of
// thousands exhaust the process's thread limit.
constexpr int64_t kMaxThreads = 1024;

struct BlockCancelled {};  // unwinds a blocked fiber when the launch aborts; never escapes

struct Launch;

struct BlockState {
  std::unique_ptr<Core> core;
  std::unique_ptr<Fiber> fiber;
  std::function<bool(LaunchShared&)> ready;
  std::function<std::string(LaunchShared&)> describe;
  std::function<bool(LaunchShared&)> hold;  // see BlockUntil
  uint64_t checked_epoch = ~0ull;  // `ready` was false at this epoch
  bool cancelled = false;
};

struct Launch {
  const LaunchSpec* spec = nullptr;
  const arch::Chip* chip = nullptr;
  std::vector<CoreIdentity> tasks;
  size_t next_task = 0;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t epoch = 0;
  int active_workers = 0;
  int idle_workers = 0;
  bool aborting = false;
  Status first_error;
  std::set<BlockState*> blocked;
  std::vector<Observer*> observers;
  LaunchShared shared;
  size_t stack_kib = 0;
  uint64_t syncall_gen = 0;
  int64_t syncall_arrived = 0;
  int64_t aiv_count = 0;
  int64_t type_count[3] = {0, 0, 0};  // cores per CoreType (LaunchCoreCount)
  int64_t suspensions = 0;  // BlockUntil calls that suspended, for the debug log
  uint64_t gm_epoch = kGmEpochNow;  // the launching thread's GM view epoch
  // Note [L0C to UB]: per group of a 1:1 mix launch on a fixpipe_to_ub chip, the UB its AIC and
  // AIV share, alive while either core is.
  std::mutex ub_mu;
  std::unordered_map<int64_t, std::weak_ptr<uint8_t>> group_ub;

  // Call with mu held after changing anything a predicate may read.
  void Bump() {
    ++epoch;
    idle_workers = 0;
    cv.notify_all();
  }
};

thread_local Launch* t_launch = nullptr;
thread_local BlockState* t_block = nullptr;

std::mutex g_config_mu;
int g_threads = 0;
size_t g_stack_kib = 0;
std::mutex g_observers_mu;
std::vector<Observer*> g_observers;
std::mutex g_launch_mu;  // one launch at a time
std::mutex g_hooks_mu;
std::vector<void (*)()> g_launch_end_hooks;  // guarded by g_hooks_mu

int HostThreads() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(std::min<unsigned>(hc, kMaxThreads));
}

int DefaultThreads() {
  static const int n = static_cast<int>(env::Int("AICORE_THREADS", HostThreads(), 1, kMaxThreads));
  return n;
}

size_t DefaultStackKiB() {
  static const size_t kib = static_cast<size_t>(
      env::Int("AICORE_STACK_KB", kDefaultStackKiB, kMinStackKiB, kMaxStackKiB));
  return kib;
}

// Persistent worker threads; Run(n, fn) calls fn(0) on the caller and fn(1..n-1) on pool threads.
class WorkerPool {
 public:
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
      ++generation_;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // Starts pool threads until n - 1 exist, and returns how many workers (the caller included) can
  // run: fewer than n when the system refuses more threads (warned once).
  int Reserve(int n) {
    std::lock_guard<std::mutex> lk(mu_);
    while (static_cast<int>(threads_.size()) < n - 1) {
      int index = static_cast<int>(threads_.size()) + 1;
      try {
        threads_.emplace_back([this, index] { Loop(index); });
      } catch (const std::system_error& e) {
        static std::once_flag warned;
        std::call_once(warned, [&] {
          AICORE_LOG(kWarn) << "cannot start worker thread " << index << " (" << e.what()
                            << "); launches run on " << threads_.size() + 1 << " workers";
        });
        break;
      }
    }
    return std::min(n, static_cast<int>(threads_.size()) + 1);
  }

  // Calls fn(0) on the caller and fn(1..n-1) on pool threads; n <= Reserve(n).
  void Run(int n, const std::function<void(int)>& fn) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      job_ = &fn;
      job_workers_ = n;
      pending_ = n - 1;
      ++generation_;
    }
    cv_.notify_all();
    fn(0);
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void Loop(int index) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* job;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
        if (index >= job_workers_) continue;
        job = job_;
      }
      (*job)(index);
      {
        std::lock_guard<std::mutex> lk(mu_);
        --pending_;
      }
      done_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  int job_workers_ = 0;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

WorkerPool& Pool() {
  static WorkerPool pool;
  return pool;
}

void RecordError(Launch& L, const Status& st) {
  std::lock_guard<std::mutex> lk(L.mu);
  if (L.first_error.ok()) {
    AICORE_LOG(kDebug) << "launch " << L.spec->kernel_name << ": aborting on the first error, "
                       << L.tasks.size() - L.next_task << " of " << L.tasks.size()
                       << " cores not started: " << st.message();
  }
  if (L.first_error.ok()) L.first_error = st;
  L.aborting = true;
  L.shared.aborting = true;
  L.Bump();
}

void RunBlockBody(Launch& L, BlockState& b) {
  try {
    for (Observer* o : L.observers) o->OnBlockBegin(*b.core);
    L.spec->body();
    b.core->Flush(Pipe::kAll);  // deferred transfers complete before the block ends
    for (Observer* o : L.observers) o->OnBlockEnd(*b.core);
  } catch (const BlockCancelled&) {
    // The launch is aborting; the primary error is already recorded.
  } catch (const Error& e) {
    RecordError(L, e.status());
  } catch (const std::exception& e) {
    RecordError(L, Status(StatusCode::kInternal,
                          StrCat(L.spec->kernel_name, " ", b.core->Name(),
                                 ": uncaught exception: ", e.what())));
  } catch (...) {
    RecordError(L, Status(StatusCode::kInternal, StrCat(L.spec->kernel_name, " ", b.core->Name(),
                                                        ": uncaught non-standard exception")));
  }
}

Status StartFailure(Launch& L, const CoreIdentity& id, const std::string& why) {
  int64_t live = 0;
  {
    std::lock_guard<std::mutex> lk(L.mu);
    live = static_cast<int64_t>(L.blocked.size());
  }
  return Status(StatusCode::kResourceExhausted,
                StrCat("launch of ", L.spec->kernel_name, " (blockDim ", L.spec->block_dim,
                       "): cannot start ", CoreTypeName(id.type), " ", id.block_idx, " with ", live,
                       " blocks waiting (each holds a ", L.stack_kib,
                       " KiB stack and its local memory): ", why));
}

// Returns the UB group `id` shares between its AIC and AIV (Note [L0C to UB]), or nullptr when
// the launch shares none.
std::shared_ptr<uint8_t> GroupUb(Launch& L, const CoreIdentity& id) {
  if (!L.chip->fixpipe_to_ub || L.spec->mode != KernelMode::kMix1To1 || !L.chip->split()) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lk(L.ub_mu);
  std::weak_ptr<uint8_t>& slot = L.group_ub[id.group_idx];
  if (std::shared_ptr<uint8_t> ub = slot.lock()) return ub;
  const size_t bytes = (L.chip->spec(arch::Buffer::kUb).bytes + 4095) & ~size_t{4095};
  std::shared_ptr<uint8_t> ub(static_cast<uint8_t*>(AcquireMapping(bytes)),
                              [bytes](uint8_t* p) { ReleaseMapping(p, bytes); });
  slot = ub;
  return ub;
}

// Creates block `id`'s core and fiber, or returns why it cannot (ResourceExhausted).
Status StartBlock(Launch& L, const CoreIdentity& id, std::unique_ptr<BlockState>* out) {
  const size_t stack_bytes = L.stack_kib << 10;
  try {
    auto b = std::make_unique<BlockState>();
    b->core =
        std::make_unique<Core>(*L.chip, L.spec->kernel_name, id, L.observers, GroupUb(L, id));
    BlockState* raw = b.get();
    Launch* lp = &L;
    b->fiber = std::make_unique<Fiber>(
        [lp, raw] { RunBlockBody(*lp, *raw); }, stack_bytes,
        StrCat(L.spec->kernel_name, " block ", id.block_idx,
               id.type == CoreType::kAic && L.chip->split() ? " (AIC)" : ""));
    *out = std::move(b);
    return Status::Ok();
  } catch (const Error& e) {
    return StartFailure(L, id, e.status().message());
  } catch (const std::exception& e) {
    return StartFailure(L, id, e.what());
  }
}

// Call with L.mu held: an aborting launch cancels a waiting block unless its `hold` keeps it.
bool CancelledByAbort(Launch& L, const std::function<bool(LaunchShared&)>& hold) {
  return L.aborting && !(hold && hold(L.shared));
}

std::string DeadlockReport(Launch& L) {
  std::vector<std::pair<std::string, std::string>> lines;
  for (BlockState* b : L.blocked) lines.emplace_back(b->core->Name(), b->describe(L.shared));
  std::sort(lines.begin(), lines.end());
  std::string msg = StrCat("deadlock in kernel ", L.spec->kernel_name, ": all ", lines.size(),
                           " live blocks wait and none can proceed");
  for (auto& [who, what] : lines) msg += StrCat("\n  ", who, ": ", what);
  return msg;
}

void Worker(Launch& L, int worker_index) {
  const GmEpochView gm_view(L.gm_epoch);  // the launch's view of GM, see Note [GM epochs]
  std::vector<BlockState*> mine;  // blocked fibers started by this worker
  // Predicates only change with the epoch, so each blocked fiber is checked once per epoch: a scan
  // resumes where the last one stopped until the epoch moves (65535 blocks waiting in SyncAll
  // would otherwise cost a full rescan per started block).
  uint64_t scan_epoch = ~0ull;
  size_t scan_pos = 0;
  for (;;) {
    BlockState* run = nullptr;
    std::unique_ptr<BlockState> fresh;
    {
      std::unique_lock<std::mutex> lk(L.mu);
      for (;;) {
        if (L.epoch != scan_epoch) {
          scan_epoch = L.epoch;
          scan_pos = 0;
        }
        while (scan_pos < mine.size()) {
          BlockState* b = mine[scan_pos];
          if (b->checked_epoch == L.epoch) {
            ++scan_pos;
            continue;
          }
          const bool cancel = CancelledByAbort(L, b->hold);
          if (cancel || b->ready(L.shared)) {
            b->cancelled = L.aborting && !b->ready(L.shared);
            AICORE_LOG(kDebug) << "worker " << worker_index
                               << (b->cancelled ? " cancels block " : " resumes block ")
                               << b->core->Name() << " of " << L.spec->kernel_name;
            run = b;
            mine[scan_pos] = mine.back();
            mine.pop_back();
            L.blocked.erase(b);
            break;
          }
          b->checked_epoch = L.epoch;
          ++scan_pos;
        }
        if (run != nullptr) break;
        if (!L.aborting && L.next_task < L.tasks.size()) {
          const size_t task = L.next_task++;
          const CoreIdentity id = L.tasks[task];
          lk.unlock();
          Status failed = StartBlock(L, id, &fresh);
          lk.lock();
          if (!failed.ok()) {
            if (L.first_error.ok()) L.first_error = failed;
            L.aborting = true;
            L.shared.aborting = true;
            L.Bump();
            continue;
          }
          AICORE_LOG(kDebug) << "worker " << worker_index << " starts block "
                             << fresh->core->Name() << " of " << L.spec->kernel_name << " (core "
                             << task + 1 << " of " << L.tasks.size() << ")";
          run = fresh.release();
          break;
        }
        if (mine.empty() && (L.aborting || L.next_task >= L.tasks.size())) {
          --L.active_workers;
          L.Bump();
          return;
        }
        const uint64_t seen = L.epoch;
        if (++L.idle_workers == L.active_workers && !L.aborting) {
          Status st(StatusCode::kDeadlock, DeadlockReport(L));
          AICORE_LOG(kDebug) << "launch " << L.spec->kernel_name << ": all "
                             << L.active_workers << " workers idle with " << L.blocked.size()
                             << " blocks waiting at epoch " << L.epoch << ": deadlock";
          if (L.first_error.ok()) L.first_error = st;
          L.aborting = true;
          L.shared.aborting = true;
          L.Bump();
          continue;
        }
        L.cv.wait(lk, [&] { return L.epoch != seen; });
      }
    }
    SetCurrentCore(run->core.get());
    t_block = run;
    t_launch = &L;
    run->fiber->Resume();
    SetCurrentCore(nullptr);
    t_block = nullptr;
    t_launch = nullptr;
    if (run->fiber->finished()) {
      delete run;
      std::lock_guard<std::mutex> lk(L.mu);
      L.Bump();
    } else {
      std::lock_guard<std::mutex> lk(L.mu);
      ++L.suspensions;
      AICORE_LOG(kDebug) << "worker " << worker_index << " suspends block " << run->core->Name()
                         << " of " << L.spec->kernel_name << ": "
                         << (run->describe ? run->describe(L.shared) : std::string("?"));
      mine.push_back(run);
      L.blocked.insert(run);
    }
  }
}

std::vector<CoreIdentity> ExpandTasks(const LaunchSpec& spec, const arch::Chip& chip,
                                      int64_t* aiv_count) {
  std::vector<CoreIdentity> tasks;
  const int64_t n = spec.block_dim;
  *aiv_count = 0;
  if (!chip.split()) {
    for (int64_t i = 0; i < n; ++i) tasks.push_back({CoreType::kCoupled, i, n, 0, 1, i});
    *aiv_count = n;
    return tasks;
  }
  switch (spec.mode) {
    case KernelMode::kAiv:
      for (int64_t i = 0; i < n; ++i) tasks.push_back({CoreType::kAiv, i, n, 0, 1, i});
      *aiv_count = n;
      break;
    case KernelMode::kAic:
      for (int64_t i = 0; i < n; ++i) tasks.push_back({CoreType::kAic, i, n, 0, 1, i});
      break;
    case KernelMode::kMix:
      for (int64_t g = 0; g < n; ++g) {
        tasks.push_back({CoreType::kAic, g, n, 0, 1, g});
        for (int64_t s = 0; s < 2; ++s) tasks.push_back({CoreType::kAiv, 2 * g + s, 2 * n, s, 2, g});
      }
      *aiv_count = 2 * n;
      break;
    case KernelMode::kMix1To1:
      for (int64_t g = 0; g < n; ++g) {
        tasks.push_back({CoreType::kAic, g, n, 0, 1, g});
        tasks.push_back({CoreType::kAiv, g, n, 0, 1, g});
      }
      *aiv_count = n;
      break;
  }
  return tasks;
}

}  // namespace

void AttachObserver(Observer* observer) {
  std::lock_guard<std::mutex> lk(g_observers_mu);
  g_observers.push_back(observer);
}

void DetachObserver(Observer* observer) {
  std::lock_guard<std::mutex> lk(g_observers_mu);
  g_observers.erase(std::remove(g_observers.begin(), g_observers.end(), observer),
                    g_observers.end());
}

void SetWorkerThreads(int threads) {
  if (threads > kMaxThreads) {
    AICORE_LOG(kWarn) << "SetWorkerThreads(" << threads << ") is above the maximum " << kMaxThreads
                      << "; using " << kMaxThreads;
    threads = kMaxThreads;
  }
  std::lock_guard<std::mutex> lk(g_config_mu);
  g_threads = std::max(threads, 0);
}

int WorkerThreads() {
  std::lock_guard<std::mutex> lk(g_config_mu);
  return g_threads > 0 ? g_threads : DefaultThreads();
}

void SetFiberStackKiB(size_t kib) {
  if (kib != 0 && (kib < kMinStackKiB || kib > kMaxStackKiB)) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "SetFiberStackKiB(", kib,
         "): the fiber stack size must be 0 (the default) or in [", kMinStackKiB, ", ",
         kMaxStackKiB, "] KiB");
  }
  std::lock_guard<std::mutex> lk(g_config_mu);
  g_stack_kib = kib;
}

size_t FiberStackKiB() {
  std::lock_guard<std::mutex> lk(g_config_mu);
  return g_stack_kib > 0 ? g_stack_kib : DefaultStackKiB();
}

Status RunKernel(const LaunchSpec& spec) {
  if (spec.block_dim < 1 || spec.block_dim > 65535) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("launch of ", spec.kernel_name, ": blockDim ", spec.block_dim,
                         " is outside [1, 65535]"));
  }
  if (!spec.body) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("launch of ", spec.kernel_name, ": no kernel function"));
  }
  if (t_launch != nullptr) {
    return Status(StatusCode::kFailedPrecondition,
                  StrCat("launch of ", spec.kernel_name, " from inside kernel ",
                         t_launch->spec->kernel_name, ": kernels cannot launch kernels"));
  }
  std::lock_guard<std::mutex> launch_lock(g_launch_mu);
  Launch L;
  L.spec = &spec;
  L.gm_epoch = GmViewEpoch();
  try {
    L.chip = spec.chip ? spec.chip : &arch::DefaultChip();
  } catch (const Error& e) {
    return e.status();
  }
  L.tasks = ExpandTasks(spec, *L.chip, &L.aiv_count);
  for (const CoreIdentity& t : L.tasks) ++L.type_count[static_cast<int>(t.type)];
  {
    std::lock_guard<std::mutex> lk(g_observers_mu);
    L.observers = g_observers;
  }
  L.stack_kib = FiberStackKiB();
  const int workers = Pool().Reserve(
      static_cast<int>(std::min<size_t>(static_cast<size_t>(WorkerThreads()), L.tasks.size())));
  L.active_workers = workers;
  AICORE_LOG(kDebug) << "launch " << spec.kernel_name << ": blockDim " << spec.block_dim
                     << ", mode " << KernelModeName(spec.mode)
                     << (spec.launch_type.empty() ? "" : " from " + spec.launch_type)
                     << ", chip " << L.chip->name << (L.chip->split() ? " (split)" : " (coupled)")
                     << ", " << L.tasks.size() << " cores (" << L.aiv_count << " AIV), "
                     << workers << (workers == 1 ? " worker thread, " : " worker threads, ")
                     << L.observers.size() << " observers";
  for (Observer* o : L.observers) o->OnLaunchBegin(spec.kernel_name.c_str(), spec.block_dim);
  InvalidateGmCopies();  // the host may have written GM since the last launch
  Pool().Run(workers, [&L](int w) { Worker(L, w); });
  InvalidateGmCopies();
  {
    std::lock_guard<std::mutex> lk(g_hooks_mu);
    for (void (*hook)() : g_launch_end_hooks) hook();
  }
  for (Observer* o : L.observers) o->OnLaunchEnd(spec.kernel_name.c_str());
  AICORE_LOG(kDebug) << "launch " << spec.kernel_name << " finished: "
                     << (L.first_error.ok() ? std::string("ok") : L.first_error.ToString())
                     << ", " << L.suspensions << " block suspensions";
  if (!L.first_error.ok() && !spec.launch_type.empty()) {
    return Status(L.first_error.code(),
                  StrCat(L.first_error.message(), " (kernel type: ", KernelModeName(spec.mode),
                         L.chip->split() ? "" : " on a coupled chip", ", from ", spec.launch_type,
                         ")"),
                  L.first_error.where());
  }
  return L.first_error;
}

void AddLaunchEndHook(void (*hook)()) {
  std::lock_guard<std::mutex> lk(g_hooks_mu);
  g_launch_end_hooks.push_back(hook);
}

bool LaunchAborting() {
  Launch* L = t_launch;
  if (L == nullptr) return false;
  std::lock_guard<std::mutex> lk(L->mu);
  return L->shared.aborting;
}

void WithSchedulerLock(const std::function<void(LaunchShared&)>& fn) {
  Launch* L = t_launch;
  if (L == nullptr) {
    Fail(StatusCode::kFailedPrecondition, std::source_location::current(),
         "cross-core operation outside a kernel launch");
  }
  std::lock_guard<std::mutex> lk(L->mu);
  fn(L->shared);
  L->Bump();
}

void BlockUntil(const std::function<bool(LaunchShared&)>& ready,
                const std::function<std::string(LaunchShared&)>& describe,
                const std::function<bool(LaunchShared&)>& hold) {
  Launch* L = t_launch;
  BlockState* b = t_block;
  if (L == nullptr || b == nullptr) {
    Fail(StatusCode::kFailedPrecondition, std::source_location::current(),
         "blocking operation outside a kernel launch");
  }
  {
    std::lock_guard<std::mutex> lk(L->mu);
    if (ready(L->shared)) return;
    // A launch that is already aborting cancels the block now: a worker skips fibers whose
    // checked_epoch is current, so one suspended here would wait for an epoch that never comes.
    if (CancelledByAbort(*L, hold)) throw BlockCancelled{};
    b->checked_epoch = L->epoch;
    b->ready = ready;
    b->describe = describe;
    b->hold = hold;
  }
  Fiber::Suspend();
  // The worker resumes us on the same thread; restore what it cleared.
  if (b->cancelled) throw BlockCancelled{};
}

void SyncAllCores(bool aiv_only, const std::source_location& loc, int64_t participants) {
  Launch* L = t_launch;
  if (L == nullptr) {
    Fail(StatusCode::kFailedPrecondition, loc, "SyncAll outside a kernel launch");
  }
  Core& core = CurrentCore();
  const int64_t all = aiv_only ? L->aiv_count : static_cast<int64_t>(L->tasks.size());
  if (aiv_only && core.id().type == CoreType::kAic) {
    KernelFail(StatusCode::kInvalidArgument, "SyncAll", loc,
               "SyncAll<isAIVOnly=true> called on an AIC; use SyncAll<false>() in mix kernels");
  }
  if (participants < 0 || participants > all) {
    KernelFail(StatusCode::kInvalidArgument, "SyncAll", loc, "usedCores ", participants,
               " is outside [0, ", all, "] (0 = every core; at most the ", all,
               aiv_only ? " AIVs" : " cores", " of the launch)");
  }
  const int64_t need = participants > 0 ? participants : all;
  uint64_t gen;
  {
    std::lock_guard<std::mutex> lk(L->mu);
    gen = L->syncall_gen;
    if (++L->syncall_arrived == need) {
      InvalidateGmCopies();  // a phase barrier ends every GM copy (Note [GM copies])
      L->syncall_arrived = 0;
      ++L->syncall_gen;
      L->Bump();
      return;
    }
  }
  const std::string site = SourceSite(loc);
  BlockUntil([L, gen](LaunchShared&) { return L->syncall_gen != gen; },
             [L, need, site](LaunchShared&) {
               return StrCat("SyncAll at ", site, ": ", L->syncall_arrived, " of ", need,
                             " cores arrived");
             });
}

int64_t LaunchCoreCount(CoreType type) {
  Launch* L = t_launch;
  if (L == nullptr) return 0;
  return L->type_count[static_cast<int>(type)];
}

}  // namespace aicore::sim
