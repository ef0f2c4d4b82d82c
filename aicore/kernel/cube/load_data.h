// LoadData (2-D) and LoadDataWithTranspose: moves 512-byte fractals from L1 (A1/B1) or GM into
// L0A (A2) / L0B (B2), or from GM into L1, writing the L0 intra-fractal order of l0_layout.h.
// MTE1 when the source is L1, MTE2 when it is GM.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/cube/l0_layout.h"

namespace AscendC {

// Parameters of the 2-D LoadData (ascendc-reference.md §3.2). Units are 512-byte fractals.
struct LoadData2DParams {
  LoadData2DParams() = default;
  LoadData2DParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn,
                   uint8_t sidIn, uint16_t dstGapIn, bool ifTransposeIn, uint8_t addrModeIn)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        sid(sidIn),
        dstGap(dstGapIn),
        ifTranspose(ifTransposeIn),
        addrMode(addrModeIn) {}
  uint16_t startIndex = 0;   // first source fractal
  uint8_t repeatTimes = 0;   // fractals moved, [0, 255]; 0 is a no-op
  uint16_t srcStride = 0;    // start-to-start distance of source fractals; 0 repeats one fractal
  uint8_t sid = 0;           // reserved
  uint16_t dstGap = 0;       // gap from one destination fractal's end to the next one's start
  bool ifTranspose = false;  // transpose each 16 x 16 fractal (16-bit types, L1 source only)
  uint8_t addrMode = 0;      // 0: source fractals ascend from startIndex; 1: they descend
};
// The spelling of LoadData2DParams in older samples and in the LoadDataWithSparse documentation.
using LoadData2dParams = LoadData2DParams;

// Parameters of LoadDataWithTranspose. A "square" is the unit one repeat transposes: one 16 x 16
// fractal for 16-bit types, two adjacent fractals for 32-bit (16 x 8 each, side by side) and
// 8-bit types (16 x 32 each, stacked); startIndex and srcStride count squares, dstGap and
// dstFracGap count 512-byte fractals.
struct LoadData2dTransposeParams {
  LoadData2dTransposeParams() = default;
  LoadData2dTransposeParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn,
                            uint16_t dstGapIn, uint16_t dstFracGapIn, uint8_t addrModeIn = 0)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        dstGap(dstGapIn),
        dstFracGap(dstFracGapIn),
        addrMode(addrModeIn) {}
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint16_t dstGap = 0;      // from the end of one repeat's first fractal to the next one's start
  uint16_t dstFracGap = 0;  // between the two fractals of one repeat (32- and 8-bit types)
  uint8_t addrMode = 0;
};

namespace detail {

// Where LoadData writes: L1 (documented layout, a plain copy), L0A or L0B (see l0_layout.h).
enum class LoadDst : uint8_t { kL1, kL0A, kL0B };

// One LoadData call in bytes and fractals.
struct LoadJob {
  uint32_t esize = 0;  // bytes per element
  l0::BOrder b_order = l0::BOrder::kKMajor;
  LoadDst dst_kind = LoadDst::kL1;
  uint32_t repeat = 0;
  uint32_t fracs_per_repeat = 1;  // 2 for 32- and 8-bit LoadDataWithTranspose
  bool transpose = false;
  int64_t src_first = 0;            // byte offset of the first repeat's source
  int64_t src_step = 0;             // bytes between repeats' sources (may be <= 0)
  uint64_t dst_step = 0;            // bytes between repeats' first destination fractals
  uint64_t dst_frac_step = 512;     // bytes between the fractals of one repeat
  uint64_t src_lo = 0, src_hi = 0;  // source bytes touched: [src_lo, src_hi)
  uint64_t dst_hi = 0;              // destination bytes touched: [0, dst_hi)
};

// Moves the fractals of `job` from src to dst (pointers to the tensors' starts).
void LoadFractals(uint8_t* dst, const uint8_t* src, const LoadJob& job);

// Fills the geometry of a job from its repeat parameters; fails on a descending source that
// goes below 0.
void PlanLoad(LoadJob& job, const char* api, uint32_t start, uint32_t src_stride, uint32_t dst_gap,
              uint32_t dst_frac_gap, uint8_t addr_mode, const SrcLoc& loc);

template <typename T>
LoadDst LoadDstOf(const LocalTensor<T>& dst, bool src_is_gm, const char* api, const SrcLoc& loc) {
  using aicore::arch::Buffer;
  const Buffer b = BufferOf(dst);
  if (b == Buffer::kL0A) return LoadDst::kL0A;
  if (b == Buffer::kL0B) return LoadDst::kL0B;
  if (b == Buffer::kL1 && src_is_gm) return LoadDst::kL1;
  Fail(StatusCode::kInvalidArgument, api, loc, "dst is a ",
       aicore::arch::PositionName(ToArch(dst.GetPosition())), " tensor in ",
       aicore::arch::BufferName(b), "; LoadData writes A2 (L0A) or B2 (L0B)",
       src_is_gm ? ", or A1/B1 (L1) from GM" : " from A1/B1 (L1)");
}

// Checks the destination: position, alignment (L0: 512 B) and size.
template <typename T>
void CheckLoadDst(const LocalTensor<T>& dst, const LoadJob& job, const char* api,
                  const SrcLoc& loc) {
  using aicore::arch::Buffer;
  CheckLocal(dst, job.dst_hi, {Buffer::kL0A, Buffer::kL0B, Buffer::kL1}, api, "dst", loc);
  if (job.dst_kind != LoadDst::kL1) {
    const uint64_t off = Core().Locate(dst.data(), 0).offset;
    if (off % l0::kFractalBytes != 0) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, api, loc, "dst starts at ",
           aicore::arch::BufferName(BufferOf(dst)), " offset ", off,
           ", not on a 512-byte fractal boundary (L0A/L0B need 512-B alignment)");
    }
  }
}

template <typename T>
void CheckLoadSrc(const LocalTensor<T>& src, const LoadJob& job, const char* api,
                  const SrcLoc& loc) {
  CheckLocal(src, job.src_hi, {aicore::arch::Buffer::kL1}, api, "src", loc);
}
template <typename T>
void CheckLoadSrc(const GlobalTensor<T>& src, const LoadJob& job, const char* api,
                  const SrcLoc& loc) {
  CheckGmExtent(src, job.src_hi, api, "src", loc);
}

template <typename Src>
void RunLoad(const LocalTensor<typename Src::PrimType>& dst, const Src& src, const LoadJob& job,
             const char* api, const SrcLoc& loc) {
  using T = typename Src::PrimType;
  CheckLoadDst(dst, job, api, loc);
  CheckLoadSrc(src, job, api, loc);
  auto& core = Core();
  auto* d = reinterpret_cast<uint8_t*>(dst.data());
  const auto* s = reinterpret_cast<const uint8_t*>(src.data());
  constexpr auto kPipe = kIsGlobal<Src> ? aicore::sim::Pipe::kMte2 : aicore::sim::Pipe::kMte1;
  core.Execute(kPipe, [d, s, job] { LoadFractals(d, s, job); });
  const uint32_t frac_count = job.repeat * job.fracs_per_repeat;
  // Two-fractal repeats interleave; their destination is recorded as one contiguous range.
  const aicore::sim::Stride dst_stride =
      job.fracs_per_repeat == 1
          ? aicore::sim::Stride{frac_count, l0::kFractalBytes, job.dst_step}
          : aicore::sim::Stride{1, static_cast<uint32_t>(job.dst_hi), job.dst_hi};
  const uint64_t src_bytes = job.src_hi - job.src_lo;
  AICORE_ISSUE(core, CopyInstr(core, api, kPipe, aicore::DTypeOf<T>(), d, job.dst_hi,
                               s + job.src_lo, src_bytes, uint64_t{frac_count} * l0::kFractalBytes,
                               dst_stride, {1, static_cast<uint32_t>(src_bytes), src_bytes}, loc));
}

template <typename Src>
void LoadData2D(const LocalTensor<typename Src::PrimType>& dst, const Src& src,
                const LoadData2DParams& p, const SrcLoc& loc) {
  using T = typename Src::PrimType;
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "LoadData moves 1-, 2- or 4-byte elements");
  constexpr const char* kApi = "LoadData";
  dst.CheckLive(kApi, loc);
  if (p.repeatTimes == 0) return;
  LoadJob job;
  job.esize = sizeof(T);
  job.b_order = l0::BOrderOf<T>();
  job.dst_kind = LoadDstOf(dst, kIsGlobal<Src>, kApi, loc);
  job.repeat = p.repeatTimes;
  job.transpose = p.ifTranspose;
  if (p.ifTranspose) {
    if (sizeof(T) != 2) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, kApi, loc,
           "ifTranspose is documented for 16-bit types "
           "only, got ",
           sizeof(T), "-byte ", aicore::DTypeName(aicore::DTypeOf<T>()),
           " elements; use LoadDataWithTranspose for 32- and 8-bit types");
    }
    if (kIsGlobal<Src> || job.dst_kind == LoadDst::kL1) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, kApi, loc,
           "ifTranspose is documented for the L1 -> L0A/L0B paths only");
    }
  }
  PlanLoad(job, kApi, p.startIndex, p.srcStride, p.dstGap, 0, p.addrMode, loc);
  RunLoad(dst, src, job, kApi, loc);
}

}  // namespace detail

// Loads `repeatTimes` 512-byte fractals from L1 (A1/B1) into L0A (A2) or L0B (B2): source
// fractal i is startIndex + i*srcStride (addrMode 1: minus), destination fractal i starts
// i*(1 + dstGap) fractals after dst. dst must be 512-byte aligned. Pipe MTE1.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LoadData2DParams& loadDataParams,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::LoadData2D(dst, src, loadDataParams, loc);
}

// As above from GM (GM -> A1/B1/A2/B2), on MTE2; ifTranspose is not available.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
              const LoadData2DParams& loadDataParams,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::LoadData2D(dst, src, loadDataParams, loc);
}

// Loads and transposes squares from L1 (A1/B1) into L0A/L0B (see LoadData2dTransposeParams). For
// 16-bit types each repeat transposes one 16 x 16 fractal. For 32-bit types two adjacent 16 x 8
// source fractals F0|F1 form a 16 x 16 square S; the repeat writes the two 16 x 8 fractals of
// S^T (columns 0-7 of S^T, then 8-15), dstFracGap fractals apart. For 8-bit types two adjacent
// 16 x 32 fractals stacked [F0; F1] form a 32 x 32 square; the repeat writes rows 0-15 and 16-31
// of its transpose. Pipe MTE1.
template <typename T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LoadData2dTransposeParams& loadDataParams,
                           detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "LoadDataWithTranspose moves 1-, 2- or 4-byte elements");
  constexpr const char* kApi = "LoadDataWithTranspose";
  dst.CheckLive(kApi, loc);
  const auto& p = loadDataParams;
  if (p.repeatTimes == 0) return;
  detail::LoadJob job;
  job.esize = sizeof(T);
  job.b_order = detail::l0::BOrderOf<T>();
  job.dst_kind = detail::LoadDstOf(dst, false, kApi, loc);
  job.repeat = p.repeatTimes;
  job.transpose = true;
  job.fracs_per_repeat = sizeof(T) == 2 ? 1 : 2;
  detail::PlanLoad(job, kApi, p.startIndex, p.srcStride, p.dstGap, p.dstFracGap, p.addrMode, loc);
  detail::RunLoad(dst, src, job, kApi, loc);
}

}  // namespace AscendC
