// Fixpipe: moves a Mmad result from L0C (CO1, Nz with 16 x 16 fractals) to GM or L1 on the FIX
// pipe, or to UB on a chip with the L0C -> UB path (Note [L0C to UB] in sim/core.h), converting
// NZ -> ND (CFG_ROW_MAJOR) or keeping NZ (CFG_NZ), with on-the-fly quantisation (QuantMode_t)
// and ReLU. GM writes honour SetAtomicAdd/Max/Min.
//
// Note [Fixpipe layouts]
// L0C element (m, n) of source matrix i sits at
//   i*srcNdStride*256 + (n/16)*srcStride*16 + m*16 + n%16          (elements of the L0C type)
// so srcStride is the distance of adjacent 16-column fractal columns in C0_Size units
// (16 * sizeof(src) bytes, i.e. rows of a fractal); Mmad writes srcStride = ceil(m/16)*16.
// CFG_ROW_MAJOR writes element (m, n) of matrix i to dst[i*dstNdStride + m*dstStride + n]
// (dstStride = ND row pitch in elements). CFG_NZ writes it to byte
//   (n/c0)*dstStride*32 + m*c0*sizeof(dst) + (n%c0)*sizeof(dst)
// with c0 = 16 for float/int32 output (8 with isChannelSplit) and 32 B / sizeof(dst) otherwise (so
// int8 output merges two 16-column fractals into one 16 x 32 fractal); ndNum applies to
// NZ -> ND only. nSize need not be a multiple of 16 for ND output (tiles with an N tail); the
// NZ output requires it (8 with isChannelSplit), as documented.
//
// Note [Fixpipe quantisation]
// Scalar modes take deqScalar, tensor (V*) modes take one uint64_t per output column from the
// cbufWorkspace tensor in L1. Each uint64_t holds (2201 bit map): [31:0] the scale M as a float
// of which the hardware keeps 10 mantissa bits (bits 12..0 are cleared), [35:32] N-1 (a right
// shift of 1..16), [36] MCB (int32 input is shifted right by N and saturated to int16 before
// the multiply), [45:37] a signed 9-bit offset added after the multiply (REQ8, QF322B8_PRE), [46]
// 1 = signed int8 result, 0 = uint8. Negative inputs use M2 = M, or 0 with reluEn. Float
// results round to nearest even (CAST_RINT); integer results round to nearest even and
// saturate; half results follow IEEE overflow (inf) as in the non-saturating CTRL[48] mode.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/copy/copy_common.h"

// Quantisation modes of the matrix write-out (global, as AscendC kernels spell it unqualified).
enum QuantMode_t {
  NoQuant,       // float -> float, int32 -> int32
  F322F16,       // float -> half, round to nearest even
  F322BF16,      // float -> bfloat16, round to nearest even
  DEQF16,        // int32 -> half, scalar scale
  VDEQF16,       // int32 -> half, per-column scale
  QF322B8_PRE,   // float -> int8/uint8, scalar scale
  VQF322B8_PRE,  // float -> int8/uint8, per-column scale
  REQ8,          // int32 -> int8/uint8, scalar scale
  VREQ8,         // int32 -> int8/uint8, per-column scale
};

namespace AscendC {

using ::QuantMode_t;

enum class CO2Layout : uint8_t {
  NZ = 0,     // keep the NZ fractal layout
  ROW_MAJOR,  // NZ -> ND on the fly
};

struct FixpipeConfig {
  CO2Layout format;
  bool isToUB = false;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

// Fixpipe parameters of NPU arch 2201. See Note [Fixpipe layouts] for the units.
struct FixpipeParamsV220 {
  FixpipeParamsV220() = default;
  // The documented positional form, in the samples' order {nSize, mSize, srcStride, dstStride,
  // reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride, unitFlag}. The four sizes take
  // any integer type, so brace initialisation from int tiling fields does not narrow; values
  // outside a field's range are caught by Fixpipe's checks only as far as they survive the cast.
  template <typename N, typename M, typename S, typename D>
    requires std::is_integral_v<N> && std::is_integral_v<M> && std::is_integral_v<S> &&
             std::is_integral_v<D>
  FixpipeParamsV220(N n_size, M m_size, S src_stride, D dst_stride, bool relu_en = false,
                    QuantMode_t quant_pre = QuantMode_t::NoQuant, uint64_t deq_scalar = 0,
                    int64_t nd_num = 1, int64_t src_nd_stride = 0, int64_t dst_nd_stride = 0,
                    int64_t unit_flag = 0)
      : nSize(static_cast<uint16_t>(n_size)), mSize(static_cast<uint16_t>(m_size)),
        srcStride(static_cast<uint16_t>(src_stride)), dstStride(static_cast<uint32_t>(dst_stride)),
        quantPre(quant_pre), deqScalar(deq_scalar), ndNum(static_cast<uint16_t>(nd_num)),
        srcNdStride(static_cast<uint16_t>(src_nd_stride)),
        dstNdStride(static_cast<uint16_t>(dst_nd_stride)), reluEn(relu_en),
        unitFlag(static_cast<uint8_t>(unit_flag)) {}

  uint16_t nSize = 0;      // columns moved, [0, 4095]; 0 is a no-op
  uint16_t mSize = 0;      // rows moved, [0, 8192] for ND output, [0, 65535] for NZ; 0 is a no-op
  uint16_t srcStride = 0;  // L0C fractal-column distance in C0_Size units (ceil(m/16)*16)
  uint32_t dstStride = 0;  // ND: row pitch in elements; NZ: column distance in 32 B units
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;    // scalar quantisation parameter (Note [Fixpipe quantisation])
  uint16_t ndNum = 1;        // NZ -> ND: source matrices, [0, 65535]; 0 is a no-op
  uint16_t srcNdStride = 0;  // NZ -> ND: source matrix distance in fractals (256 elements)
  uint16_t dstNdStride = 0;  // NZ -> ND: destination matrix distance in elements
  bool reluEn = false;
  uint8_t unitFlag = 0;         // accepted; the CPU runs Mmad to completion first
  bool isChannelSplit = false;  // float NZ output as 16 x 8 fractals
};

namespace detail {

// A type-erased Fixpipe: everything the mover needs, captured at issue time.
struct FixpipeJob {
  uint8_t* dst = nullptr;
  const uint8_t* src = nullptr;
  const uint64_t* quant = nullptr;  // per-column parameters of V* modes, else nullptr
  aicore::DType dst_type = aicore::DType::kUnknown;
  aicore::DType src_type = aicore::DType::kUnknown;
  bool nz2nd = true;
  bool dst_gm = false;
  bool dst_peer_ub = false;  // dst is in the UB of the AIC's paired AIV (Note [L0C to UB])
  int atomic_mode = 0;
  FixpipeParamsV220 p;
  // Derived geometry.
  uint32_t n1 = 0;       // 16-column source fractal columns
  uint32_t dst_c0 = 16;  // NZ output: elements per fractal row
  uint32_t nd_num = 1;
};

// Checks the parameters for a Fixpipe from `src_type` to `dst_type` and fills the geometry of
// `job`; returns false for a no-op. `quant_elems` is the workspace size (elements, -1 without
// one). Sets *dst_bytes / *src_bytes to the bytes each side must hold.
bool PrepareFixpipe(FixpipeJob& job, int64_t quant_elems, bool dst_signed, uint64_t* dst_bytes,
                    uint64_t* src_bytes, const SrcLoc& loc);

// Fails unless this core may write the UB of a Fixpipe destination: an AIC with PeerUb() (a 1:1
// mix launch on a fixpipe_to_ub chip). `position` names the destination's TPosition.
void CheckFixpipeToUb(const char* position, const SrcLoc& loc);

// Fails unless the `dst_bytes` a Fixpipe writes from `dst` lie in the paired AIV's UB (after
// CheckFixpipeToUb): dst inside that UB on a 32-byte boundary, the write within the tensor
// (`elements`, `tensor_bytes`) and within the UB's size. Errors name the offset or byte range
// given and the range allowed, before any byte is written.
void CheckPeerUbRange(const uint8_t* dst, uint64_t dst_bytes, uint32_t elements,
                      uint64_t tensor_bytes, const SrcLoc& loc);

// Moves (and converts) the data of a prepared job.
void FixpipeMove(const FixpipeJob& job);

// The funnel record of a prepared job.
aicore::sim::Instr FixpipeInstr(aicore::sim::Core& core, const FixpipeJob& job, uint64_t dst_bytes,
                                uint64_t src_bytes, const SrcLoc& loc);

template <typename T, typename U>
inline constexpr bool kFixpipePair =
    (std::is_same_v<U, float> && (std::is_same_v<T, float> || std::is_same_v<T, aicore::half> ||
                                  std::is_same_v<T, aicore::bfloat16> ||
                                  std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>)) ||
    (std::is_same_v<U, int32_t> && (std::is_same_v<T, int32_t> || std::is_same_v<T, aicore::half> ||
                                    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>));

// The shared body of every Fixpipe overload.
template <typename T, typename U, const FixpipeConfig& config, typename Dst>
void FixpipeImpl(const Dst& dst, const LocalTensor<U>& src, const uint64_t* quant,
                 int64_t quant_elems, const FixpipeParamsV220& p, const SrcLoc& loc) {
  static_assert(kFixpipePair<T, U>,
                "Fixpipe converts float -> float/half/bfloat16_t/int8_t/uint8_t or int32_t -> "
                "int32_t/half/int8_t/uint8_t");
  auto& core = Core();
  FixpipeJob job;
  job.dst = reinterpret_cast<uint8_t*>(dst.data());
  job.src = reinterpret_cast<const uint8_t*>(src.data());
  job.quant = quant;
  job.dst_type = aicore::DTypeOf<T>();
  job.src_type = aicore::DTypeOf<U>();
  job.nz2nd = config.format == CO2Layout::ROW_MAJOR;
  job.p = p;
  uint64_t dst_bytes = 0;
  uint64_t src_bytes = 0;
  if (!PrepareFixpipe(job, quant_elems, std::is_signed_v<T>, &dst_bytes, &src_bytes, loc)) return;
  using aicore::arch::Buffer;
  CheckLocal(src, src_bytes, {Buffer::kL0C}, "Fixpipe", "src", loc);
  if constexpr (kIsGlobal<Dst>) {
    CheckGmExtent(dst, dst_bytes, "Fixpipe", "dst", loc);
    job.dst_gm = true;
    job.atomic_mode = core.atomic_mode;
  } else if (BufferOf(dst) == Buffer::kUb && !core.HasBuffer(Buffer::kUb)) {
    // L0C -> the paired AIV's UB (Note [L0C to UB]).
    CheckFixpipeToUb(aicore::arch::PositionName(ToArch(dst.GetPosition())), loc);
    dst.CheckLive("Fixpipe", loc);
    CheckPeerUbRange(job.dst, dst_bytes, dst.GetSize(), dst.bytes(), loc);
    job.dst_peer_ub = true;
  } else {
    CheckLocal(dst, dst_bytes, {Buffer::kL1, Buffer::kUb}, "Fixpipe", "dst", loc);
  }
  core.Execute(aicore::sim::Pipe::kFix, [job] { FixpipeMove(job); });
  AICORE_ISSUE(core, FixpipeInstr(core, job, dst_bytes, src_bytes, loc));
}

// Checks the per-column quantisation tensor of a V* mode and returns its data.
template <typename S>
const uint64_t* QuantTensor(const LocalTensor<S>& ws, const SrcLoc& loc) {
  using aicore::arch::Buffer;
  CheckLocal(ws, 0, {Buffer::kL1}, "Fixpipe", "cbufWorkspace", loc);
  return reinterpret_cast<const uint64_t*>(ws.data());
}

}  // namespace detail

// L0C (CO1) -> GM. T is the GM type, U the L0C type (float or int32_t).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
             const FixpipeParamsV220& intriParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::FixpipeImpl<T, U, config>(dst, src, nullptr, -1, intriParams, loc);
}

// L0C (CO1) -> GM with per-column quantisation parameters (VDEQF16, VQF322B8_PRE, VREQ8) read
// from `cbufWorkspace` in L1 (one uint64_t per output column).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR,
          typename S = uint64_t,
          typename std::enable_if<std::is_same_v<S, uint64_t>, bool>::type = true>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
             const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& intriParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::FixpipeImpl<T, U, config>(dst, src, detail::QuantTensor(cbufWorkspace, loc),
                                    cbufWorkspace.GetSize(), intriParams, loc);
}

// L0C (CO1) -> L1 (A1/B1/C1/TSCM), or -> UB (VECIN/VECOUT/VECCALC): on a chip with the L0C ->
// UB path (Chip::fixpipe_to_ub, arch 3510) the AIC of a 1:1 mix launch writes its AIV's UB, at
// the tensor's offset (Note [L0C to UB] in sim/core.h); elsewhere a UB destination is an error
// (FailedPrecondition) naming the chip and the paths it has.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
             const FixpipeParamsV220& intriParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::FixpipeImpl<T, U, config>(dst, src, nullptr, -1, intriParams, loc);
}

// L0C (CO1) -> L1/UB with per-column quantisation parameters from `cbufWorkspace` (L1).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR,
          typename S = uint64_t,
          typename std::enable_if<std::is_same_v<S, uint64_t>, bool>::type = true>
void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
             const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& intriParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::FixpipeImpl<T, U, config>(dst, src, detail::QuantTensor(cbufWorkspace, loc),
                                    cbufWorkspace.GetSize(), intriParams, loc);
}

}  // namespace AscendC
