// The vocabulary of AscendC kernels: qualifier macros, GM_ADDR, TPosition, pipes, hardware events,
// and the element-type names kernels use (half, bfloat16_t), in namespace AscendC with the old
// tik2 spelling as a namespace that sees it.
#pragma once

#include <cstdint>

#include "aicore/arch/chip.h"
#include "aicore/core/dtype.h"

// Qualifiers are empty on the CPU, as in CANN's CPU debug mode.
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef __fbuf__
#define __fbuf__
#endif
#ifndef __vector__
#define __vector__
#endif
#ifndef __cube__
#define __cube__
#endif
#ifndef __mix__
#define __mix__(c, v)
#endif
#ifndef __schedmode__
#define __schedmode__(m)
#endif
#ifndef __kfc_workspace__
#define __kfc_workspace__
#endif
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif

using half = aicore::half;
using bfloat16_t = aicore::bfloat16;

// Pipes (a builtin enum in the bisheng compiler).
enum pipe_t : uint8_t {
  PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX,
};

// Hardware event IDs (a builtin enum in the bisheng compiler).
enum event_t : int32_t {
  EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
};

// How CANN's CPU mode maps a launch's blocks to cores (AscendC::SetKernelMode). A global-namespace
// enum with four values, so `KernelMode::AIV_MODE` works unqualified.
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };

namespace AscendC {

using ::KernelMode;

enum class TPosition : uint8_t {
  GM = 0, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, SPM, TSCM, C2PIPE2GM,
  C2PIPE2LOCAL, MAX,
  LCM = VECCALC,
  SHM = SPM,
};
using QuePosition = TPosition;

// SetFlag/WaitFlag event kinds, named source_destination.
enum class HardEvent : uint8_t {
  MTE2_MTE1 = 0, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
  MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V,
  V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX,
  FIX_MTE1, FIX_FIX, M_MTE3, MTE3_M, MAX,
};

enum class RoundMode : uint8_t {
  CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD,
};
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class CacheMode : uint8_t { CACHE_MODE_NORMAL = 0, CACHE_MODE_DISABLE, CACHE_MODE_LAST };

enum CoreType : uint8_t { AIC = 1, AIV = 2 };

inline constexpr int32_t ONE_BLK_SIZE = 32;          // bytes in a DataBlock
inline constexpr int32_t DEFAULT_BLK_NUM = 8;        // DataBlocks per repeat
inline constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256; // bytes per repeat
inline constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
inline constexpr int32_t MAX_REPEAT_TIMES = 255;
inline constexpr uint64_t MASK_PLACEHOLDER = 0;
inline constexpr int32_t QUE_MAX_EVENT = 8;
inline constexpr int32_t DEFAULT_C0_SIZE = 32;       // bytes in one C0 (a DataBlock): copy units

// Returns the physical-buffer position in the arch layer's terms.
constexpr aicore::arch::Position ToArch(TPosition p) {
  return static_cast<aicore::arch::Position>(static_cast<uint8_t>(p));
}

}  // namespace AscendC

// The 2023 samples' namespace: a real namespace (user code may reopen it) that sees every AscendC
// name, declared before or after this point.
namespace tik2 {
using namespace AscendC;  // NOLINT(build/namespaces): tik2 is AscendC's old spelling
}  // namespace tik2
