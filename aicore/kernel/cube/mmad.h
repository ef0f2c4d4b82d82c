// Mmad: the cube's matrix multiply-accumulate C (CO1, L0C) = A (A2, L0A) x B (B2, L0B) [+ C or
// bias], with MmadParams. Pipe M. The arithmetic runs in register-blocked SIMD kernels chosen at
// run time (mmad_isa.cc); see Note [Mmad accumulation order] for what every path computes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/cube/l0_layout.h"
#include "aicore/kernel/cube/mmad_kernels.h"

namespace AscendC {

// Parameters of Mmad (ascendc-reference.md §5.1), AscendC's field names, order and defaults.
struct MmadParams {
  MmadParams() = default;
  MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool isBiasIn, int32_t fmOffsetIn,
             bool enSsparseIn, bool enWinogradAIn, bool enWinogradBIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        isBias(isBiasIn),
        fmOffset(fmOffsetIn),
        enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn),
        enWinogradB(enWinogradBIn) {}
  MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unitFlagIn, bool cmatrixSourceIn,
             bool cmatrixInitValIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        unitFlag(unitFlagIn),
        cmatrixSource(cmatrixSourceIn),
        cmatrixInitVal(cmatrixInitValIn) {}
  uint16_t m = 0;                // rows of A and C, [0, 4095]
  uint16_t n = 0;                // columns of B and C, [0, 4095]
  uint16_t k = 0;                // columns of A, rows of B, [0, 4095]
  bool isBias = false;           // deprecated: true means C += A*B
  int32_t fmOffset = 0;          // reserved, must be 0
  bool enSsparse = false;        // reserved, must be false
  bool enWinogradA = false;      // reserved, must be false
  bool enWinogradB = false;      // reserved, must be false
  uint8_t unitFlag = 0;          // 0, 2 or 3: Mmad/Fixpipe overlap hint; no effect on results
  bool kDirectionAlign = false;  // fp32 only: A's k extent is padded to 16 (K1 even)
  bool cmatrixSource = false;    // with cmatrixInitVal false: C starts from the bias (C2)
  bool cmatrixInitVal = true;    // true: C starts at 0; false: see cmatrixSource
};

namespace detail {

// The funnel record of a Mmad: pipe M, flops 2*m*n*k, dtype of the inputs.
aicore::sim::Instr MmadInstr(aicore::sim::Core& core, aicore::DType src_dtype,
                             const aicore::kernel::cube::MmadJob& job, uint64_t c_bytes,
                             uint64_t a_bytes, uint64_t b_bytes, const SrcLoc& loc);

template <typename DstT, typename SrcT>
constexpr bool kMmadTypesOk = (std::is_same_v<SrcT, float> && std::is_same_v<DstT, float>) ||
                              (std::is_same_v<SrcT, half> && std::is_same_v<DstT, float>) ||
                              (std::is_same_v<SrcT, bfloat16_t> && std::is_same_v<DstT, float>) ||
                              (std::is_same_v<SrcT, int8_t> && std::is_same_v<DstT, int32_t>);

template <typename SrcT>
constexpr aicore::kernel::cube::MmadType MmadTypeOf() {
  using aicore::kernel::cube::MmadType;
  if constexpr (std::is_same_v<SrcT, half>)
    return MmadType::kF16;
  else if constexpr (std::is_same_v<SrcT, bfloat16_t>)
    return MmadType::kBF16;
  else if constexpr (std::is_same_v<SrcT, int8_t>)
    return MmadType::kI8;
  else
    return MmadType::kF32;
}

// Fails unless `t` is live, in `want`, aligned to `align` bytes and holds `need` bytes.
template <typename T>
void CheckMmadOperand(const LocalTensor<T>& t, std::initializer_list<aicore::arch::Buffer> want,
                      uint32_t align, uint64_t need, const char* role, const char* pos_name,
                      const char* why, const SrcLoc& loc) {
  t.CheckLive("Mmad", loc);
  const auto b = BufferOf(t);
  bool ok = false;
  for (auto w : want) ok = ok || w == b;
  if (!ok) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "Mmad", loc, role, " is a ",
         aicore::arch::PositionName(ToArch(t.GetPosition())), " tensor in ",
         aicore::arch::BufferName(b), "; Mmad needs ", pos_name);
  }
  const uint64_t off = Core().Locate(t.data(), 0).offset;
  if (off % align != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "Mmad", loc, role, " starts at ",
         aicore::arch::BufferName(b), " offset ", off, ", not on a ", align,
         "-byte boundary as Mmad requires");
  }
  if (need > t.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, "Mmad", loc, role, " holds ", t.bytes(), " bytes but ", why,
         " needs ", need, " bytes");
  }
}

template <typename DstT, typename SrcT, typename BiasT>
void MmadImpl(const LocalTensor<DstT>& dst, const LocalTensor<SrcT>& fm,
              const LocalTensor<SrcT>& filter, const LocalTensor<BiasT>* bias, const MmadParams& p,
              const SrcLoc& loc) {
  using aicore::arch::Buffer;
  using aicore::kernel::cube::MmadInit;
  if constexpr (!kMmadTypesOk<DstT, SrcT>) {
    Fail(StatusCode::kInvalidArgument, "Mmad", loc, "no Mmad for ",
         aicore::DTypeName(aicore::DTypeOf<SrcT>()), " x ",
         aicore::DTypeName(aicore::DTypeOf<SrcT>()), " -> ",
         aicore::DTypeName(aicore::DTypeOf<DstT>()),
         "; supported: half x half -> float, bfloat16 x bfloat16 -> float, float x float -> "
         "float, int8 x int8 -> int32");
  } else {
    if (p.m > 4095 || p.n > 4095 || p.k > 4095) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, "Mmad", loc, "m = ", p.m, ", n = ", p.n, ", k = ", p.k,
           ": each must be in [0, 4095]");
    }
    if (p.unitFlag != 0 && p.unitFlag != 2 && p.unitFlag != 3) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, "Mmad", loc, "unitFlag ", int{p.unitFlag},
           " is not 0, 2 or 3");
    }
    if (p.fmOffset != 0 || p.enSsparse || p.enWinogradA || p.enWinogradB) [[unlikely]] {
      Fail(StatusCode::kUnimplemented, "Mmad", loc, "fmOffset (", p.fmOffset, "), enSsparse (",
           p.enSsparse, "), enWinogradA (", p.enWinogradA, ") and enWinogradB (", p.enWinogradB,
           ") are reserved on this architecture and must keep their defaults");
    }
    if (p.kDirectionAlign && !std::is_same_v<SrcT, float>) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, "Mmad", loc,
           "kDirectionAlign applies to float inputs "
           "only, got ",
           aicore::DTypeName(aicore::DTypeOf<SrcT>()));
    }
    aicore::kernel::cube::MmadJob job;
    job.type = MmadTypeOf<SrcT>();
    job.m = p.m;
    job.n = p.n;
    job.k = p.k;
    constexpr uint32_t kK0 = l0::kK0<SrcT>;
    job.m1 = (p.m + 15) / 16;
    job.n1 = (p.n + 15) / 16;
    job.b_k1 = (p.k + kK0 - 1) / kK0;
    job.a_k1 = p.kDirectionAlign ? (job.b_k1 + 1) / 2 * 2 : job.b_k1;
    if (bias != nullptr) {
      job.init = MmadInit::kBias;
    } else if (p.isBias || !p.cmatrixInitVal) {
      if (p.cmatrixSource && !p.isBias) [[unlikely]] {
        Fail(StatusCode::kInvalidArgument, "Mmad", loc,
             "cmatrixSource = true starts C from the "
             "bias table, which needs the Mmad overload that takes a bias tensor");
      }
      job.init = MmadInit::kAccumulate;
    }
    const uint64_t a_bytes = uint64_t{job.m1} * job.a_k1 * l0::kFractalBytes;
    const uint64_t b_bytes = uint64_t{job.b_k1} * job.n1 * l0::kFractalBytes;
    const uint64_t c_bytes = uint64_t{job.m1} * job.n1 * 256 * sizeof(DstT);
    CheckMmadOperand(dst, {Buffer::kL0C}, 1024, c_bytes, "dst", "CO1 (L0C)",
                     "the m x n result in 16 x 16 fractals", loc);
    CheckMmadOperand(fm, {Buffer::kL0A}, 512, a_bytes, "fm", "A2 (L0A)",
                     "the m x k left matrix in 512-byte fractals", loc);
    CheckMmadOperand(filter, {Buffer::kL0B}, 512, b_bytes, "filter", "B2 (L0B)",
                     "the k x n right matrix in 512-byte fractals", loc);
    if (bias != nullptr) {
      using Want = std::conditional_t<std::is_same_v<SrcT, int8_t>, int32_t, float>;
      if constexpr (!std::is_same_v<BiasT, Want>) {
        Fail(StatusCode::kInvalidArgument, "Mmad", loc, "bias of ",
             aicore::DTypeName(aicore::DTypeOf<BiasT>()), " for ",
             aicore::DTypeName(aicore::DTypeOf<SrcT>()), " inputs; the bias must be ",
             aicore::DTypeName(aicore::DTypeOf<Want>()));
      }
      CheckMmadOperand(*bias, {Buffer::kBt, Buffer::kL0C}, 64, uint64_t{p.n} * sizeof(BiasT),
                       "bias", "C2 (bias table) or CO1", "one value per column n", loc);
      job.bias = bias->data();
    }
    if (p.m == 0 || p.n == 0) return;
    job.a = fm.data();
    job.b = filter.data();
    job.c = dst.data();
    auto& core = Core();
    core.Execute(aicore::sim::Pipe::kM, [job] { aicore::kernel::cube::RunMmad(job); });
    AICORE_ISSUE(core,
                 MmadInstr(core, aicore::DTypeOf<SrcT>(), job, c_bytes, a_bytes, b_bytes, loc));
  }
}

}  // namespace detail

// C = A x B (cmatrixInitVal), or C += A x B (cmatrixInitVal false, or the deprecated isBias), for
// A (m x k) in A2 as Zz fractals, B (k x n) in B2 as Zn fractals and C (m x n) in CO1 as 16 x 16
// Nz fractals (M1 = ceil(m/16) fractals per column). Types: half/bfloat16_t/float -> float,
// int8_t -> int32_t. fm and filter must be 512-byte aligned, dst 1024-byte aligned. m = 0 or
// n = 0 is a no-op; k = 0 leaves C at its initial value. Pipe M.
template <typename DstT, typename SrcT>
void Mmad(const LocalTensor<DstT>& dstLocal, const LocalTensor<SrcT>& fmLocal,
          const LocalTensor<SrcT>& filterLocal, const MmadParams& mmadParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::MmadImpl<DstT, SrcT, DstT>(dstLocal, fmLocal, filterLocal, nullptr, mmadParams, loc);
}

// C = A x B + bias, the bias (n values: float, or int32_t for int8 inputs) broadcast over the
// rows, read from C2 (the bias table; CO1 is also accepted). The bias is 64-byte aligned.
template <typename DstT, typename SrcT, typename BiasT>
void Mmad(const LocalTensor<DstT>& dstLocal, const LocalTensor<SrcT>& fmLocal,
          const LocalTensor<SrcT>& filterLocal, const LocalTensor<BiasT>& biasLocal,
          const MmadParams& mmadParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::MmadImpl<DstT, SrcT, BiasT>(dstLocal, fmLocal, filterLocal, &biasLocal, mmadParams, loc);
}

}  // namespace AscendC
