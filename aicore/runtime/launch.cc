// Synchronous kernel launch.
#include "aicore/runtime/launch.h"

namespace aicore {

Status RunKernel(const std::string& name, uint32_t block_dim, const LaunchOptions& options,
                 std::function<void()> body) {
  sim::LaunchSpec spec;
  spec.kernel_name = name;
  spec.block_dim = block_dim;
  spec.mode = options.mode;
  spec.chip = options.chip;
  spec.body = std::move(body);
  return sim::RunKernel(spec);
}

}  // namespace aicore
