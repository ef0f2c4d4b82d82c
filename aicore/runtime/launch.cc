// Synchronous kernel launch and the names asynchronous launches report kernels under.
#include "aicore/runtime/launch.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace aicore {

namespace {

std::mutex g_names_mu;
std::atomic<size_t> g_launch_failures{0};
std::unordered_map<const void*, std::string>& Names() {
  static auto* names = new std::unordered_map<const void*, std::string>();
  return *names;
}

}  // namespace

Status RunKernel(const std::string& name, uint32_t block_dim, const LaunchOptions& options,
                 std::function<void()> body) {
  Status status = detail::CheckLaunch(name, block_dim, body);
  if (status.ok()) {
    sim::LaunchSpec spec;
    spec.kernel_name = name;
    spec.block_dim = block_dim;
    spec.mode = options.mode;
    spec.chip = options.chip;
    spec.launch_type = options.launch_type;
    // What the cores did, summed when each core's body returns (see CheckGuardedAway).
    auto census = std::make_shared<detail::LaunchCensus>();
    spec.body = [tiling = options.tiling, census, body = std::move(body)] {
      if (tiling.key != 0 || tiling.data != nullptr) {
        // Every core of this launch, and only this launch, sees the launch's tiling.
        sim::CurrentCore().tiling = tiling;
      }
      body();
      const sim::Core& core = sim::CurrentCore();
      census->cores.fetch_add(1, std::memory_order_relaxed);
      census->work.fetch_add(core.work, std::memory_order_relaxed);
      if (core.guard_false) census->guard_false.fetch_add(1, std::memory_order_relaxed);
      if (core.id().type == sim::CoreType::kAic) census->aic.fetch_add(1);
      if (core.id().type == sim::CoreType::kAiv) census->aiv.fetch_add(1);
    };
    try {
      status = sim::RunKernel(spec);
    } catch (const Error& e) {  // the contract: a launch ends with a Status, never a throw
      status = e.status();
    } catch (const std::exception& e) {
      status = Status(StatusCode::kInternal,
                      StrCat("launch of kernel ", name, ": exception: ", e.what()));
    }
    if (status.ok()) status = detail::CheckGuardedAway(name, options, *census);
  }
  if (!status.ok()) detail::NoteLaunchFailure(status);
  return status;
}

size_t LaunchFailureCount() { return g_launch_failures.load(); }

void RegisterKernelName(const void* kernel, const std::string& name) {
  std::lock_guard<std::mutex> lk(g_names_mu);
  if (name.empty()) {
    Names().erase(kernel);
  } else {
    Names()[kernel] = name;
  }
}

namespace detail {

Status CheckGuardedAway(const std::string& name, const LaunchOptions& options,
                        const LaunchCensus& census) {
  const uint64_t cores = census.cores.load();
  if (cores == 0 || census.work.load() != 0 || census.guard_false.load() != cores) {
    return Status::Ok();
  }
  const bool aiv_only = census.aic.load() == 0 && census.aiv.load() == cores;
  const bool aic_only = census.aiv.load() == 0 && census.aic.load() == cores;
  if (!aiv_only && !aic_only) return Status::Ok();
  const std::string from = options.launch_type.empty() ? "" : StrCat(", from ", options.launch_type);
  if (aiv_only) {
    return Status(StatusCode::kFailedPrecondition,
                  StrCat("kernel ", name, ": the launch ran on AIV cores only", from, ", where ",
                         "ASCEND_IS_AIC is false, and no core did any work: the kernel's code ",
                         "under `if ASCEND_IS_AIC` (cube work) never ran. Launch it with AIC ",
                         "cores: declare it __cube__ or __mix__(1, 2), or call ",
                         "AscendC::SetKernelMode(KernelMode::AIC_MODE or MIX_MODE) before ",
                         "ICPU_RUN_KF (LaunchOptions::mode for aicore::Launch)"));
  }
  return Status(StatusCode::kFailedPrecondition,
                StrCat("kernel ", name, ": the launch ran on AIC cores only", from, ", where ",
                       "ASCEND_IS_AIV is false, and no core did any work: the kernel's code ",
                       "under `if ASCEND_IS_AIV` (vector work) never ran. Launch it with AIV ",
                       "cores: declare it __vector__ or __mix__(1, 2), or call ",
                       "AscendC::SetKernelMode(KernelMode::AIV_MODE or MIX_MODE) before ",
                       "ICPU_RUN_KF (LaunchOptions::mode for aicore::Launch)"));
}

Status CheckLaunch(const std::string& name, uint32_t block_dim, const std::function<void()>& body) {
  if (!body) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("launch of kernel ", name,
                         ": the kernel function is nullptr; pass a __global__ kernel function"));
  }
  if (block_dim < 1 || block_dim > 65535) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("launch of kernel ", name, ": blockDim ", block_dim,
                         " is outside [1, 65535] (AscendC numBlocks)"));
  }
  return Status::Ok();
}

void NoteLaunchFailure(const Status& /*status*/) { ++g_launch_failures; }

std::string KernelName(const void* kernel) {
  if (kernel == nullptr) return "nullptr";
  {
    std::lock_guard<std::mutex> lk(g_names_mu);
    auto it = Names().find(kernel);
    if (it != Names().end()) return it->second;
  }
  Dl_info info{};
  if (dladdr(kernel, &info) != 0 && info.dli_sname != nullptr && info.dli_saddr == kernel) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::string name = (status == 0 && demangled != nullptr) ? demangled : info.dli_sname;
    std::free(demangled);
    // A demangled C++ name carries its parameter list; the kernel name is what precedes it.
    if (const size_t paren = name.find('('); paren != std::string::npos) name.resize(paren);
    return name;
  }
  return StrCat("kernel@", kernel);
}

const arch::Chip* AscChip(int npu_arch) {
  if (std::getenv("AICORE_CHIP") != nullptr || npu_arch != 2002) return nullptr;
  // dav-2002 is the coupled Atlas inference series; its one preset is ascend310p.
  static const arch::Chip* chip = new arch::Chip(arch::LoadChip("ascend310p"));
  return chip;
}

void ReportAscLaunchError(const AscKernelInfo& info, const Status& status,
                          const std::source_location& loc) {
  std::fprintf(stderr, "aicore: %s:%u: %s<<<>>> launch refused: %s\n", loc.file_name(),
               static_cast<unsigned>(loc.line()), info.name, status.message().c_str());
  LaunchResultCode(status);
}

}  // namespace detail
}  // namespace aicore
