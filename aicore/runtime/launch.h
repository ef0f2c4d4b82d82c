// Kernel launch from host code: aicore::LaunchSync runs a kernel's blocks to completion and
// returns a Status; aicore::Launch and ACLRT_LAUNCH_KERNEL enqueue a launch on a stream (the
// <<<numBlocks, 0, stream>>> of AscendC); ICPU_RUN_KF (tikicpulib.h) builds on LaunchSync. The
// aicore-asc driver rewrites `kernel<<<...>>>(args)` into detail::AscLaunch(...)(args).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <source_location>
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
  std::string launch_type = {};        // non-empty: named in errors (sim::LaunchSpec::launch_type)
  sim::LaunchTiling tiling = {};       // what TILING_KEY_VAR / GET_TILING_DATA see in the kernel
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

// Binds `kernel` to converted copies of `args`; an empty function when `kernel` is nullptr (the
// launch then fails with InvalidArgument).
template <typename... Params, typename... Args>
std::function<void()> BindKernel(void (*kernel)(Params...), Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "the kernel launch passes a different number of arguments than the kernel takes");
  if (kernel == nullptr) return {};
  return [kernel, tup = std::tuple<std::decay_t<Params>...>(
                      ConvertArg<std::decay_t<Params>>(std::forward<Args>(args))...)]() {
    std::apply(kernel, tup);
  };
}

// Returns the name a kernel function is reported under: the name ACLRT_LAUNCH_KERNEL or
// RegisterKernelName gave it, else its symbol name when the dynamic linker knows it, else
// "kernel@<address>" ("nullptr" for a null pointer).
std::string KernelName(const void* kernel);

// Returns Ok, or InvalidArgument naming kernel `name` when `block_dim` is outside [1, 65535] or
// `body` is empty (a nullptr kernel function).
Status CheckLaunch(const std::string& name, uint32_t block_dim, const std::function<void()>& body);

// What the cores of one launch did, summed as each core's body returns.
struct LaunchCensus {
  std::atomic<uint64_t> cores{0};        // cores whose body returned
  std::atomic<uint64_t> aic{0}, aiv{0};  // of them, AICs and AIVs (split chips)
  std::atomic<uint64_t> work{0};         // sim::Core::work summed
  std::atomic<uint64_t> guard_false{0};  // cores where ASCEND_IS_AIC / ASCEND_IS_AIV was false
};

// Returns FailedPrecondition naming kernel `name`, the launch's kernel type and what to do when
// the launch ran on one core type only (AIV-only or AIC-only, split chips), every core found its
// core-type guard false and no core did any work: a cube kernel under `if ASCEND_IS_AIC`
// launched AIV only (or a vector one under `if ASCEND_IS_AIV` launched AIC only), which would
// otherwise do nothing and report success. Ok otherwise.
Status CheckGuardedAway(const std::string& name, const LaunchOptions& options,
                        const LaunchCensus& census);

// Counts a failed or rejected launch (LaunchFailureCount); `status` is its error.
void NoteLaunchFailure(const Status& status);

// Converts a launch result to the ACL error code ACLRT_LAUNCH_KERNEL returns (0 on success) and
// records a failure's message for aclGetRecentErrMsg.
uint32_t LaunchResultCode(const Status& status);

// Makes `message` the calling thread's aclGetRecentErrMsg text (the aclnn layer reports with it).
void SetRecentErrMsg(const std::string& message);

}  // namespace detail

namespace rt {
// Declared again in stream.h (defined in stream.cc), so launch.h users need not include it.
Status LaunchKernelAsync(const void* stream, const std::string& name, uint32_t block_dim,
                         const LaunchOptions& options, std::function<void()> body);
}  // namespace rt

// Returns the options of launches that give none (aicore::Launch without a LaunchConfig,
// ACLRT_LAUNCH_KERNEL) on the default chip: the kernel mode AscendC::SetKernelMode set, or AIV
// only when it was never called (ICPU_RUN_KF's default is MIX_MODE instead, as CANN's; see
// AscendC::detail::IcpuOptions), and ICPU_SET_TILING_KEY's key.
LaunchOptions DefaultLaunchOptions();

// Makes errors and profiles report `kernel` as `name` when it is launched without one; an empty
// `name` forgets the registration.
void RegisterKernelName(const void* kernel, const std::string& name);

// Returns how many launches failed or were rejected in this process (kernel errors, deadlocks,
// bad blockDim, null kernels, stale streams). `aicore check` counts them as defects.
size_t LaunchFailureCount();

// Runs `body` as kernel `name` on `block_dim` blocks and waits for it. Returns the first error a
// block raised (kernel, block, API, value, file:line), a Deadlock, or InvalidArgument for a bad
// blockDim or an empty body; never throws.
Status RunKernel(const std::string& name, uint32_t block_dim, const LaunchOptions& options,
                 std::function<void()> body);

// Runs `kernel(args...)` on `block_dim` blocks and waits: the synchronous <<<>>>.
template <typename... Params, typename... Args>
Status LaunchSync(const std::string& name, void (*kernel)(Params...), uint32_t block_dim,
                  const LaunchOptions& options, Args&&... args) {
  return RunKernel(name, block_dim, options,
                   detail::BindKernel(kernel, std::forward<Args>(args)...));
}

// Where and how an asynchronous launch runs.
struct LaunchConfig {
  uint32_t block_dim = 1;         // AscendC numBlocks, in [1, 65535]
  const void* stream = nullptr;   // an rt::Stream* or aclrtStream; nullptr: the default stream
  LaunchOptions options;          // kernel mode (AIV, AIC, MIX) and chip
  std::string name;               // empty: detail::KernelName(kernel)
};

// Enqueues `kernel(args...)` on `block_dim` blocks with DefaultLaunchOptions() on `stream` (an
// rt::Stream* or aclrtStream; nullptr: the current device's default stream) and returns without
// waiting: the asynchronous <<<>>>. Arguments are converted and copied now. blockDim outside
// [1, 65535] and a stale stream are rejected here; a kernel error is returned by the stream's
// next synchronize, naming the kernel.
template <typename... Params, typename... Args>
Status Launch(void (*kernel)(Params...), uint32_t block_dim, const void* stream, Args&&... args) {
  return rt::LaunchKernelAsync(stream, detail::KernelName(reinterpret_cast<const void*>(kernel)),
                               block_dim, DefaultLaunchOptions(),
                               detail::BindKernel(kernel, std::forward<Args>(args)...));
}

// Enqueues `kernel(args...)` as described by `config`.
template <typename... Params, typename... Args>
Status Launch(const LaunchConfig& config, void (*kernel)(Params...), Args&&... args) {
  return rt::LaunchKernelAsync(
      config.stream,
      config.name.empty() ? detail::KernelName(reinterpret_cast<const void*>(kernel))
                          : config.name,
      config.block_dim, config.options, detail::BindKernel(kernel, std::forward<Args>(args)...));
}

namespace detail {

// The callable ACLRT_LAUNCH_KERNEL(name) yields: (blockDim, stream, args...) -> ACL error code.
template <typename... Params>
class AclrtLauncher {
 public:
  AclrtLauncher(const char* name, void (*kernel)(Params...)) : name_(name), kernel_(kernel) {}

  template <typename... Args>
  uint32_t operator()(uint32_t block_dim, const void* stream, Args&&... args) const {
    RegisterKernelName(reinterpret_cast<const void*>(kernel_), name_);
    LaunchConfig config;
    config.block_dim = block_dim;
    config.stream = stream;
    config.name = name_;
    config.options = DefaultLaunchOptions();
    return LaunchResultCode(Launch(config, kernel_, std::forward<Args>(args)...));
  }

 private:
  const char* name_;
  void (*kernel_)(Params...);
};

template <typename... Params>
AclrtLauncher<Params...> MakeAclrtLauncher(const char* name, void (*kernel)(Params...)) {
  return AclrtLauncher<Params...>(name, kernel);
}

}  // namespace detail

// What the aicore-asc driver knows about a <<<>>> launch site: the kernel's identifier (reported in
// errors and profiles), the kernel type taken from its declaration's qualifiers and how it was
// chosen ("__vector__", "__mix__(1, 2)", "undecorated: inferred ..."), and the --npu-arch it was
// compiled for (2201, 2002, 3510).
struct AscKernelInfo {
  const char* name = "";
  KernelMode mode = KernelMode::kAiv;
  const char* type = "";
  int npu_arch = 2201;
};

namespace detail {

// Returns the chip a <<<>>> launch compiled for `npu_arch` runs on: AICORE_CHIP when set, else the
// preset of that architecture (2002: ascend310p), else arch::DefaultChip() (2201, 3510).
const arch::Chip* AscChip(int npu_arch);

// Reports a <<<>>> launch the runtime refused at once (bad numBlocks, a stale stream) on stderr
// and records it for aclGetRecentErrMsg; the launch expression itself has no value.
void ReportAscLaunchError(const AscKernelInfo& info, const Status& status,
                          const std::source_location& loc);

// The callable `kernel<<<numBlocks, ubuf, stream>>>` becomes: calling it with the kernel's
// arguments enqueues the launch on the stream and returns at once, as on the NPU.
template <typename... Params>
class AscLauncher {
 public:
  AscLauncher(void (*kernel)(Params...), const AscKernelInfo& info, int64_t num_blocks,
              const void* stream, std::source_location loc)
      : kernel_(kernel), info_(info), num_blocks_(num_blocks), stream_(stream), loc_(loc) {}

  template <typename... Args>
  void operator()(Args&&... args) const {
    static_assert(sizeof...(Params) == sizeof...(Args),
                  "the <<<>>> launch passes a different number of arguments than the kernel takes");
    if (num_blocks_ < 1 || num_blocks_ > 65535) {
      ReportAscLaunchError(info_,
                           Status(StatusCode::kInvalidArgument,
                                  StrCat("launch of ", info_.name, ": numBlocks ", num_blocks_,
                                         " is outside [1, 65535]")),
                           loc_);
      return;
    }
    RegisterKernelName(reinterpret_cast<const void*>(kernel_), info_.name);
    LaunchConfig config;
    config.block_dim = static_cast<uint32_t>(num_blocks_);
    config.stream = stream_;
    config.name = info_.name;
    config.options.mode = info_.mode;
    config.options.chip = AscChip(info_.npu_arch);
    config.options.launch_type = info_.type;
    const Status st = Launch(config, kernel_, std::forward<Args>(args)...);
    if (!st.ok()) ReportAscLaunchError(info_, st, loc_);
  }

 private:
  void (*kernel_)(Params...);
  AscKernelInfo info_;
  int64_t num_blocks_;
  const void* stream_;
  std::source_location loc_;
};

// Converts the second <<<>>> argument: a dynamic-UB size in bytes (accepted; the CPU's UB is the
// chip's whole UB) or the legacy l2ctrl pointer (reserved, nullptr).
template <typename T>
void CheckAscSecondArg(const T&) {
  static_assert(std::is_integral_v<T> || std::is_enum_v<T> || std::is_pointer_v<T> ||
                    std::is_null_pointer_v<T>,
                "the second <<<>>> argument is the dynamic UB size (bytes) or l2ctrl (nullptr)");
}

// Builds the launcher for `kernel<<<num_blocks, ubuf_or_l2ctrl, stream>>>`; missing trailing
// arguments take their documented defaults (0, nullptr).
template <typename... Params, typename Second = int>
AscLauncher<Params...> AscLaunch(void (*kernel)(Params...), const AscKernelInfo& info,
                                 int64_t num_blocks, const Second& second = 0,
                                 const void* stream = nullptr,
                                 std::source_location loc = std::source_location::current()) {
  CheckAscSecondArg(second);
  return AscLauncher<Params...>(kernel, info, num_blocks, stream, loc);
}

}  // namespace detail

}  // namespace aicore

// ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, x, y, z) enqueues kernel add_custom on
// `stream` and returns 0 (ACL_SUCCESS) or an ACL error code, as the AscendC-generated
// aclrtlaunch_<name> functions do.
#define ACLRT_LAUNCH_KERNEL(kernel_name) \
  ::aicore::detail::MakeAclrtLauncher(#kernel_name, kernel_name)

#ifdef AICORE_SOC_CHIP
namespace aicore::detail {
// A program built for one SoC (tikicpulib::<SoC> defines AICORE_SOC_CHIP, see cmake/tikicpulib)
// runs on that SoC's chip preset unless AICORE_CHIP names another.
inline const bool kBuildChipSet = (arch::SetBuildDefaultChip(AICORE_SOC_CHIP), true);
}  // namespace aicore::detail
#endif
