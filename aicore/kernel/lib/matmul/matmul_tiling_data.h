// TCubeTiling: the Matmul tiling parameters the host computes (matmul_tiling::MatmulApiTiling) and
// the kernel's Matmul object consumes, as a plain struct of int32 fields in documented order.
#pragma once

#include <cstdint>

namespace AscendC::tiling {

// Every field is an int32 in elements unless noted; the meanings follow the AscendC TCubeTiling
// documentation (ascendc-reference.md §5.3).
struct TCubeTiling {
  int32_t usedCoreNum = 0;  // cores (blocks) the split uses
  int32_t M = 0;            // original problem: A is M x Ka, B is Kb x N
  int32_t N = 0;
  int32_t Ka = 0;
  int32_t Kb = 0;
  int32_t singleCoreM = 0;  // one core's share of C (singleCoreM x singleCoreN) and of K
  int32_t singleCoreN = 0;
  int32_t singleCoreK = 0;
  int32_t baseM = 0;  // one Mmad: (baseM x baseK) x (baseK x baseN), in L0A/L0B/L0C
  int32_t baseN = 0;
  int32_t baseK = 0;
  int32_t depthA1 = 0;       // base blocks (baseM x baseK) of A held in L1
  int32_t depthB1 = 0;       // base blocks (baseK x baseN) of B held in L1
  int32_t stepM = 0;         // one L1 panel of A spans stepM x stepKa base blocks
  int32_t stepN = 0;         // one L1 panel of B spans stepKb x stepN base blocks
  int32_t isBias = 0;        // 1: C = A*B + bias
  int32_t transLength = 0;   // scratch bytes for format conversion (0: none needed)
  int32_t iterateOrder = 0;  // 0: Iterate moves along M first; 1: along N first
  int32_t shareMode = 0;
  int32_t shareL1Size = 0;   // bytes of L1 the Matmul uses
  int32_t shareL0CSize = 0;  // bytes of L0C the Matmul uses
  int32_t shareUbSize = 0;
  int32_t batchM = 1;
  int32_t batchN = 1;
  int32_t singleBatchM = 1;
  int32_t singleBatchN = 1;
  int32_t stepKa = 0;
  int32_t stepKb = 0;
  int32_t depthAL1CacheUB = 0;
  int32_t depthBL1CacheUB = 0;
  int32_t dbL0A = 1;  // 2: L0A holds two base blocks (ping-pong)
  int32_t dbL0B = 1;
  int32_t dbL0C = 1;
  int32_t ALayoutInfoB = 0;
  int32_t ALayoutInfoS = 0;
  int32_t ALayoutInfoN = 0;
  int32_t ALayoutInfoG = 0;
  int32_t ALayoutInfoD = 0;
  int32_t BLayoutInfoB = 0;
  int32_t BLayoutInfoS = 0;
  int32_t BLayoutInfoN = 0;
  int32_t BLayoutInfoG = 0;
  int32_t BLayoutInfoD = 0;
  int32_t CLayoutInfoB = 0;
  int32_t CLayoutInfoS1 = 0;
  int32_t CLayoutInfoN = 0;
  int32_t CLayoutInfoG = 0;
  int32_t CLayoutInfoS2 = 0;
  int32_t BatchNum = 0;
  int32_t mxTypePara = 0;
};

}  // namespace AscendC::tiling

// Kernels written for CANN name the struct without a namespace (kernel_tiling.h).
using TCubeTiling = AscendC::tiling::TCubeTiling;
