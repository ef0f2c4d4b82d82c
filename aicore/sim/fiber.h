// Stackful fibers (ucontext) with guard pages and sanitizer annotations. A fiber runs until its
// function returns or it calls Fiber::Suspend(); Resume() continues it. A fiber never migrates:
// the thread that first resumes it resumes it every time (see Note [Fibers stay on their worker]).
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <functional>

namespace aicore::sim {

class Fiber {
 public:
  // Creates a fiber that will run `fn` on a fresh stack of `stack_bytes` (rounded to pages).
  Fiber(std::function<void()> fn, size_t stack_bytes);
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

 private:
  static void Entry(unsigned lo, unsigned hi);
  void SwitchIn();
  void SwitchOut();

  std::function<void()> fn_;
  ucontext_t context_;
  ucontext_t caller_;
  void* stack_ = nullptr;   // mapping including the guard page
  size_t map_bytes_ = 0;
  void* stack_base_ = nullptr;
  size_t stack_bytes_ = 0;
  bool finished_ = false;
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
  void* asan_fake_stack_ = nullptr;
  const void* caller_stack_bottom_ = nullptr;
  size_t caller_stack_size_ = 0;
};

}  // namespace aicore::sim
