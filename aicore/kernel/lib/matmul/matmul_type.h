// The Matmul type vocabulary shared by kernels and host tiling: CubeFormat, MatmulType (where an
// operand lives, its format, element type and transpose flag) and MatmulConfig with the preset
// configurations CFG_NORM, CFG_MDL and MM_CFG_BB.
#pragma once

#include <cstdint>

#include "aicore/kernel/types.h"

// Matrix storage formats (CANN declares CubeFormat at global scope; kernels spell it unqualified).
enum class CubeFormat : uint8_t {
  ND = 0,  // row-major
  NZ,      // fractal Nz (ascendc-reference.md §3.3)
  ZN,
  ZZ,
  NN,
  ND_ALIGN,  // row-major with rows padded to 32 bytes
  SCALAR,
  VECTOR,  // one row (a bias or GEMV vector)
  ROW_MAJOR = ND,
  COLUMN_MAJOR = 8,
};

// Layouts of batched operands (BSNGD etc.); NONE for plain matrices.
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace AscendC {

// Describes one Matmul operand: position (GM, VECOUT/VECCALC in UB, TSCM in L1), storage
// format, element type, whether it is stored transposed, its batch layout, whether the two AIVs
// of a group share it, and where the data originally came from.
template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false,
          TPosition SRCPOS = TPosition::GM>
struct MatmulType {
  static constexpr TPosition pos = POSITION;
  static constexpr CubeFormat format = FORMAT;
  using T = TYPE;
  static constexpr bool isTrans = ISTRANS;
  static constexpr LayoutMode layout = LAYOUT;
  static constexpr bool ibShare = IBSHARE;
  static constexpr TPosition srcPos = SRCPOS;
};

// Matmul template configuration, accepted for source compatibility: the CPU Matmul runs the same
// loop for every configuration, with the block sizes of the TCubeTiling given to Init.
struct MatmulConfig {
  bool doNorm = false;
  bool doBasicBlock = false;
  bool doMultiDataLoad = false;
  uint32_t basicM = 0;
  uint32_t basicN = 0;
  uint32_t basicK = 0;
  bool intrinsicsCheck = false;
  bool isNBatch = false;
  bool enVecND2NZ = false;
  bool doSpecialBasicBlock = false;
  uint32_t doMTE2Preload = 0;
  uint32_t singleCoreM = 0;
  uint32_t singleCoreN = 0;
  uint32_t singleCoreK = 0;
  uint32_t stepM = 0;
  uint32_t stepN = 0;
  uint32_t baseMN = 0;
  uint32_t singleCoreMN = 0;
  bool enUnitFlag = true;
  bool isPerTensor = false;
  bool hasAntiQuantOffset = false;
  bool doIBShareNorm = false;
  bool doSpecialMDL = false;
  bool enableInit = true;
  bool enableEnd = true;
  bool enableGetTensorC = true;
  bool enableSetOffset = true;
  bool enableSetTail = true;
  bool enableQuantVector = true;
  bool enableSetDefineData = true;
};

// Returns the "Norm" configuration (the default template).
constexpr MatmulConfig GetNormalConfig() {
  MatmulConfig c;
  c.doNorm = true;
  return c;
}
// Returns the "MDL" configuration (several base blocks moved into L1 per GM load).
constexpr MatmulConfig GetMDLConfig() {
  MatmulConfig c;
  c.doMultiDataLoad = true;
  return c;
}
// Returns the basic-block configuration with fixed baseM/baseN/baseK.
constexpr MatmulConfig GetBasicConfig(uint32_t basic_m, uint32_t basic_n, uint32_t basic_k) {
  MatmulConfig c;
  c.doBasicBlock = true;
  c.basicM = basic_m;
  c.basicN = basic_n;
  c.basicK = basic_k;
  return c;
}
// Returns the configuration where the two AIVs of a group share the B matrix in L1.
constexpr MatmulConfig GetIBShareNormConfig() {
  MatmulConfig c;
  c.doIBShareNorm = true;
  return c;
}

inline constexpr MatmulConfig CFG_NORM = GetNormalConfig();
inline constexpr MatmulConfig CFG_MDL = GetMDLConfig();
inline constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(128, 128, 128);
inline constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();

}  // namespace AscendC
