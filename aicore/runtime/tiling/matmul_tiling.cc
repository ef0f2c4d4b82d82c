// Matmul tiling search.
//
// - Validate the operand types (A and B the same of half/bfloat16/float/int8; C float, half or
//   bfloat16, int32 for int8) and shapes.
// - Multi-core: try every (mDim, nDim) with mDim * nDim <= dim; each core gets singleCoreM =
//   RoundUp(ceil(M / mDim), 16) rows (singleCoreN likewise); keep the split whose busiest core
//   finishes first under the chip's cube and GM rates, ties going to fewer cores.
// - Base block: every baseM, baseN (multiples of 16, 32 for int8, up to the core's share) whose
//   accumulator fits L0C (and whose bias row fits the bias table), with the largest baseK (a
//   multiple of 16, 32 for int8: whole transposable squares for the kernel's L1 -> L0 loads)
//   that fits L0A and L0B (halved when double-buffered, the default for L0A and L0B, as on the
//   hardware where MTE1 then overlaps the cube). Each candidate is costed per core as the sum
//   over base blocks of max(cube cycles, MTE1 cycles, MTE2 cycles) with padding included; the
//   cheapest wins, ties going to the larger baseK and then the larger block.
// - L1: the panel reused by the inner loop (B for M-first order) is held for the whole K when it
//   fits; the other streams stepK base blocks at a time, double-buffered, with stepK as large as
//   L1 allows. An operand at TPosition::TSCM is already in L1 (the kernel's own tensor, this
//   core's whole operand in NZ): it takes no panels, and the plan fits in the L1 it leaves (and
//   in SetBufferSpace's L1 size), or GetTiling refuses naming both.

#include "aicore/runtime/tiling/matmul_tiling.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "aicore/core/log.h"
#include "aicore/core/status.h"

namespace matmul_tiling {
namespace {

constexpr int32_t kFractal = 16;  // M0 = N0 = 16 (ascendc-reference.md §3.3)
constexpr int32_t kC0Bytes = 32;  // a C0 block is 32 bytes

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// Returns the element size of `t`, or 0 for types the cube does not take.
int32_t InputBytes(DataType t) {
  switch (t) {
    case DataType::DT_FLOAT16:
    case DataType::DT_BF16:
      return 2;
    case DataType::DT_FLOAT:
      return 4;
    case DataType::DT_INT8:
    case DataType::DT_UINT8:
      return 1;
    default:
      return 0;
  }
}

const char* TypeName(DataType t) {
  switch (t) {
    case DataType::DT_FLOAT:
      return "DT_FLOAT";
    case DataType::DT_FLOAT16:
      return "DT_FLOAT16";
    case DataType::DT_BF16:
      return "DT_BF16";
    case DataType::DT_INT8:
      return "DT_INT8";
    case DataType::DT_UINT8:
      return "DT_UINT8";
    case DataType::DT_INT32:
      return "DT_INT32";
    case DataType::DT_UNDEFINED:
      return "DT_UNDEFINED";
    default:
      return "another type";
  }
}

// Returns pipes[key][sub] (or pipes[key]) from the chip preset, or `fallback`.
double PipeValue(const aicore::arch::Chip& chip, const char* key, const char* sub,
                 double fallback) {
  const auto& p = chip.pipes;
  if (!p.is_object() || !p.contains(key)) return fallback;
  const auto& v = p[key];
  if (sub != nullptr) {
    if (v.is_object() && v.contains(sub) && v[sub].is_number()) return v[sub].get<double>();
    return fallback;
  }
  return v.is_number() ? v.get<double>() : fallback;
}

const char* CubeKey(DataType t) {
  switch (t) {
    case DataType::DT_FLOAT16:
      return "f16";
    case DataType::DT_BF16:
      return "bf16";
    case DataType::DT_FLOAT:
      return "f32";
    default:
      return "i8";
  }
}

// The chip rates the cost model uses (per cycle per core).
struct Rates {
  double macs;    // cube MACs
  double l0a_bw;  // MTE1 bytes into L0A
  double l0b_bw;  // MTE1 bytes into L0B
  double gm_bw;   // MTE2 bytes from GM
  double burst;   // GM read granule: every contiguous run is rounded up to it (0: none)
};

Rates RatesOf(const aicore::arch::Chip& chip, DataType in) {
  // Fallbacks are the 2201 figures of ascendc-reference.md §9.4-9.5.
  return Rates{PipeValue(chip, "cube_macs_per_cycle", CubeKey(in), 4096),
               PipeValue(chip, "mte1_l0a_bytes_per_cycle", nullptr, 256),
               PipeValue(chip, "mte1_l0b_bytes_per_cycle", nullptr, 128),
               PipeValue(chip, "mte2_bytes_per_cycle", nullptr, 32),
               PipeValue(chip, "gm_burst_bytes", nullptr, 0)};
}

}  // namespace

MatmulApiTilingBase::MatmulApiTilingBase() = default;

MatmulApiTilingBase::MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& platform)
    : platform_(platform) {}

int32_t MatmulApiTilingBase::Reject(const std::string& why) {
  last_error_ = why;
  AICORE_LOG(kError) << "matmul tiling: " << why;
  return -1;
}

int32_t MatmulApiTilingBase::SetAType(TPosition pos, CubeFormat type, DataType data_type,
                                      bool is_trans) {
  a_ = MatTilingType{pos, type, data_type, is_trans, true};
  return 0;
}
int32_t MatmulApiTilingBase::SetBType(TPosition pos, CubeFormat type, DataType data_type,
                                      bool is_trans) {
  b_ = MatTilingType{pos, type, data_type, is_trans, true};
  return 0;
}
int32_t MatmulApiTilingBase::SetCType(TPosition pos, CubeFormat type, DataType data_type) {
  c_ = MatTilingType{pos, type, data_type, false, true};
  return 0;
}
int32_t MatmulApiTilingBase::SetBiasType(TPosition pos, CubeFormat type, DataType data_type) {
  bias_ = MatTilingType{pos, type, data_type, false, true};
  return 0;
}

int32_t MatmulApiTilingBase::SetShape(int32_t m, int32_t n, int32_t k) {
  if (m <= 0 || n <= 0 || k <= 0) {
    return Reject(aicore::StrCat("SetShape(", m, ", ", n, ", ", k, "): every size must be > 0"));
  }
  m_ = m;
  n_ = n;
  k_ = k;
  return 0;
}

int32_t MatmulApiTilingBase::SetOrgShape(int32_t org_m, int32_t org_n, int32_t org_k) {
  return SetOrgShape(org_m, org_n, org_k, org_k);
}

int32_t MatmulApiTilingBase::SetOrgShape(int32_t org_m, int32_t org_n, int32_t org_ka,
                                         int32_t org_kb) {
  if (org_m <= 0 || org_n <= 0 || org_ka <= 0 || org_kb <= 0) {
    return Reject(aicore::StrCat("SetOrgShape(", org_m, ", ", org_n, ", ", org_ka, ", ", org_kb,
                                 "): every size must be > 0"));
  }
  org_m_ = org_m;
  org_n_ = org_n;
  org_ka_ = org_ka;
  org_kb_ = org_kb;
  return 0;
}

int32_t MatmulApiTilingBase::SetBias(bool is_bias) {
  is_bias_ = is_bias;
  return 0;
}

int32_t MatmulApiTilingBase::SetFixSplit(int32_t base_m, int32_t base_n, int32_t base_k) {
  for (int32_t v : {base_m, base_n, base_k}) {
    if (v == 0 || v < -1) {
      return Reject(aicore::StrCat("SetFixSplit(", base_m, ", ", base_n, ", ", base_k,
                                   "): each must be -1 (search) or > 0"));
    }
  }
  fix_m_ = base_m;
  fix_n_ = base_n;
  fix_k_ = base_k;
  return 0;
}

int32_t MatmulApiTilingBase::SetBufferSpace(int32_t l1_size, int32_t l0c_size, int32_t ub_size,
                                            int32_t bt_size) {
  l1_limit_ = l1_size;
  l0c_limit_ = l0c_size;
  ub_limit_ = ub_size;
  bt_limit_ = bt_size;
  return 0;
}

int32_t MatmulApiTilingBase::SetTraverse(MatrixTraverse traverse) {
  traverse_ = traverse;
  return 0;
}

int32_t MatmulApiTilingBase::SetMadType(MatrixMadType mad_type) {
  if (mad_type != MatrixMadType::NORMAL) {
    return Reject("SetMadType(HF32): HF32 mode is not modelled by aicore; only NORMAL");
  }
  return 0;
}

int32_t MatmulApiTilingBase::SetSplitRange(int32_t max_base_m, int32_t max_base_n,
                                           int32_t max_base_k, int32_t min_base_m,
                                           int32_t min_base_n, int32_t min_base_k) {
  max_m_ = max_base_m;
  max_n_ = max_base_n;
  max_k_ = max_base_k;
  min_m_ = min_base_m;
  min_n_ = min_base_n;
  min_k_ = min_base_k;
  return 0;
}

int32_t MatmulApiTilingBase::SetDoubleBuffer(bool a, bool b, bool c, bool, bool, bool) {
  db_a_ = a;
  db_b_ = b;
  db_c_ = c;
  return 0;
}

int64_t MatmulApiTilingBase::GetTiling(optiling::TCubeTiling& tiling) {
  return GetTiling(static_cast<AscendC::tiling::TCubeTiling&>(tiling));
}

int64_t MatmulApiTilingBase::GetTiling(AscendC::tiling::TCubeTiling& tiling) {
  AscendC::tiling::TCubeTiling t{};
  if (Compute(t) != 0) return -1;
  tiling_ = t;
  tiling = t;
  return 0;
}

int64_t MatmulApiTilingBase::Compute(AscendC::tiling::TCubeTiling& t) {
  last_error_.clear();
  if (!a_.set || !b_.set || !c_.set) {
    return Reject("GetTiling: call SetAType, SetBType and SetCType first");
  }
  const int32_t in = InputBytes(a_.dataType);
  if (in == 0 || a_.dataType != b_.dataType) {
    return Reject(aicore::StrCat("GetTiling: A is ", TypeName(a_.dataType), " and B is ",
                                 TypeName(b_.dataType),
                                 "; the cube takes A and B of one type: "
                                 "DT_FLOAT16, DT_BF16, DT_FLOAT or DT_INT8"));
  }
  const bool int_path = in == 1;
  const DataType ct = c_.dataType;
  const bool c_ok = int_path ? ct == DataType::DT_INT32
                             : (ct == DataType::DT_FLOAT || ct == DataType::DT_FLOAT16 ||
                                ct == DataType::DT_BF16);
  if (!c_ok) {
    return Reject(aicore::StrCat(
        "GetTiling: C is ", TypeName(ct), " for ", TypeName(a_.dataType),
        " inputs; allowed: ", int_path ? "DT_INT32" : "DT_FLOAT, DT_FLOAT16 or DT_BF16"));
  }
  if (m_ <= 0) return Reject("GetTiling: call SetShape(m, n, k) first");
  if (org_m_ <= 0) {
    org_m_ = m_;
    org_n_ = n_;
    org_ka_ = k_;
    org_kb_ = k_;
  }
  if (m_ > org_m_ || n_ > org_n_ || k_ > std::min(org_ka_, org_kb_)) {
    return Reject(aicore::StrCat("GetTiling: shape (", m_, ", ", n_, ", ", k_,
                                 ") exceeds the original shape (M=", org_m_, ", N=", org_n_,
                                 ", Ka=", org_ka_, ", Kb=", org_kb_, ")"));
  }
  const int32_t c0 = kC0Bytes / in;
  // An NZ operand in GM is addressed by its padded shape; one at TSCM is the kernel's own copy
  // into L1, whose Nd2Nz pads the rows and columns (Note [Matmul local operands] in matmul.h).
  if (a_.type == CubeFormat::NZ && a_.pos != TPosition::TSCM &&
      (org_m_ % kFractal != 0 || org_ka_ % c0 != 0)) {
    return Reject(aicore::StrCat("GetTiling: A in NZ format needs M a multiple of 16 and Ka of ",
                                 c0, "; got M=", org_m_, ", Ka=", org_ka_));
  }
  if (b_.type == CubeFormat::NZ && b_.pos != TPosition::TSCM &&
      (org_n_ % kFractal != 0 || org_kb_ % c0 != 0)) {
    return Reject(aicore::StrCat("GetTiling: B in NZ format needs N a multiple of 16 and Kb of ",
                                 c0, "; got N=", org_n_, ", Kb=", org_kb_));
  }
  t.M = org_m_;
  t.N = org_n_;
  t.Ka = org_ka_;
  t.Kb = org_kb_;
  t.isBias = is_bias_ ? 1 : 0;
  if (!SplitCores(t)) return -1;
  if (!ChooseBase(t)) return -1;
  if (!ChooseL1(t)) return -1;
  t.shareMode = 0;
  t.shareUbSize = 0;
  t.transLength = 0;
  t.batchM = t.batchN = t.singleBatchM = t.singleBatchN = 1;
  t.BatchNum = 1;
  return 0;
}

bool MatmulApiTilingBase::SplitCores(AscendC::tiling::TCubeTiling& t) {
  t.usedCoreNum = 1;
  t.singleCoreM = m_;
  t.singleCoreN = n_;
  t.singleCoreK = k_;
  return true;
}

bool MatmulApiTilingBase::ChooseBase(AscendC::tiling::TCubeTiling& t) {
  const auto& chip = platform_.chip();
  const int32_t in = InputBytes(a_.dataType);
  const int32_t c0 = kC0Bytes / in;
  uint64_t l0a = 0, l0b = 0, l0c = 0;
  platform_.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
  platform_.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);
  platform_.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
  if (l0c_limit_ > 0) l0c = std::min<uint64_t>(l0c, static_cast<uint64_t>(l0c_limit_));
  if (l0a == 0 || l0b == 0 || l0c == 0) {
    Reject(aicore::StrCat("GetTiling: chip ", chip.name, " has no L0A/L0B/L0C (no cube)"));
    return false;
  }
  const int64_t db_a = db_a_ ? 2 : 1, db_b = db_b_ ? 2 : 1, db_c = db_c_ ? 2 : 1;
  // Base sizes the kernel's L1 -> L0 loads take: M and N in 16s (32s for int8, whose transposing
  // loads move 32 x 32 squares), K in 16s (32s for int8) so float squares are whole.
  const int64_t mn_step = in == 1 ? 32 : kFractal;
  const int64_t k_step = std::max<int64_t>(16, c0);
  const int64_t sm = RoundUp(t.singleCoreM, mn_step);
  const int64_t sn = RoundUp(t.singleCoreN, mn_step);
  const int64_t sk = RoundUp(t.singleCoreK, k_step);
  uint64_t bt = 0;
  platform_.GetCoreMemSize(platform_ascendc::CoreMemType::BT, bt);
  if (bt_limit_ > 0) bt = std::min<uint64_t>(bt, static_cast<uint64_t>(bt_limit_));
  if (is_bias_ && bt == 0) {
    Reject(aicore::StrCat("GetTiling: bias needs the bias table, which chip ", chip.name,
                          " does not have"));
    return false;
  }
  const Rates r = RatesOf(chip, a_.dataType);

  if (fix_m_ > 0 || fix_n_ > 0 || fix_k_ > 0) {
    for (auto [v, what] : {std::pair{fix_m_, "baseM"}, std::pair{fix_n_, "baseN"}}) {
      if (v > 0 && v % mn_step != 0) {
        Reject(aicore::StrCat("GetTiling: SetFixSplit ", what, "=", v, " is not a multiple of ",
                              mn_step, " for ", TypeName(a_.dataType)));
        return false;
      }
    }
    if (fix_k_ > 0 && fix_k_ % k_step != 0) {
      Reject(aicore::StrCat("GetTiling: SetFixSplit baseK=", fix_k_, " is not a multiple of ",
                            k_step, " for ", TypeName(a_.dataType)));
      return false;
    }
  }
  auto in_range = [](int64_t v, int32_t lo, int32_t hi) {
    return (lo <= 0 || v >= lo) && (hi <= 0 || v <= hi);
  };

  double best_cost = std::numeric_limits<double>::infinity();
  int64_t best_m = 0, best_n = 0, best_k = 0;
  const int64_t cap_m = fix_m_ > 0 ? fix_m_ : std::min<int64_t>(sm, 512);
  const int64_t cap_n = fix_n_ > 0 ? fix_n_ : std::min<int64_t>(sn, 512);
  for (int64_t bm = fix_m_ > 0 ? fix_m_ : mn_step; bm <= cap_m; bm += mn_step) {
    if (!in_range(bm, min_m_, max_m_) && fix_m_ <= 0) continue;
    for (int64_t bn = fix_n_ > 0 ? fix_n_ : mn_step; bn <= cap_n; bn += mn_step) {
      if (!in_range(bn, min_n_, max_n_) && fix_n_ <= 0) continue;
      if (bm * bn * 4 * db_c > static_cast<int64_t>(l0c)) continue;
      if (is_bias_ && bn * 4 > static_cast<int64_t>(bt)) continue;
      int64_t bk_fit = std::min(static_cast<int64_t>(l0a) / (bm * in * db_a),
                                static_cast<int64_t>(l0b) / (bn * in * db_b));
      bk_fit = bk_fit / k_step * k_step;
      int64_t bk = fix_k_ > 0 ? fix_k_ : std::min(bk_fit, sk);
      if (fix_k_ <= 0 && max_k_ > 0) bk = std::min<int64_t>(bk, max_k_ / k_step * k_step);
      if (bk < k_step || bk > bk_fit) continue;
      if (fix_k_ <= 0 && min_k_ > 0 && bk < min_k_) continue;
      // Cost of this core's share (cycles): per base block, the slowest of cube, MTE1 and MTE2.
      const int64_t m_iter = CeilDiv(t.singleCoreM, bm), n_iter = CeilDiv(t.singleCoreN, bn);
      const int64_t k_iter = CeilDiv(t.singleCoreK, bk);
      const double cube = static_cast<double>(bm * bn * bk) / r.macs;
      const double mte1 = static_cast<double>(bm * bk * in) / r.l0a_bw +
                          static_cast<double>(bk * bn * in) / r.l0b_bw;
      // GM bytes as MTE2 pays them: every contiguous run is rounded up to the GM burst. Runs
      // along M or N (a transposed A, a plain B) are one block wide, so a 176-column half B
      // block (352-B runs) costs 512 B a row and a 128- or 256-column one just its bytes; runs
      // along K span the L1 step (stepK base blocks, as long as L1 allows: ChooseL1) and are
      // taken at their bytes.
      auto burst_bytes = [&](int64_t rows, int64_t run) {
        const int64_t b = r.burst >= 1 ? static_cast<int64_t>(r.burst) : 1;
        return static_cast<double>(rows * RoundUp(run * in, b));
      };
      const double a_bytes = a_.isTrans ? burst_bytes(bk, bm) : static_cast<double>(bm * bk * in);
      const double b_bytes = b_.isTrans ? static_cast<double>(bn * bk * in) : burst_bytes(bk, bn);
      const double mte2 = (a_bytes + b_bytes) / r.gm_bw;
      const double cost =
          static_cast<double>(m_iter * n_iter * k_iter) * std::max({cube, mte1, mte2});
      const bool better = cost < best_cost * (1 - 1e-9) ||
                          (cost <= best_cost * (1 + 1e-9) &&
                           (bk > best_k || (bk == best_k && bm * bn > best_m * best_n)));
      if (better) {
        best_cost = cost;
        best_m = bm;
        best_n = bn;
        best_k = bk;
      }
    }
  }
  if (best_m == 0) {
    Reject(aicore::StrCat("GetTiling: no base block fits L0A ", l0a, " B, L0B ", l0b, " B, L0C ",
                          l0c, " B", is_bias_ ? aicore::StrCat(", BT ", bt, " B") : "", " for ",
                          TypeName(a_.dataType), " (SetFixSplit ", fix_m_, ", ", fix_n_, ", ",
                          fix_k_, "; double buffer A/B/C ", db_a, "/", db_b, "/", db_c, ")"));
    return false;
  }
  t.baseM = static_cast<int32_t>(best_m);
  t.baseN = static_cast<int32_t>(best_n);
  t.baseK = static_cast<int32_t>(best_k);
  t.dbL0A = static_cast<int32_t>(db_a);
  t.dbL0B = static_cast<int32_t>(db_b);
  t.dbL0C = static_cast<int32_t>(db_c);
  t.shareL0CSize = static_cast<int32_t>(best_m * best_n * 4 * db_c);
  return true;
}

bool MatmulApiTilingBase::ChooseL1(AscendC::tiling::TCubeTiling& t) {
  const int32_t in = InputBytes(a_.dataType);
  const int64_t c0 = kC0Bytes / in;
  uint64_t chip_l1 = 0;
  platform_.GetCoreMemSize(platform_ascendc::CoreMemType::L1, chip_l1);
  // An operand at TPosition::TSCM is the kernel's own L1 tensor, this core's whole operand in NZ
  // in its stored orientation (Note [Matmul local operands] in matmul.h): the Matmul keeps no
  // panels of it, and the L1 it occupies is not the Matmul's. The Matmul plans within what is
  // left, and within SetBufferSpace's L1 size (its own share) when that is smaller.
  const auto tscm_bytes = [&](const MatTilingType& ty, int64_t rows, int64_t cols) -> int64_t {
    if (ty.pos != TPosition::TSCM) return 0;
    if (ty.isTrans) std::swap(rows, cols);
    return RoundUp(rows, kFractal) * RoundUp(cols, c0) * in;
  };
  const int64_t tscm_a = tscm_bytes(a_, t.singleCoreM, t.singleCoreK);
  const int64_t tscm_b = tscm_bytes(b_, t.singleCoreK, t.singleCoreN);
  const bool a_in_l1 = a_.pos == TPosition::TSCM, b_in_l1 = b_.pos == TPosition::TSCM;
  const auto tscm_text = [&] {
    std::string s;
    if (a_in_l1) {
      s += aicore::StrCat("A at TPosition::TSCM (", a_.isTrans ? "singleCoreK x singleCoreM " :
                          "singleCoreM x singleCoreK ", a_.isTrans ? t.singleCoreK : t.singleCoreM,
                          " x ", a_.isTrans ? t.singleCoreM : t.singleCoreK, " in NZ) takes ",
                          tscm_a, " B of L1");
    }
    if (b_in_l1) {
      s += aicore::StrCat(a_in_l1 ? ", " : "", "B at TPosition::TSCM (",
                          b_.isTrans ? "singleCoreN x singleCoreK " : "singleCoreK x singleCoreN ",
                          b_.isTrans ? t.singleCoreN : t.singleCoreK, " x ",
                          b_.isTrans ? t.singleCoreK : t.singleCoreN, " in NZ) takes ", tscm_b,
                          " B of L1");
    }
    return s;
  };
  const int64_t free_l1 = static_cast<int64_t>(chip_l1) - tscm_a - tscm_b;
  if (free_l1 <= 0) {
    Reject(aicore::StrCat("GetTiling: ", tscm_text(), "; ", platform_.chip().name, " has ",
                          chip_l1, " B of L1 per core, so nothing is left for the Matmul (split "
                          "the operand over more cores or a smaller singleCore shape)"));
    return false;
  }
  int64_t l1 = free_l1;
  if (l1_limit_ > 0) l1 = std::min<int64_t>(l1, l1_limit_);
  // The bias row of one base block (float, or int32 for int8) is staged in L1 too.
  const int64_t bias_bytes = is_bias_ ? RoundUp(t.baseN, kFractal) * 4 : 0;
  const int64_t budget = l1 - bias_bytes;
  const int64_t k_iter = CeilDiv(t.singleCoreK, t.baseK);
  // One base block of A / B in the Matmul's L1 panels (none for a TSCM operand).
  const int64_t a_blk = a_in_l1 ? 0 : int64_t{t.baseM} * t.baseK * in;
  const int64_t b_blk = b_in_l1 ? 0 : int64_t{t.baseK} * t.baseN * in;
  const bool m_first = traverse_ == MatrixTraverse::FIRSTN
                           ? false
                           : traverse_ == MatrixTraverse::FIRSTM ||
                                 CeilDiv(t.singleCoreM, t.baseM) >= CeilDiv(t.singleCoreN, t.baseN);
  t.iterateOrder = m_first ? 0 : 1;
  t.stepM = 1;
  t.stepN = 1;
  int64_t step_a = 0, step_b = 0, depth_a = 0, depth_b = 0;
  const auto no_room = [&](int64_t need) {
    const std::string tscm = tscm_text();
    const std::string blocks =
        a_in_l1 ? aicore::StrCat("one base block of B (", b_blk, " B)")
        : b_in_l1 ? aicore::StrCat("one base block of A (", a_blk, " B)")
                  : aicore::StrCat("one base block of A (", a_blk, " B) and of B (", b_blk, " B)");
    Reject(aicore::StrCat("GetTiling: ", blocks, " needs ", need, " B but does not fit the ",
                          budget, " B of L1 available", tscm.empty() ? "" : " (", tscm,
                          tscm.empty() ? "" : ")"));
    return false;
  };
  if (budget < 0) {
    const std::string tscm = tscm_text();
    Reject(aicore::StrCat("GetTiling: the bias row of a base block (", bias_bytes,
                          " B) does not fit the ", l1, " B of L1 available",
                          tscm.empty() ? "" : " (", tscm, tscm.empty() ? "" : ")"));
    return false;
  }
  if (2 * (a_blk + b_blk) * k_iter <= budget) {
    // Both whole-K panels, double-buffered (a TSCM operand: the whole K is resident).
    step_a = step_b = k_iter;
    depth_a = a_in_l1 ? k_iter : 2 * k_iter;
    depth_b = b_in_l1 ? k_iter : 2 * k_iter;
  } else if (a_in_l1 || b_in_l1) {
    // The TSCM operand covers the whole K; stream the other as far as L1 allows.
    const int64_t streamed = a_in_l1 ? b_blk : a_blk;
    int64_t s = std::min(k_iter, budget / (2 * streamed));
    int64_t db = 2;
    if (s < 1) {
      s = budget >= streamed ? 1 : 0;
      db = 1;
    }
    if (s < 1) return no_room(streamed);
    (a_in_l1 ? step_a : step_b) = k_iter;
    (a_in_l1 ? depth_a : depth_b) = k_iter;
    (a_in_l1 ? step_b : step_a) = s;
    (a_in_l1 ? depth_b : depth_a) = db * s;
  } else {
    // Hold the reused panel (B when M moves first) for the whole K; stream the other.
    const int64_t held = m_first ? b_blk : a_blk;
    const int64_t streamed = m_first ? a_blk : b_blk;
    if (held * k_iter + 2 * streamed <= budget) {
      const int64_t s = std::min(k_iter, (budget - held * k_iter) / (2 * streamed));
      int64_t& held_step = m_first ? step_b : step_a;
      int64_t& streamed_step = m_first ? step_a : step_b;
      held_step = k_iter;
      streamed_step = s;
      (m_first ? depth_b : depth_a) = k_iter;
      (m_first ? depth_a : depth_b) = 2 * s;
    } else {
      int64_t s = std::min(k_iter, budget / (2 * (a_blk + b_blk)));
      int64_t db = 2;
      if (s < 1) {
        s = budget >= a_blk + b_blk ? 1 : 0;
        db = 1;
      }
      if (s < 1) return no_room(a_blk + b_blk);
      step_a = step_b = s;
      depth_a = depth_b = db * s;
    }
  }
  t.stepKa = static_cast<int32_t>(step_a);
  t.stepKb = static_cast<int32_t>(step_b);
  t.depthA1 = static_cast<int32_t>(depth_a);
  t.depthB1 = static_cast<int32_t>(depth_b);
  t.shareL1Size = static_cast<int32_t>(depth_a * a_blk + depth_b * b_blk + bias_bytes);
  return true;
}

int32_t MultiCoreMatmulTiling::SetDim(int32_t dim) {
  if (dim <= 0) return Reject(aicore::StrCat("SetDim(", dim, "): need at least one core"));
  dim_ = dim;
  return 0;
}

int32_t MultiCoreMatmulTiling::SetSingleShape(int32_t single_m, int32_t single_n,
                                              int32_t single_k) {
  single_m_ = single_m;
  single_n_ = single_n;
  single_k_ = single_k;
  return 0;
}

int32_t MultiCoreMatmulTiling::SetSingleRange(int32_t, int32_t, int32_t, int32_t, int32_t,
                                              int32_t) {
  return 0;
}

int32_t MultiCoreMatmulTiling::SetAlignSplit(int32_t align_m, int32_t align_n, int32_t) {
  if (align_m > 0) align_m_ = static_cast<int32_t>(RoundUp(align_m, kFractal));
  if (align_n > 0) align_n_ = static_cast<int32_t>(RoundUp(align_n, kFractal));
  return 0;
}

int32_t MultiCoreMatmulTiling::GetSingleShape(int32_t& shape_m, int32_t& shape_n,
                                              int32_t& shape_k) const {
  shape_m = tiling_.singleCoreM;
  shape_n = tiling_.singleCoreN;
  shape_k = tiling_.singleCoreK;
  return 0;
}

int32_t MultiCoreMatmulTiling::GetCoreNum(int32_t& dim, int32_t& m_dim, int32_t& n_dim) const {
  dim = tiling_.usedCoreNum;
  m_dim = m_dim_;
  n_dim = n_dim_;
  return 0;
}

void MultiCoreMatmulTiling::EnableMultiCoreSplitK(bool flag) {
  if (flag) {
    Reject(
        "EnableMultiCoreSplitK(true): splitting K across cores is not implemented by "
        "aicore; the tiling splits M and N only");
  }
}

bool MultiCoreMatmulTiling::SplitCores(AscendC::tiling::TCubeTiling& t) {
  const int64_t dim = dim_ > 0 ? dim_ : platform_.GetCoreNumAic();
  t.singleCoreK = single_k_ > 0 ? std::min(single_k_, k_) : k_;
  if (single_m_ > 0 || single_n_ > 0) {
    t.singleCoreM = single_m_ > 0 ? std::min(single_m_, m_) : m_;
    t.singleCoreN = single_n_ > 0 ? std::min(single_n_, n_) : n_;
    m_dim_ = static_cast<int32_t>(CeilDiv(m_, t.singleCoreM));
    n_dim_ = static_cast<int32_t>(CeilDiv(n_, t.singleCoreN));
    t.usedCoreNum = m_dim_ * n_dim_;
    if (t.usedCoreNum > dim) {
      Reject(aicore::StrCat("GetTiling: SetSingleShape(", single_m_, ", ", single_n_, ") needs ",
                            t.usedCoreNum, " cores but SetDim allows ", dim));
      return false;
    }
    return true;
  }
  const int32_t in = InputBytes(a_.dataType);
  const Rates r = RatesOf(platform_.chip(), a_.dataType);
  double best = std::numeric_limits<double>::infinity();
  int64_t best_sm = m_, best_sn = n_, best_used = 1, best_md = 1, best_nd = 1;
  const int64_t max_md = std::min<int64_t>(dim, CeilDiv(m_, align_m_));
  for (int64_t md = 1; md <= max_md; ++md) {
    const int64_t max_nd = std::min<int64_t>(dim / md, CeilDiv(n_, align_n_));
    for (int64_t nd = 1; nd <= max_nd; ++nd) {
      const int64_t sm = std::min<int64_t>(m_, RoundUp(CeilDiv(m_, md), align_m_));
      const int64_t sn = std::min<int64_t>(n_, RoundUp(CeilDiv(n_, nd), align_n_));
      const int64_t used = CeilDiv(m_, sm) * CeilDiv(n_, sn);
      const double cube = static_cast<double>(RoundUp(sm, 16) * RoundUp(sn, 16) * k_) / r.macs;
      const double gm = static_cast<double>((sm + sn) * k_ * in) / r.gm_bw;
      const double cost = std::max(cube, gm);
      // Ties go to fewer cores, then to more cores along M. The documentation states no tie
      // rule; splitting A along M is its L2-cache advice (B stays resident across cores), and the
      // public samples that pair SetDim with a square C (512 x 512 on 2 cores) expect M.
      const int64_t md_used = CeilDiv(m_, sm);
      const bool tie = cost <= best * (1 + 1e-9);
      if (cost < best * (1 - 1e-9) || (tie && used < best_used) ||
          (tie && used == best_used && md_used > best_md)) {
        best = cost;
        best_sm = sm;
        best_sn = sn;
        best_used = used;
        best_md = CeilDiv(m_, sm);
        best_nd = CeilDiv(n_, sn);
      }
    }
  }
  t.singleCoreM = static_cast<int32_t>(best_sm);
  t.singleCoreN = static_cast<int32_t>(best_sn);
  t.usedCoreNum = static_cast<int32_t>(best_used);
  m_dim_ = static_cast<int32_t>(best_md);
  n_dim_ = static_cast<int32_t>(best_nd);
  return true;
}

}  // namespace matmul_tiling
