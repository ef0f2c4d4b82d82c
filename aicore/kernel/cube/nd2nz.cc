// The ND -> NZ copy (DataCopy with Nd2NzParams): parameter checks, the byte mover and its funnel
// record.
//
// The mover works on bands of up to 16 source rows:
// - for each full C0 block column k, the band's rows are copied as 32-byte moves; with the usual
//   dstNzNStride = 1 the band lands as one contiguous run of 16 x 32 B in the destination while
//   the reads advance along 16 source rows at once (measured best among bands of 2..64 rows and
//   two-block steps on a 128 x 1024 fp32 panel, benchmarks/cube_copy_bench.cc);
// - the moves are single 32-byte vector loads/stores on AVX2 machines (one copy of the loop is
//   compiled for AVX2 and chosen at run time from aicore::ActiveIsa(), so AICORE_ISA lowers it);
// - the partial last block of each row (dValue * sizeof(T) not a multiple of 32) is copied and
//   its tail zero-filled.
#include "aicore/kernel/cube/nd2nz.h"

#include <algorithm>
#include <cstring>

#include "aicore/core/cpu.h"

namespace AscendC::detail {

namespace {

constexpr uint64_t kC0 = 32;        // C0_SIZE in bytes
constexpr uint32_t kBandRows = 16;  // rows moved per band (one fractal's height)

inline void Move32(uint8_t* dst, const uint8_t* src) { std::memcpy(dst, src, kC0); }

}  // namespace

Nd2NzShape MakeNd2NzShape(const Nd2NzParams& p, uint32_t esize, const SrcLoc& loc) {
  Nd2NzShape s;
  if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return s;
  if (p.ndNum > 4095) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc, "Nd2NzParams.ndNum=", p.ndNum,
         " is outside [0, 4095]");
  }
  if (p.nValue > 16384) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc, "Nd2NzParams.nValue=", p.nValue,
         " is outside [0, 16384]");
  }
  if (p.srcDValue == 0) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc,
         "Nd2NzParams.srcDValue=0 is outside [1, 65535] (it is the source row pitch in "
         "elements)");
  }
  if (p.dstNzC0Stride == 0 || p.dstNzC0Stride > 16384) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc,
         "Nd2NzParams.dstNzC0Stride=", p.dstNzC0Stride, " is outside [1, 16384] (32-byte units)");
  }
  if (p.dstNzNStride == 0 || p.dstNzNStride > 16384) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc, "Nd2NzParams.dstNzNStride=", p.dstNzNStride,
         " is outside [1, 16384] (32-byte units)");
  }
  s.esize = esize;
  s.nd_num = p.ndNum;
  s.rows = p.nValue;
  s.row_bytes = uint64_t{p.dValue} * esize;
  s.blocks = static_cast<uint32_t>((s.row_bytes + kC0 - 1) / kC0);
  s.src_matrix = uint64_t{p.srcNdMatrixStride} * esize;
  s.src_row = uint64_t{p.srcDValue} * esize;
  s.dst_c0 = uint64_t{p.dstNzC0Stride} * kC0;
  s.dst_row = uint64_t{p.dstNzNStride} * kC0;
  s.dst_matrix = uint64_t{p.dstNzMatrixStride} * esize;
  return s;
}

namespace {

// The mover's body, inlined into one function per instruction set so the fixed-size moves become
// single vector loads and stores where the CPU has them.
__attribute__((always_inline)) inline void MoveBody(uint8_t* dst, const uint8_t* src,
                                                    const Nd2NzShape& s) {
  const uint32_t full = static_cast<uint32_t>(s.row_bytes / kC0);
  const uint64_t tail = s.row_bytes % kC0;
  for (uint32_t i = 0; i < s.nd_num; ++i) {
    const uint8_t* src_m = src + i * s.src_matrix;
    uint8_t* dst_m = dst + i * s.dst_matrix;
    for (uint32_t r0 = 0; r0 < s.rows; r0 += kBandRows) {
      const uint32_t band = std::min(kBandRows, s.rows - r0);
      const uint8_t* src_b = src_m + r0 * s.src_row;
      uint8_t* dst_b = dst_m + r0 * s.dst_row;
      for (uint32_t k = 0; k < full; ++k) {
        const uint8_t* sp = src_b + k * kC0;
        uint8_t* dp = dst_b + k * s.dst_c0;
        for (uint32_t r = 0; r < band; ++r) Move32(dp + r * s.dst_row, sp + r * s.src_row);
      }
      if (tail != 0) {
        const uint8_t* sp = src_b + full * kC0;
        uint8_t* dp = dst_b + full * s.dst_c0;
        for (uint32_t r = 0; r < band; ++r) {
          std::memcpy(dp + r * s.dst_row, sp + r * s.src_row, tail);
          std::memset(dp + r * s.dst_row + tail, 0, kC0 - tail);
        }
      }
    }
  }
}

void MovePortable(uint8_t* dst, const uint8_t* src, const Nd2NzShape& s) { MoveBody(dst, src, s); }

#if defined(__x86_64__)
__attribute__((target("avx2"))) void MoveAvx2(uint8_t* dst, const uint8_t* src,
                                              const Nd2NzShape& s) {
  MoveBody(dst, src, s);
}
#endif

}  // namespace

void Nd2NzMove(uint8_t* dst, const uint8_t* src, const Nd2NzShape& s) {
#if defined(__x86_64__)
  static const bool avx2 = aicore::ActiveIsa() >= aicore::Isa::kAvx2;
  if (avx2) return MoveAvx2(dst, src, s);
#endif
  MovePortable(dst, src, s);
}

aicore::sim::Instr Nd2NzInstr(aicore::sim::Core& core, aicore::DType dt, const void* dst,
                              const void* src, const Nd2NzShape& s, aicore::sim::Pipe pipe,
                              const SrcLoc& loc) {
  const uint64_t written = uint64_t{s.nd_num} * s.rows * s.blocks * kC0;
  // A single matrix with rows packed in the destination (dstNzNStride = 1) is exactly `blocks`
  // runs of rows*32 B; a single matrix is read as `rows` runs of row_bytes. Anything else is
  // described by its span with the byte count of the moved data.
  aicore::sim::Stride dst_stride{1, static_cast<uint32_t>(written), written};
  if (s.nd_num == 1 && s.dst_row == kC0 && s.blocks > 1 && s.dst_c0 >= s.rows * kC0) {
    dst_stride = {s.blocks, static_cast<uint32_t>(s.rows * kC0), s.dst_c0};
  }
  aicore::sim::Stride src_stride{1, static_cast<uint32_t>(s.src_span()), s.src_span()};
  if (s.nd_num == 1 && s.rows > 1 && s.src_row > s.row_bytes) {
    src_stride = {s.rows, static_cast<uint32_t>(s.row_bytes), s.src_row};
  }
  aicore::sim::Instr in = CopyInstr(core, "DataCopy", pipe, dt, dst, s.dst_span(), src,
                                    s.src_span(), written, dst_stride, src_stride, loc);
  return in;
}

}  // namespace AscendC::detail
