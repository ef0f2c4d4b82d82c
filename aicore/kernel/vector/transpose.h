// Transpose, the plain form: one 16 x 16 matrix of 16-bit elements (512 bytes), dst = src^T.
// The enhanced form (TransposeParamsExt, NCHW <-> NHWC) is not implemented yet.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Transposes the 16 x 16 row-major matrix at src into dst (int16_t, uint16_t or half; both hold
// at least 256 elements). dst and src may be the same tensor.
template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(
      std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, half>,
      "Transpose (16 x 16) takes int16_t, uint16_t or half");
  constexpr const char* kApi = "Transpose";
  detail::CheckVecOperand(dst, kApi, "dst", loc);
  detail::CheckVecOperand(src, kApi, "src", loc);
  if (dst.GetSize() < 256 || src.GetSize() < 256) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, kApi, loc, "dst holds ", dst.GetSize(),
                 " and src ", src.GetSize(), " elements; a 16 x 16 transpose needs 256 each");
  }
  uint16_t m[256];
  std::memcpy(m, src.data(), sizeof(m));
  uint16_t t[256];
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) t[c * 16 + r] = m[r * 16 + c];
  }
  std::memcpy(dst.data(), t, sizeof(t));
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(), 512, src.data(),
                                      512, nullptr, 0, 256, 1, loc));
}

}  // namespace AscendC
