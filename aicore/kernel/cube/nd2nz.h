// DataCopy GM -> L1 (A1/B1/C1/TSCM) or UB with ND -> NZ conversion on the fly (Nd2NzParams), on
// MTE2: rows of each ND matrix become rows of C0-byte (32 B) fractal columns, and a partial last
// C0 block of a row is zero-filled.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/copy/copy_common.h"

namespace AscendC {

// ND -> NZ copy parameters (ascendc-reference.md §3.2). Units: elements for ndNum/nValue/dValue,
// srcNdMatrixStride, srcDValue and dstNzMatrixStride; C0_SIZE (32 B) for dstNzC0Stride and
// dstNzNStride. Any of ndNum, nValue, dValue equal to 0 makes the copy a no-op.
struct Nd2NzParams {
  Nd2NzParams() = default;
  Nd2NzParams(uint16_t ndNumIn, uint16_t nValueIn, uint16_t dValueIn, uint16_t srcNdMatrixStrideIn,
              uint16_t srcDValueIn, uint16_t dstNzC0StrideIn, uint16_t dstNzNStrideIn,
              uint16_t dstNzMatrixStrideIn)
      : ndNum(ndNumIn),
        nValue(nValueIn),
        dValue(dValueIn),
        srcNdMatrixStride(srcNdMatrixStrideIn),
        srcDValue(srcDValueIn),
        dstNzC0Stride(dstNzC0StrideIn),
        dstNzNStride(dstNzNStrideIn),
        dstNzMatrixStride(dstNzMatrixStrideIn) {}
  uint16_t ndNum = 1;              // ND matrices, [0, 4095]
  uint16_t nValue = 0;             // rows per matrix, [0, 16384]
  uint16_t dValue = 0;             // columns per matrix, [0, 65535]
  uint16_t srcNdMatrixStride = 0;  // start-to-start distance of source matrices (elements)
  uint16_t srcDValue = 0;          // source row pitch (elements), [1, 65535]
  uint16_t dstNzC0Stride = 0;      // distance of adjacent C0 columns in dst (32 B), [1, 16384]
  uint16_t dstNzNStride = 0;       // distance of adjacent rows in dst (32 B), [1, 16384]
  uint16_t dstNzMatrixStride = 0;  // start-to-start distance of dst matrices (elements)
};

namespace detail {

// The byte geometry of one Nd2Nz copy.
struct Nd2NzShape {
  uint32_t esize = 0;  // bytes per element
  uint32_t nd_num = 0;
  uint32_t rows = 0;
  uint64_t row_bytes = 0;   // dValue * esize
  uint32_t blocks = 0;      // C0 blocks per row: ceil(row_bytes / 32)
  uint64_t src_matrix = 0;  // bytes between source matrices
  uint64_t src_row = 0;     // bytes between source rows
  uint64_t dst_c0 = 0;      // bytes between destination C0 columns
  uint64_t dst_row = 0;     // bytes between destination rows
  uint64_t dst_matrix = 0;  // bytes between destination matrices
  uint64_t src_span() const { return (nd_num - 1) * src_matrix + (rows - 1) * src_row + row_bytes; }
  uint64_t dst_span() const {
    return (nd_num - 1) * dst_matrix + (blocks - 1) * dst_c0 + (rows - 1) * dst_row + 32;
  }
};

// Checks `p` (ranges as documented) and returns its geometry for elements of `esize` bytes;
// returns blocks == 0 for a no-op.
Nd2NzShape MakeNd2NzShape(const Nd2NzParams& p, uint32_t esize, const SrcLoc& loc);

// Moves the bytes of an Nd2Nz copy (row-wise C0 block moves; partial blocks zero-filled).
void Nd2NzMove(uint8_t* dst, const uint8_t* src, const Nd2NzShape& s);

// The funnel record of an Nd2Nz copy on `pipe`.
aicore::sim::Instr Nd2NzInstr(aicore::sim::Core& core, aicore::DType dt, const void* dst,
                              const void* src, const Nd2NzShape& s, aicore::sim::Pipe pipe,
                              const SrcLoc& loc);

}  // namespace detail

// Copies `ndNum` ND matrices from GM into NZ layout in L1 (A1/B1/C1/TSCM) or UB. T is any 1-, 2-
// or 4-byte type (int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t,
// float). dst must be 32-byte aligned and hold every byte written; src must hold every byte read.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& intriParams,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "DataCopy with Nd2NzParams moves 1-, 2- or 4-byte elements");
  const detail::Nd2NzShape s = detail::MakeNd2NzShape(intriParams, sizeof(T), loc);
  if (s.blocks == 0) return;
  using aicore::arch::Buffer;
  detail::CheckLocal(dst, s.dst_span(), {Buffer::kL1, Buffer::kUb}, "DataCopy", "dst", loc);
  detail::CheckGmExtent(src, s.src_span(), "DataCopy", "src", loc);
  auto& core = detail::Core();
  auto* d = reinterpret_cast<uint8_t*>(dst.data());
  const auto* p = reinterpret_cast<const uint8_t*>(src.data());
  core.Execute(aicore::sim::Pipe::kMte2, [d, p, s] { detail::Nd2NzMove(d, p, s); });
  AICORE_ISSUE(
      core, detail::Nd2NzInstr(core, aicore::DTypeOf<T>(), d, p, s, aicore::sim::Pipe::kMte2, loc));
}

}  // namespace AscendC
