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
#include <thread>
#include <vector>

#include "aicore/core/log.h"
#include "aicore/sim/fiber.h"

namespace aicore::sim {

namespace {

constexpr size_t kFiberStackBytes = 1 << 20;  // kernel objects (TPipe, queues, tiling) live here

struct BlockCancelled {};  // unwinds a blocked fiber when the launch aborts; never escapes

struct Launch;

struct BlockState {
  std::unique_ptr<Core> core;
  std::unique_ptr<Fiber> fiber;
  std::function<bool(LaunchShared&)> ready;
  std::function<std::string(LaunchShared&)> describe;
  std::function<bool(LaunchShared&)> hold;  // see BlockUntil
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
  uint64_t syncall_gen = 0;
  int64_t syncall_arrived = 0;
  int64_t aiv_count = 0;
  int64_t suspensions = 0;  // BlockUntil calls that suspended, for the debug log

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
std::mutex g_observers_mu;
std::vector<Observer*> g_observers;
std::mutex g_launch_mu;  // one launch at a time

int DefaultThreads() {
  if (const char* env = std::getenv("AICORE_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
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

  void Run(int n, const std::function<void(int)>& fn) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      while (static_cast<int>(threads_.size()) < n - 1) {
        int index = static_cast<int>(threads_.size()) + 1;
        threads_.emplace_back([this, index] { Loop(index); });
      }
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
  std::vector<BlockState*> mine;  // blocked fibers started by this worker
  for (;;) {
    BlockState* run = nullptr;
    std::unique_ptr<BlockState> fresh;
    {
      std::unique_lock<std::mutex> lk(L.mu);
      for (;;) {
        for (auto it = mine.begin(); it != mine.end(); ++it) {
          BlockState* b = *it;
          const bool cancel = L.aborting && !(b->hold && b->hold(L.shared));
          if (cancel || b->ready(L.shared)) {
            b->cancelled = L.aborting && !b->ready(L.shared);
            AICORE_LOG(kDebug) << "worker " << worker_index
                               << (b->cancelled ? " cancels block " : " resumes block ")
                               << b->core->Name() << " of " << L.spec->kernel_name;
            run = b;
            mine.erase(it);
            L.blocked.erase(b);
            break;
          }
        }
        if (run != nullptr) break;
        if (!L.aborting && L.next_task < L.tasks.size()) {
          const size_t task = L.next_task++;
          const CoreIdentity id = L.tasks[task];
          lk.unlock();
          fresh = std::make_unique<BlockState>();
          fresh->core = std::make_unique<Core>(*L.chip, L.spec->kernel_name, id, L.observers);
          AICORE_LOG(kDebug) << "worker " << worker_index << " starts block "
                             << fresh->core->Name() << " of " << L.spec->kernel_name << " (core "
                             << task + 1 << " of " << L.tasks.size() << ")";
          BlockState* raw = fresh.get();
          Launch* lp = &L;
          fresh->fiber = std::make_unique<Fiber>([lp, raw] { RunBlockBody(*lp, *raw); },
                                                 kFiberStackBytes);
          run = fresh.release();
          lk.lock();
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
  std::lock_guard<std::mutex> lk(g_config_mu);
  g_threads = threads;
}

int WorkerThreads() {
  std::lock_guard<std::mutex> lk(g_config_mu);
  return g_threads > 0 ? g_threads : DefaultThreads();
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
  try {
    L.chip = spec.chip ? spec.chip : &arch::DefaultChip();
  } catch (const Error& e) {
    return e.status();
  }
  L.tasks = ExpandTasks(spec, *L.chip, &L.aiv_count);
  {
    std::lock_guard<std::mutex> lk(g_observers_mu);
    L.observers = g_observers;
  }
  const int workers =
      static_cast<int>(std::min<size_t>(static_cast<size_t>(WorkerThreads()), L.tasks.size()));
  L.active_workers = workers;
  AICORE_LOG(kDebug) << "launch " << spec.kernel_name << ": blockDim " << spec.block_dim
                     << ", mode " << KernelModeName(spec.mode)
                     << (spec.launch_type.empty() ? "" : " from " + spec.launch_type)
                     << ", chip " << L.chip->name << (L.chip->split() ? " (split)" : " (coupled)")
                     << ", " << L.tasks.size() << " cores (" << L.aiv_count << " AIV), "
                     << workers << (workers == 1 ? " worker thread, " : " worker threads, ")
                     << L.observers.size() << " observers";
  for (Observer* o : L.observers) o->OnLaunchBegin(spec.kernel_name.c_str(), spec.block_dim);
  Pool().Run(workers, [&L](int w) { Worker(L, w); });
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
    b->ready = ready;
    b->describe = describe;
    b->hold = hold;
  }
  Fiber::Suspend();
  // The worker resumes us on the same thread; restore what it cleared.
  if (b->cancelled) throw BlockCancelled{};
}

void SyncAllCores(bool aiv_only, const std::source_location& loc) {
  Launch* L = t_launch;
  if (L == nullptr) {
    Fail(StatusCode::kFailedPrecondition, loc, "SyncAll outside a kernel launch");
  }
  Core& core = CurrentCore();
  const int64_t need = aiv_only ? L->aiv_count : static_cast<int64_t>(L->tasks.size());
  if (aiv_only && core.id().type == CoreType::kAic) {
    KernelFail(StatusCode::kInvalidArgument, "SyncAll", loc,
               "SyncAll<isAIVOnly=true> called on an AIC; use SyncAll<false>() in mix kernels");
  }
  uint64_t gen;
  {
    std::lock_guard<std::mutex> lk(L->mu);
    gen = L->syncall_gen;
    if (++L->syncall_arrived == need) {
      L->syncall_arrived = 0;
      ++L->syncall_gen;
      L->Bump();
      return;
    }
  }
  const int line = static_cast<int>(loc.line());
  BlockUntil([L, gen](LaunchShared&) { return L->syncall_gen != gen; },
             [L, need, line](LaunchShared&) {
               return StrCat("SyncAll at line ", line, ": ", L->syncall_arrived, " of ", need,
                             " cores arrived");
             });
}

int64_t LaunchCoreCount(CoreType type) {
  Launch* L = t_launch;
  if (L == nullptr) return 0;
  int64_t n = 0;
  for (const auto& t : L->tasks) n += t.type == type ? 1 : 0;
  return n;
}

}  // namespace aicore::sim
