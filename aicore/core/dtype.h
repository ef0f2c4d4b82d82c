// Scalar element types of the AI Core that C++ lacks: IEEE binary16 (`half`) and bfloat16, with
// round-to-nearest-even conversion from float, plus bulk conversions that use F16C/AVX-512 when the
// host has them.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace aicore {

// Returns the binary16 bits nearest to `f`, ties to even. NaN stays NaN (quiet), overflow gives inf.
constexpr uint16_t FloatToHalfBits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x0200u | ((abs >> 13) & 0x3ffu) : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // below 2^-14: subnormal half (or zero)
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of the smallest subnormal
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exp;  // value = mant * 2^(exp - 150) = (mant >> shift) * 2^-24
    const uint32_t kept = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    uint32_t r = kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even.
  uint32_t r = abs - 0x38000000u;
  r += 0x0fffu + ((r >> 13) & 1u);
  return static_cast<uint16_t>(sign | (r >> 13));
}

// Returns the float value of binary16 bits `h` (exact).
constexpr float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return std::bit_cast<float>(sign);
    // Subnormal: value = mant * 2^-24.
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

// Returns the bfloat16 bits nearest to `f`, ties to even; NaN stays a quiet NaN.
constexpr uint16_t FloatToBfloat16Bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// Returns the float value of bfloat16 bits `b` (exact).
constexpr float Bfloat16BitsToFloat(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// Note [Scalar type arithmetic]
// half and bfloat16 convert implicitly to and from float and define no binary operators, so an
// expression like `h * 2.0f` is computed in float without ambiguity and narrows only where the
// result is stored into a half. This matches how kernels write scalars (`(half)1.0`,
// `static_cast<float>(x.GetValue(i))`) and gives correctly rounded +, -, *, / and sqrt, because
// float carries more than twice binary16's precision plus two bits.

// IEEE 754 binary16, the AI Core's `half`.
struct half {
  uint16_t bits;

  half() = default;
  constexpr half(float f) : bits(FloatToHalfBits(f)) {}  // NOLINT: implicit like a builtin float
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  constexpr half(T v) : half(static_cast<float>(v)) {}  // NOLINT
  constexpr operator float() const { return HalfBitsToFloat(bits); }  // NOLINT

  static constexpr half FromBits(uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
  half& operator+=(float v) { return *this = half(float(*this) + v); }
  half& operator-=(float v) { return *this = half(float(*this) - v); }
  half& operator*=(float v) { return *this = half(float(*this) * v); }
  half& operator/=(float v) { return *this = half(float(*this) / v); }
};

// bfloat16: float's exponent with a 7-bit mantissa. See Note [Scalar type arithmetic].
struct bfloat16 {
  uint16_t bits;

  bfloat16() = default;
  constexpr bfloat16(float f) : bits(FloatToBfloat16Bits(f)) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  constexpr bfloat16(T v) : bfloat16(static_cast<float>(v)) {}  // NOLINT
  constexpr operator float() const { return Bfloat16BitsToFloat(bits); }  // NOLINT

  static constexpr bfloat16 FromBits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  bfloat16& operator+=(float v) { return *this = bfloat16(float(*this) + v); }
  bfloat16& operator-=(float v) { return *this = bfloat16(float(*this) - v); }
  bfloat16& operator*=(float v) { return *this = bfloat16(float(*this) * v); }
  bfloat16& operator/=(float v) { return *this = bfloat16(float(*this) / v); }
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable_v<half>);
static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16>);

// Element types the simulator knows, for records, errors and dispatch.
enum class DType : uint8_t {
  kUnknown, kF16, kBF16, kF32, kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64,
};

// Returns the name AscendC uses for `t` ("half", "float", "int32_t", ...).
const char* DTypeName(DType t);
// Returns the size of one element of `t` in bytes (0 for kUnknown).
size_t DTypeSize(DType t);

template <typename T> constexpr DType DTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, half>) return DType::kF16;
  else if constexpr (std::is_same_v<U, bfloat16>) return DType::kBF16;
  else if constexpr (std::is_same_v<U, float>) return DType::kF32;
  else if constexpr (std::is_same_v<U, int8_t>) return DType::kI8;
  else if constexpr (std::is_same_v<U, uint8_t>) return DType::kU8;
  else if constexpr (std::is_same_v<U, int16_t>) return DType::kI16;
  else if constexpr (std::is_same_v<U, uint16_t>) return DType::kU16;
  else if constexpr (std::is_same_v<U, int32_t>) return DType::kI32;
  else if constexpr (std::is_same_v<U, uint32_t>) return DType::kU32;
  else if constexpr (std::is_same_v<U, int64_t>) return DType::kI64;
  else if constexpr (std::is_same_v<U, uint64_t>) return DType::kU64;
  else return DType::kUnknown;
}

// Converts `n` floats to half (round to nearest even). Uses F16C or AVX-512 when the CPU has them.
void ConvertFloatToHalf(half* dst, const float* src, size_t n);
// Converts `n` halves to float (exact).
void ConvertHalfToFloat(float* dst, const half* src, size_t n);
// Converts `n` floats to bfloat16 (round to nearest even).
void ConvertFloatToBfloat16(bfloat16* dst, const float* src, size_t n);
// Converts `n` bfloat16 values to float (exact).
void ConvertBfloat16ToFloat(float* dst, const bfloat16* src, size_t n);

}  // namespace aicore
