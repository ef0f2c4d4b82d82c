// How the matmul operators hand operands to AscendC's Matmul object: the layout of an operand's
// 2-D slices (row- or column-major with a 16-bit pitch), spans and per-batch offsets of views,
// and the memoised Matmul tiling. Shared by the matmul family (matmul.cc) and the matmul with a
// fused epilogue (matmul_epilogue.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/ops/framework/operator.h"

namespace aicore::ops::matmul_detail {

inline constexpr int64_t kMaxPitch = 65535;  // the Matmul's Nd2Nz row pitch is 16-bit

// How the Matmul reads one operand's 2-D slices: row-major with row pitch `pitch` (trans false)
// or column-major with column pitch `pitch` (trans true), in elements.
struct SliceLayout {
  bool trans = false;
  int64_t pitch = 0;
};

// Returns the layout of (rows, cols) slices with strides (sr, sc), or nullopt when neither axis
// has unit stride with a pitch the Matmul takes.
std::optional<SliceLayout> LayoutOf(int64_t rows, int64_t cols, int64_t sr, int64_t sc);
// The layout of the last two dims of `t` (rank >= 2).
std::optional<SliceLayout> LayoutOf(const TensorRef& t);

int64_t Product(const std::vector<int64_t>& v);

// Returns 1 + the largest element offset of `t` (its extent from element 0).
uint64_t SpanOf(const TensorRef& t);

// The element offset of each batch of `t` (rank >= 2) broadcast to `batch_shape` + its last two
// dims, batches in row-major order.
std::shared_ptr<const std::vector<int64_t>> BatchOffsets(const TensorRef& t,
                                                         const std::vector<int64_t>& batch_shape);

// Returns `t` with its last two dims swapped (a view).
TensorRef SwapLast2(const TensorRef& t);

// True when an input is staged column-major: its rows are longer than the Matmul's pitch.
bool StagedColumnMajor(const TensorRef& t);

// Returns the Matmul tiling (matmul_tiling::MultiCoreMatmulTiling) of an M x N x K product of
// `in` inputs into a `c` C on `dim` cores of `chip`, memoised: the tiling search costs about a
// millisecond, more than the rest of phase 1 (Note [Matmul tiling cache]). Throws an
// aicore::Error naming `op` when no tiling exists.
AscendC::tiling::TCubeTiling CubeTiling(const arch::Chip& chip, int32_t dim, int64_t m, int64_t n,
                                        int64_t k, DType in, DType c, bool a_trans, bool b_trans,
                                        const char* op);

}  // namespace aicore::ops::matmul_detail
