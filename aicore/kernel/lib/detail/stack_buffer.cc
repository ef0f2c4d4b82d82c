// PopStackBuffer: the UB a high-level API uses as scratch when the caller passes no
// sharedTmpBuffer - everything past the live TPipe's allocations, as on the device.
#include "aicore/kernel/lib/detail/row_ops.h"

namespace AscendC::lib {

LocalTensor<uint8_t> PopStackBuffer(const char* api, detail::SrcLoc loc) {
  auto& core = detail::Core();
  TPipe* pipe = GetTPipePtr();
  if (pipe == nullptr || !core.HasBuffer(aicore::arch::Buffer::kUb)) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                 "the overload without sharedTmpBuffer takes its scratch from the UB after the "
                 "live TPipe's buffers, but no TPipe is live on this core; pass sharedTmpBuffer");
  }
  const uint64_t used = AlignUp(static_cast<uint32_t>(pipe->Used(aicore::arch::Buffer::kUb)), 32);
  const uint64_t size = core.LocalSize(aicore::arch::Buffer::kUb);
  const uint64_t left = used < size ? size - used : 0;
  return LocalTensor<uint8_t>(core.LocalBase(aicore::arch::Buffer::kUb) + used,
                              static_cast<uint32_t>(left), TPosition::VECCALC);
}

}  // namespace AscendC::lib
