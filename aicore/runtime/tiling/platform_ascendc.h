// Host-side platform information the AscendC way: platform_ascendc::PlatformAscendC answers core
// counts, per-core buffer sizes and the SoC version from an aicore chip preset, and
// PlatformAscendCManager::GetInstance(socVersion) hands out one object per SoC.
#pragma once

#include <cstdint>

#include "aicore/arch/chip.h"

namespace fe {
// The platform description CANN's tiling context hands to PlatformAscendC. Here it only names
// the chip: a preset name ("ascend910b1") or a SoC version ("Ascend910B1"); empty means the
// default chip.
struct PlatFormInfos {
  const char* soc = nullptr;
};
}  // namespace fe

namespace platform_ascendc {

enum class CoreMemType {
  L0_A = 0,
  L0_B = 1,
  L0_C = 2,
  L1 = 3,
  L2 = 4,
  UB = 5,
  HBM = 6,
  FB = 7,
  BT = 8,
  RESERVED
};

enum class SocVersion {
  ASCEND910 = 0,  // Ascend910A/B (arch 1001)
  ASCEND910B,     // Ascend910B1..B4, Ascend910_93 (arch 2201)
  ASCEND310P,     // arch 2002
  ASCEND310B,     // arch 3002
  ASCEND910_95,   // arch 3510
  RESERVED_VERSION = 99999,
};

class PlatformAscendC {
 public:
  // Describes aicore::arch::DefaultChip() (AICORE_CHIP or ascend910b1).
  PlatformAscendC();
  // Describes the chip `info` names (nullptr or an empty name: the default chip). Throws
  // aicore::Error (NotFound) listing the presets when the name is unknown.
  explicit PlatformAscendC(const fe::PlatFormInfos* info);
  explicit PlatformAscendC(const aicore::arch::Chip& chip);

  // Returns the cores a vector or mixed kernel spreads over: the AIV count on split chips, the AI
  // Core count on coupled ones.
  uint32_t GetCoreNum() const;
  // Returns the cube cores (AI Cores on coupled chips).
  uint32_t GetCoreNumAic() const;
  // Returns the vector cores (AI Cores on coupled chips).
  uint32_t GetCoreNumAiv() const;
  // Returns the separate vector cores of coupled inference chips (0 here).
  uint32_t GetCoreNumVector() const { return 0; }
  // Sets `size` to the bytes of `mem_type` per core (L2 and HBM: per chip); 0 when absent.
  void GetCoreMemSize(CoreMemType mem_type, uint64_t& size) const;
  SocVersion GetSocVersion() const;
  // Returns the system workspace the Matmul and other library APIs need (bytes): 16 MiB on 2201,
  // 2 MiB otherwise (the RESERVED_WORKSPACE of the AscendC docs).
  uint32_t GetLibApiWorkSpaceSize() const;
  // Returns the blockDim for `slice_num` slices: on split chips with both core kinds used, the
  // number of AIC-AIV groups; else min(slice_num, cores).
  uint32_t CalcTschBlockDim(uint32_t slice_num, uint32_t aic_core_num, uint32_t aiv_core_num) const;

  // --- aicore internals ---
  const aicore::arch::Chip& chip() const { return chip_; }

 private:
  aicore::arch::Chip chip_;
};

class PlatformAscendCManager {
 public:
  // Returns the platform of the default chip (never nullptr).
  static PlatformAscendC* GetInstance();
  // Returns the platform of `custom_soc_version` ("Ascend910B1", "Ascend310P3", or an aicore
  // preset name), or nullptr with a logged reason when no preset matches.
  static PlatformAscendC* GetInstance(const char* custom_soc_version);
};

}  // namespace platform_ascendc
