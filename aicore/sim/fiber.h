// Stackful fibers (ucontext) with guard pages and sanitizer annotations. A fiber runs until its
// function returns or it calls Fiber::Suspend(); Resume() continues it. A fiber never migrates:
// the thread that first resumes it resumes it every time (see Note [Fibers stay on their worker]).
// A fiber that runs off its stack is reported by name (See Note [Stack overflow] in fiber.cc).
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <functional>
#include <string_view>

#include "aicore/sim/page_pool.h"

namespace aicore::sim {

class Fiber {
 public:
  // Creates a fiber that will run `fn` on a fresh stack of `stack_bytes` (rounded up to pages).
  // `label` names the fiber in a stack overflow report ("<kernel> block 3"; truncated to 127
  // bytes). Throws aicore::Error (ResourceExhausted) when the stack cannot be mapped.
  Fiber(std::function<void()> fn, size_t stack_bytes, std::string_view label = "fiber");
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Switches from the calling thread's context into the fiber until it suspends or finishes.
  void Resume();
  // Switches from inside the running fiber back to whoever resumed it.
  static void Suspend();
  // Returns the fiber running on this thread, or nullptr.
  static Fiber* Current();
  bool finished() const { return finished_; }
  size_t stack_bytes() const { return stack_.bytes; }
  bool guarded() const { return stack_.guard_bytes != 0; }

  // Reports "kernel stack overflow in <label> (stack X KiB; raise AICORE_STACK_KB)" on stderr and
  // ends the process (killed by SIGSEGV). Async-signal-safe.
  [[noreturn]] void ReportOverflow() const;
  // Returns true when a fault at `addr` with stack pointer `sp` is this fiber running off its
  // stack: `addr` in the guard region, or `sp` below the stack's base.
  bool IsOverflow(const void* addr, const void* sp) const;

 private:
  static void Entry(unsigned lo, unsigned hi);
  void SwitchIn();
  void SwitchOut();
  void CheckCanary() const;

  std::function<void()> fn_;
  ucontext_t context_;
  ucontext_t caller_;
  StackMapping stack_;
  char label_[128] = {};
  bool finished_ = false;
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
  void* asan_fake_stack_ = nullptr;
  const void* caller_stack_bottom_ = nullptr;
  size_t caller_stack_size_ = 0;
};

}  // namespace aicore::sim
