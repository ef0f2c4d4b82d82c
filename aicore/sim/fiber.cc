// Fibers on ucontext.
//
// Note [Fibers stay on their worker]
// Kernel code may keep addresses of thread-local data (the compiler caches TLS addresses across
// calls it cannot see into), so a fiber must always resume on the thread that started it. The
// scheduler keeps each started block on its worker; only not-yet-started blocks are shared.
//
// Note [Stack overflow]
// Kernel objects (TPipe, queues, tiling structs, local arrays) live on the fiber's stack, whose size
// AICORE_STACK_KB sets. A kernel that needs more runs into the PROT_NONE guard below the stack
// (page_pool.cc) and faults. A SIGSEGV/SIGBUS handler, running on a per-thread alternate signal
// stack (the faulting stack has no room left), asks the thread's current fiber whether the fault
// address lies in its guard or the interrupted stack pointer lies below its stack; if so it writes
// "kernel stack overflow in <kernel> block N (stack X KiB; raise AICORE_STACK_KB)" to stderr,
// flushes stdout when it can take its lock without waiting, and ends the process by SIGSEGV.
// Ending the launch instead is not safe: the overflowing frames cannot be unwound (their stack is
// exhausted and the fault may be mid-prologue), so their destructors would never run and any lock
// they hold would stay held, and a frame larger than the guard may already have written into a
// neighbouring mapping. Other faults go to the previous handler (ASan's, or the default action).
// Unguarded slab stacks (Note [Mapping budget]) are checked by their canary at every switch-out.
#include "aicore/sim/fiber.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "aicore/core/status.h"
#include "aicore/sim/page_pool.h"

#if defined(__SANITIZE_ADDRESS__)
#define AICORE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AICORE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define AICORE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AICORE_TSAN 1
#endif
#endif

#ifdef AICORE_ASAN
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     size_t* size_old);
void __asan_unpoison_memory_region(void const volatile* addr, size_t size);
}
#endif
#ifdef AICORE_TSAN
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

namespace aicore::sim {

namespace {
thread_local Fiber* t_current_fiber = nullptr;

struct sigaction g_prev_segv;
struct sigaction g_prev_bus;

void OnFault(int sig, siginfo_t* info, void* context) {
  if (Fiber* f = t_current_fiber) {
    const void* sp = nullptr;
#if defined(__x86_64__)
    sp = reinterpret_cast<const void*>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    sp = reinterpret_cast<const void*>(static_cast<ucontext_t*>(context)->uc_mcontext.sp);
#else
    (void)context;
#endif
    if (f->IsOverflow(info->si_addr, sp)) f->ReportOverflow();
  }
  // Not an overflow: the fault repeats when we return, under the previous disposition.
  sigaction(sig, sig == SIGSEGV ? &g_prev_segv : &g_prev_bus, nullptr);
}

void InstallFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa = {};
    sa.sa_sigaction = &OnFault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_prev_segv);
    sigaction(SIGBUS, &sa, &g_prev_bus);
  });
}

// A per-thread alternate signal stack (unless one is set already, e.g. by ASan), released when the
// thread exits.
class AltStack {
 public:
  AltStack() {
    stack_t current;
    if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
    bytes_ = std::max<size_t>(size_t{64} << 10, static_cast<size_t>(sysconf(_SC_SIGSTKSZ)));
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;  // no report on overflow then, just the SIGSEGV
    stack_t ss = {};
    ss.ss_sp = p;
    ss.ss_size = bytes_;
    if (sigaltstack(&ss, nullptr) != 0) {
      munmap(p, bytes_);
      return;
    }
    mem_ = p;
  }
  ~AltStack() {
    if (mem_ == nullptr) return;
    stack_t ss = {};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    munmap(mem_, bytes_);
  }

 private:
  void* mem_ = nullptr;
  size_t bytes_ = 0;
};

void EnsureAltStack() {
  thread_local AltStack alt;
  (void)alt;
}

}  // namespace

Fiber::Fiber(std::function<void()> fn, size_t stack_bytes, std::string_view label)
    : fn_(std::move(fn)) {
  InstallFaultHandler();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  stack_ = AcquireStack((std::max(stack_bytes, page) + page - 1) / page * page);
  const size_t n = std::min(label.size(), sizeof(label_) - 1);
  std::memcpy(label_, label.data(), n);
  label_[n] = '\0';
#ifdef AICORE_ASAN
  // A pooled stack may carry the shadow poison of its previous fiber's frames.
  __asan_unpoison_memory_region(stack_.base, stack_.bytes);
#endif
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack_.base;
  context_.uc_stack.ss_size = stack_.bytes;
  context_.uc_link = nullptr;
  auto self = reinterpret_cast<uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::Entry), 2,
              static_cast<unsigned>(self & 0xffffffffu), static_cast<unsigned>(self >> 32));
#ifdef AICORE_TSAN
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
#ifdef AICORE_TSAN
  if (tsan_fiber_) __tsan_destroy_fiber(tsan_fiber_);
#endif
  ReleaseStack(stack_);
}

bool Fiber::IsOverflow(const void* addr, const void* sp) const {
  const auto a = reinterpret_cast<uintptr_t>(addr);
  const auto s = reinterpret_cast<uintptr_t>(sp);
  const auto base = reinterpret_cast<uintptr_t>(stack_.base);
  constexpr uintptr_t kFar = uintptr_t{1} << 30;  // frames are not larger than this
  const bool in_guard = a < base && a >= base - stack_.guard_bytes;
  const bool sp_below = s != 0 && s < base && s + kFar >= base;
  return in_guard || sp_below;
}

void Fiber::ReportOverflow() const {
  char msg[384];
  const int n = std::snprintf(msg, sizeof(msg),
                              "[aicore error] kernel stack overflow in %s (stack %zu KiB; raise "
                              "AICORE_STACK_KB)\n",
                              label_, stack_.bytes >> 10);
  if (n > 0) {
    ssize_t ignored = write(STDERR_FILENO, msg, std::min<size_t>(static_cast<size_t>(n), sizeof(msg) - 1));
    (void)ignored;
  }
  if (ftrylockfile(stdout) == 0) {
    fflush_unlocked(stdout);
    funlockfile(stdout);
  }
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGSEGV, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGSEGV);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(SIGSEGV);
  _exit(128 + SIGSEGV);
}

void Fiber::CheckCanary() const {
  for (size_t i = 0; i < kCanaryBytes; ++i) {
    if (static_cast<uint8_t>(stack_.base[i]) != kCanaryByte) ReportOverflow();
  }
}

void Fiber::Entry(unsigned lo, unsigned hi) {
  auto* self = reinterpret_cast<Fiber*>(static_cast<uintptr_t>(lo) |
                                        (static_cast<uintptr_t>(hi) << 32));
#ifdef AICORE_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->caller_stack_bottom_, &self->caller_stack_size_);
#endif
  self->fn_();  // the scheduler's wrapper catches every exception
  self->finished_ = true;
  self->SwitchOut();
  std::abort();  // a finished fiber is never resumed
}

void Fiber::SwitchIn() {
  EnsureAltStack();
  Fiber* prev = t_current_fiber;
  t_current_fiber = this;
#ifdef AICORE_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
#ifdef AICORE_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_.base, stack_.bytes);
#endif
  swapcontext(&caller_, &context_);
#ifdef AICORE_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  t_current_fiber = prev;
}

void Fiber::SwitchOut() {
  if (!guarded()) CheckCanary();
#ifdef AICORE_TSAN
  __tsan_switch_to_fiber(tsan_caller_, 0);
#endif
#ifdef AICORE_ASAN
  __sanitizer_start_switch_fiber(finished_ ? nullptr : &asan_fake_stack_, caller_stack_bottom_,
                                 caller_stack_size_);
#endif
  swapcontext(&context_, &caller_);
#ifdef AICORE_ASAN
  __sanitizer_finish_switch_fiber(asan_fake_stack_, &caller_stack_bottom_, &caller_stack_size_);
#endif
}

void Fiber::Resume() { SwitchIn(); }

void Fiber::Suspend() {
  Fiber* f = t_current_fiber;
  if (f == nullptr) {
    Fail(StatusCode::kInternal, std::source_location::current(), "Fiber::Suspend outside a fiber");
  }
  f->SwitchOut();
}

Fiber* Fiber::Current() { return t_current_fiber; }

}  // namespace aicore::sim
