// Kernel launch from host code: aicore::LaunchSync runs a kernel's blocks to completion and
// returns a Status; the ICPU_RUN_KF macro (tikicpulib.h) and streams build on it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"
#include "aicore/sim/scheduler.h"

namespace aicore {

using sim::KernelMode;

struct LaunchOptions {
  KernelMode mode = KernelMode::kAiv;  // vector kernels; kMix for AIC + 2 AIV groups
  const arch::Chip* chip = nullptr;    // nullptr: arch::DefaultChip() (AICORE_CHIP)
};

namespace detail {

// Converts a host argument to the kernel parameter type: pointers convert freely (GmAlloc returns
// void*, kernels take GM_ADDR), everything else as by a function call.
template <typename Param, typename Arg>
Param ConvertArg(Arg&& arg) {
  using A = std::decay_t<Arg>;
  if constexpr (std::is_pointer_v<Param> && (std::is_pointer_v<A> || std::is_null_pointer_v<A>)) {
    return reinterpret_cast<Param>(const_cast<void*>(static_cast<const void*>(arg)));
  } else {
    return static_cast<Param>(std::forward<Arg>(arg));
  }
}

template <typename... Params, typename... Args>
std::function<void()> BindKernel(void (*kernel)(Params...), Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "the kernel launch passes a different number of arguments than the kernel takes");
  return [kernel, tup = std::tuple<std::decay_t<Params>...>(
                      ConvertArg<std::decay_t<Params>>(std::forward<Args>(args))...)]() {
    std::apply(kernel, tup);
  };
}

}  // namespace detail

// Runs `body` as kernel `name` on `block_dim` blocks and waits for it.
Status RunKernel(const std::string& name, uint32_t block_dim, const LaunchOptions& options,
                 std::function<void()> body);

// Runs `kernel(args...)` on `block_dim` blocks and waits: the synchronous <<<>>>.
template <typename... Params, typename... Args>
Status LaunchSync(const std::string& name, void (*kernel)(Params...), uint32_t block_dim,
                  const LaunchOptions& options, Args&&... args) {
  return RunKernel(name, block_dim, options,
                   detail::BindKernel(kernel, std::forward<Args>(args)...));
}

}  // namespace aicore
