// Run-time choice of the per-ISA engine, and op metadata.
#include "aicore/kernel/vector/engine.h"

#include <initializer_list>

#include "aicore/core/cpu.h"

namespace aicore::kernel::engine {

#define AICORE_DECLARE_ISA(ns)                                                              \
  namespace ns {                                                                            \
  void Elementwise(VecOp op, DType dt, void* dst, const void* src0, const void* src1,       \
                   Scalar s, size_t n);                                                     \
  void ElementwiseRows(VecOp op, DType dt, void* dst, const void* src0, const void* src1,   \
                       Scalar s, size_t n, size_t rows, const uint64_t pitch[3],            \
                       unsigned block_sources);                                             \
  void Cast(DType dst_dt, DType src_dt, Round r, void* dst, const void* src, size_t n);     \
  float ReduceSumF32(const float* src, size_t n);                                           \
  float ReduceExtremeF32(bool max, const float* src, size_t n);                             \
  void BlockReduceF32(BlockReduceOp op, float* dst, size_t dst_pitch, const float* src,     \
                      size_t src_pitch, size_t repeats);                                    \
  }
AICORE_DECLARE_ISA(isa_portable)
#if defined(__x86_64__)
AICORE_DECLARE_ISA(isa_avx2)
AICORE_DECLARE_ISA(isa_avx512)
#endif
#undef AICORE_DECLARE_ISA

namespace {

using ElementwiseFn = void (*)(VecOp, DType, void*, const void*, const void*, Scalar, size_t);
using RowsFn = void (*)(VecOp, DType, void*, const void*, const void*, Scalar, size_t, size_t,
                       const uint64_t*, unsigned);
using CastFn = void (*)(DType, DType, Round, void*, const void*, size_t);
using SumFn = float (*)(const float*, size_t);
using ExtremeFn = float (*)(bool, const float*, size_t);
using BlockReduceFn = void (*)(BlockReduceOp, float*, size_t, const float*, size_t, size_t);

struct Table {
  ElementwiseFn elementwise;
  RowsFn rows;
  CastFn cast;
  SumFn sum;
  ExtremeFn extreme;
  BlockReduceFn block_reduce;
  const char* name;
};

Table PickTable() {
#define AICORE_TABLE(ns, name)                                                            \
  Table {                                                                                 \
    ns::Elementwise, ns::ElementwiseRows, ns::Cast, ns::ReduceSumF32, ns::ReduceExtremeF32, \
        ns::BlockReduceF32, name                                                          \
  }
#if defined(__x86_64__)
  switch (ActiveIsa()) {
    case Isa::kAvx512: return AICORE_TABLE(isa_avx512, "avx512");
    case Isa::kAvx2: return AICORE_TABLE(isa_avx2, "avx2");
    case Isa::kPortable: break;
  }
#endif
  return AICORE_TABLE(isa_portable, "portable");
#undef AICORE_TABLE
}

const Table& Active() {
  static const Table table = PickTable();
  return table;
}

}  // namespace

void Elementwise(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s,
                 size_t n) {
  if (n == 0) return;
  Active().elementwise(op, dt, dst, src0, src1, s, n);
}

void ElementwiseRows(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s,
                     size_t n, size_t rows, const uint64_t pitch[3], unsigned block_sources) {
  if (n == 0 || rows == 0) return;
  Active().rows(op, dt, dst, src0, src1, s, n, rows, pitch, block_sources);
}

void Cast(DType dst_dt, DType src_dt, Round r, void* dst, const void* src, size_t n) {
  if (n == 0) return;
  Active().cast(dst_dt, src_dt, r, dst, src, n);
}

float ReduceSumF32(const float* src, size_t n) { return Active().sum(src, n); }

float ReduceExtremeF32(bool max, const float* src, size_t n) {
  return Active().extreme(max, src, n);
}

void BlockReduceF32(BlockReduceOp op, float* dst, size_t dst_pitch, const float* src,
                    size_t src_pitch, size_t repeats) {
  Active().block_reduce(op, dst, dst_pitch, src, src_pitch, repeats);
}

const char* EngineIsa() { return Active().name; }

const char* RoundName(Round r) {
  static const char* const kNames[] = {"CAST_NONE", "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  const auto i = static_cast<size_t>(r);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "CAST_<invalid>";
}

bool CastSupports(DType dst, DType src, Round r) {
  if (static_cast<int>(r) > static_cast<int>(Round::kOdd)) return false;
  using D = DType;
  auto is = [&](D d, std::initializer_list<D> srcs) {
    if (dst != d) return false;
    for (D s : srcs) {
      if (s == src) return true;
    }
    return false;
  };
  const bool pair = is(D::kF32, {D::kF16, D::kBF16, D::kI32, D::kI16, D::kF32}) ||
                    is(D::kF16, {D::kF32, D::kI32, D::kI16, D::kI8, D::kU8}) ||
                    is(D::kBF16, {D::kF32}) ||
                    is(D::kI32, {D::kF32, D::kF16, D::kBF16, D::kI16}) ||
                    is(D::kI16, {D::kF32, D::kF16, D::kI32}) || is(D::kI8, {D::kF16}) ||
                    is(D::kU8, {D::kF16});
  if (!pair) return false;
  // Round to odd is a floating-point narrowing mode.
  if (r == Round::kOdd) return src == D::kF32 && (dst == D::kF16 || dst == D::kBF16);
  return true;
}

const char* VecOpName(VecOp op) {
  static const char* const kNames[] = {
      "Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "AddRelu", "SubRelu",
      "Adds", "Muls", "Maxs", "Mins", "Subs", "Divs", "LeakyRelu", "ShiftLeft", "ShiftRight",
      "Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Not", "Neg", "Copy",
      "Duplicate", "Axpy"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(VecOp::kCount));
  return kNames[static_cast<int>(op)];
}

}  // namespace aicore::kernel::engine
