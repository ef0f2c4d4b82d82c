// Names and sizes of element types, and bulk half/bfloat16 conversions with run-time ISA choice.
#include "aicore/core/dtype.h"

#include "aicore/core/cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace aicore {

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF16: return "half";
    case DType::kBF16: return "bfloat16_t";
    case DType::kF32: return "float";
    case DType::kI8: return "int8_t";
    case DType::kU8: return "uint8_t";
    case DType::kI16: return "int16_t";
    case DType::kU16: return "uint16_t";
    case DType::kI32: return "int32_t";
    case DType::kU32: return "uint32_t";
    case DType::kI64: return "int64_t";
    case DType::kU64: return "uint64_t";
    case DType::kUnknown: break;
  }
  return "unknown";
}

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kI8: case DType::kU8: return 1;
    case DType::kF16: case DType::kBF16: case DType::kI16: case DType::kU16: return 2;
    case DType::kF32: case DType::kI32: case DType::kU32: return 4;
    case DType::kI64: case DType::kU64: return 8;
    case DType::kUnknown: break;
  }
  return 0;
}

namespace {

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void FloatToHalfAvx512(half* dst, const float* src, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = half(src[i]);
}
__attribute__((target("avx512f"))) void HalfToFloatAvx512(float* dst, const half* src, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = float(src[i]);
}
__attribute__((target("avx,f16c"))) void FloatToHalfF16c(half* dst, const float* src, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = half(src[i]);
}
__attribute__((target("avx,f16c"))) void HalfToFloatF16c(float* dst, const half* src, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = float(src[i]);
}
#endif

void FloatToHalfPortable(half* dst, const float* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = half(src[i]);
}
void HalfToFloatPortable(float* dst, const half* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float(src[i]);
}

using FloatToHalfFn = void (*)(half*, const float*, size_t);
using HalfToFloatFn = void (*)(float*, const half*, size_t);

FloatToHalfFn PickFloatToHalf() {
#if defined(__x86_64__)
  if (ActiveIsa() >= Isa::kAvx512) return FloatToHalfAvx512;
  if (ActiveIsa() >= Isa::kAvx2) return FloatToHalfF16c;
#endif
  return FloatToHalfPortable;
}
HalfToFloatFn PickHalfToFloat() {
#if defined(__x86_64__)
  if (ActiveIsa() >= Isa::kAvx512) return HalfToFloatAvx512;
  if (ActiveIsa() >= Isa::kAvx2) return HalfToFloatF16c;
#endif
  return HalfToFloatPortable;
}

}  // namespace

void ConvertFloatToHalf(half* dst, const float* src, size_t n) {
  static const FloatToHalfFn fn = PickFloatToHalf();
  fn(dst, src, n);
}

void ConvertHalfToFloat(float* dst, const half* src, size_t n) {
  static const HalfToFloatFn fn = PickHalfToFloat();
  fn(dst, src, n);
}

void ConvertFloatToBfloat16(bfloat16* dst, const float* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bfloat16(src[i]);  // vectorizes: pure integer math
}

void ConvertBfloat16ToFloat(float* dst, const bfloat16* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float(src[i]);
}

}  // namespace aicore
