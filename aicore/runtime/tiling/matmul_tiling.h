// Host tiling for the Matmul API: matmul_tiling::MatmulApiTiling (one core) and
// MultiCoreMatmulTiling (split over SetDim cores) choose singleCore/base/L1-step sizes from the
// chip's buffer sizes and fill TCubeTiling; optiling::TCubeTiling adds the set_/get_ accessors and
// SaveToBuffer of CANN's tiling-data classes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/kernel/lib/matmul/matmul_type.h"
#include "aicore/kernel/types.h"
#include "aicore/runtime/tiling/platform_ascendc.h"

// Every TCubeTiling field, in declaration order (X-macro for the optiling accessors).
#define AICORE_TCUBETILING_FIELDS(X)                                                            \
  X(usedCoreNum)                                                                                \
  X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM) X(baseN) X(baseK) \
      X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength) X(iterateOrder)          \
          X(shareMode) X(shareL1Size) X(shareL0CSize) X(shareUbSize) X(batchM) X(batchN)        \
              X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb) X(depthAL1CacheUB)            \
                  X(depthBL1CacheUB) X(dbL0A) X(dbL0B) X(dbL0C) X(ALayoutInfoB) X(ALayoutInfoS) \
                      X(ALayoutInfoN) X(ALayoutInfoG) X(ALayoutInfoD) X(BLayoutInfoB)           \
                          X(BLayoutInfoS) X(BLayoutInfoN) X(BLayoutInfoG) X(BLayoutInfoD)       \
                              X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN) X(CLayoutInfoG)  \
                                  X(CLayoutInfoS2) X(BatchNum) X(mxTypePara)

namespace optiling {

// The host-side tiling-data class: the plain struct plus CANN's generated accessors.
struct TCubeTiling : AscendC::tiling::TCubeTiling {
#define AICORE_TCUBETILING_ACCESSORS(f)    \
  void set_##f(int32_t v) { this->f = v; } \
  int32_t get_##f() const { return this->f; }
  AICORE_TCUBETILING_FIELDS(AICORE_TCUBETILING_ACCESSORS)
#undef AICORE_TCUBETILING_ACCESSORS

  // Returns the bytes SaveToBuffer writes (the plain struct, int32 fields in order).
  size_t GetDataSize() const { return sizeof(AscendC::tiling::TCubeTiling); }
  // Copies the fields to `buf` if `cap` bytes suffice (else copies nothing).
  void SaveToBuffer(void* buf, size_t cap) const {
    if (buf != nullptr && cap >= GetDataSize()) {
      std::memcpy(buf, static_cast<const AscendC::tiling::TCubeTiling*>(this), GetDataSize());
    }
  }
};

}  // namespace optiling

namespace matmul_tiling {

using TPosition = AscendC::TPosition;
using ::CubeFormat;

// Element types (the ge::DataType numbering).
enum class DataType : int32_t {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
  DT_INT4 = 29,
};

enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1 };

// One operand's description as given to SetAType etc.
struct MatTilingType {
  TPosition pos = TPosition::GM;
  CubeFormat type = CubeFormat::ND;
  DataType dataType = DataType::DT_UNDEFINED;
  bool isTrans = false;
  bool set = false;
};

// The single-core tiling: SetShape gives this core's M, N, K.
// Every setter returns 0, or -1 for an invalid argument (logged).
class MatmulApiTilingBase {
 public:
  // Tiles for the default chip.
  MatmulApiTilingBase();
  explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& platform);
  virtual ~MatmulApiTilingBase() = default;

  int32_t SetAType(TPosition pos, CubeFormat type, DataType data_type, bool is_trans = false);
  int32_t SetBType(TPosition pos, CubeFormat type, DataType data_type, bool is_trans = false);
  int32_t SetCType(TPosition pos, CubeFormat type, DataType data_type);
  int32_t SetBiasType(TPosition pos, CubeFormat type, DataType data_type);
  // Sets the M, N, K to tile (elements).
  int32_t SetShape(int32_t m, int32_t n, int32_t k);
  // Sets the whole matrices' shapes (A is M x Ka, B is Kb x N); defaults to SetShape's.
  int32_t SetOrgShape(int32_t org_m, int32_t org_n, int32_t org_k);
  int32_t SetOrgShape(int32_t org_m, int32_t org_n, int32_t org_ka, int32_t org_kb);
  int32_t SetBias(bool is_bias = false);
  int32_t EnableBias(bool is_bias = false) { return SetBias(is_bias); }
  // Fixes baseM/baseN/baseK (-1 leaves one to the search). Each must be a multiple of 16 (baseK:
  // of the C0 elements of A's type) and fit L0A/L0B/L0C; checked by GetTiling.
  int32_t SetFixSplit(int32_t base_m = -1, int32_t base_n = -1, int32_t base_k = -1);
  // Limits the L1, L0C, UB and bias-table bytes the Matmul may use (-1: the whole buffer). The
  // L1 of an operand at TPosition::TSCM is not the Matmul's: it plans within min(l1_size, the
  // chip's L1 less the TSCM operands).
  int32_t SetBufferSpace(int32_t l1_size = -1, int32_t l0c_size = -1, int32_t ub_size = -1,
                         int32_t bt_size = -1);
  int32_t SetTraverse(MatrixTraverse traverse);
  // HF32 is not modelled: NORMAL is accepted, HF32 refused.
  int32_t SetMadType(MatrixMadType mad_type);
  int32_t SetSplitRange(int32_t max_base_m = -1, int32_t max_base_n = -1, int32_t max_base_k = -1,
                        int32_t min_base_m = -1, int32_t min_base_n = -1, int32_t min_base_k = -1);
  // Sets whether L0A, L0B and L0C hold two base blocks (ping-pong); the bias and format flags
  // are accepted and ignored.
  int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool trans_nd2nz = true,
                          bool trans_nz2nd = true);
  int32_t GetBaseM() const { return tiling_.baseM; }
  int32_t GetBaseN() const { return tiling_.baseN; }
  int32_t GetBaseK() const { return tiling_.baseK; }

  // Computes the tiling into `tiling`; returns 0, or -1 with the reason logged (and kept in
  // last_error()) when the types, shapes or buffer limits admit none.
  int64_t GetTiling(optiling::TCubeTiling& tiling);
  int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling);

  // --- aicore internals ---
  const std::string& last_error() const { return last_error_; }
  const platform_ascendc::PlatformAscendC& platform() const { return platform_; }

 protected:
  int32_t Reject(const std::string& why);
  int64_t Compute(AscendC::tiling::TCubeTiling& out);
  // Fills singleCoreM/N/K and usedCoreNum; the single-core tiling uses the shape as is.
  virtual bool SplitCores(AscendC::tiling::TCubeTiling& t);
  bool ChooseBase(AscendC::tiling::TCubeTiling& t);
  bool ChooseL1(AscendC::tiling::TCubeTiling& t);

  platform_ascendc::PlatformAscendC platform_;
  MatTilingType a_, b_, c_, bias_;
  int32_t m_ = -1, n_ = -1, k_ = -1;
  int32_t org_m_ = -1, org_n_ = -1, org_ka_ = -1, org_kb_ = -1;
  bool is_bias_ = false;
  int32_t fix_m_ = -1, fix_n_ = -1, fix_k_ = -1;
  int32_t max_m_ = -1, max_n_ = -1, max_k_ = -1, min_m_ = -1, min_n_ = -1, min_k_ = -1;
  int32_t l1_limit_ = -1, l0c_limit_ = -1, ub_limit_ = -1, bt_limit_ = -1;
  MatrixTraverse traverse_ = MatrixTraverse::NOSET;
  bool db_a_ = true, db_b_ = true, db_c_ = false;
  AscendC::tiling::TCubeTiling tiling_{};
  std::string last_error_;
};

class MatmulApiTiling : public MatmulApiTilingBase {
 public:
  using MatmulApiTilingBase::MatmulApiTilingBase;
};

// The multi-core tiling: SetShape gives the whole problem, split over at most SetDim cores (the
// chip's AIC count by default) along M and N; usedCoreNum says how many blocks to launch.
class MultiCoreMatmulTiling : public MatmulApiTilingBase {
 public:
  using MatmulApiTilingBase::MatmulApiTilingBase;
  int32_t SetDim(int32_t dim);
  // Fixes this core's share (-1 leaves one to the split).
  int32_t SetSingleShape(int32_t single_m = -1, int32_t single_n = -1, int32_t single_k = -1);
  int32_t SetSingleRange(int32_t max_m = -1, int32_t max_n = -1, int32_t max_k = -1,
                         int32_t min_m = -1, int32_t min_n = -1, int32_t min_k = -1);
  int32_t SetAlignSplit(int32_t align_m, int32_t align_n, int32_t align_k);
  // Returns the split GetTiling chose.
  int32_t GetSingleShape(int32_t& shape_m, int32_t& shape_n, int32_t& shape_k) const;
  int32_t GetCoreNum(int32_t& dim, int32_t& m_dim, int32_t& n_dim) const;
  // Splitting K over cores (partial sums added atomically in GM) is not implemented: true is
  // refused (returns without effect and logs); GetTiling then splits M and N only.
  void EnableMultiCoreSplitK(bool flag);
  void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }

 protected:
  bool SplitCores(AscendC::tiling::TCubeTiling& t) override;

 private:
  int32_t dim_ = -1;
  int32_t single_m_ = -1, single_n_ = -1, single_k_ = -1;
  int32_t align_m_ = 16, align_n_ = 16;
  int32_t m_dim_ = 1, n_dim_ = 1;
};

}  // namespace matmul_tiling
