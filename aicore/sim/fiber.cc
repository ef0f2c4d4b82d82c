// Fibers on ucontext.
//
// Note [Fibers stay on their worker]
// Kernel code may keep addresses of thread-local data (the compiler caches TLS addresses across
// calls it cannot see into), so a fiber must always resume on the thread that started it. The
// scheduler keeps each started block on its worker; only not-yet-started blocks are shared.
#include "aicore/sim/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

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
}

Fiber::Fiber(std::function<void()> fn, size_t stack_bytes) : fn_(std::move(fn)) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  map_bytes_ = stack_bytes_ + page;
  // The guard page stays PROT_NONE while the mapping sits in the pool: a stack overflow faults
  // instead of corrupting memory.
  stack_ = AcquireMapping(map_bytes_, 1);
  mprotect(stack_, page, PROT_NONE);
  stack_base_ = static_cast<char*>(stack_) + page;
#ifdef AICORE_ASAN
  // A pooled stack may carry the shadow poison of its previous fiber's frames.
  __asan_unpoison_memory_region(stack_base_, stack_bytes_);
#endif
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack_base_;
  context_.uc_stack.ss_size = stack_bytes_;
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
  ReleaseMapping(stack_, map_bytes_, 1);
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
  Fiber* prev = t_current_fiber;
  t_current_fiber = this;
#ifdef AICORE_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
#ifdef AICORE_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_base_, stack_bytes_);
#endif
  swapcontext(&caller_, &context_);
#ifdef AICORE_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  t_current_fiber = prev;
}

void Fiber::SwitchOut() {
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
