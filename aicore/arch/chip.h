// Chip descriptions as data: per-core buffer sizes and alignment, how AscendC positions map to
// physical buffers, core counts and mode, and the pipe cost constants the timing model uses. The
// presets ship as JSON in aicore/arch/presets/ (each figure with its source) and are compiled in;
// a user file with the same schema can be loaded instead.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aicore/core/status.h"

namespace aicore::arch {

// Physical memories. GM is shared by all cores; the rest exist once per core.
enum class Buffer : uint8_t { kGm, kUb, kL1, kL0A, kL0B, kL0C, kBt, kFb, kNone };
inline constexpr int kBufferCount = 8;

// AscendC's TPosition values, in the same order (the kernel layer's TPosition casts to this).
enum class Position : uint8_t {
  kGm, kA1, kA2, kB1, kB2, kC1, kC2, kCo1, kCo2, kVecIn, kVecOut, kVecCalc, kSpm, kTscm,
  kC2Pipe2Gm, kC2Pipe2Local,
};
inline constexpr int kPositionCount = 16;

// Returns "GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB".
const char* BufferName(Buffer b);
// Returns the AscendC spelling: "GM", "A1", ..., "VECIN", "VECOUT", "VECCALC", ...
const char* PositionName(Position p);

enum class CoreMode : uint8_t { kSplit, kCoupled };

struct BufferSpec {
  uint64_t bytes = 0;  // capacity per core; 0 means the chip has no such buffer
  uint32_t align = 32; // required start alignment in bytes
};

struct Chip {
  std::string name;         // preset name, e.g. "ascend910b1"
  std::string soc_version;  // e.g. "Ascend910B1"
  int npu_arch = 0;         // __NPU_ARCH__: 1001, 2002, 2201, ...
  CoreMode core_mode = CoreMode::kSplit;
  int aic_count = 0;        // cube cores (AI Cores on coupled chips)
  int aiv_count = 0;        // vector cores (0 on coupled chips)
  double clock_mhz = 0;
  int event_ids = 8;        // hardware event IDs per pipe pair
  std::array<BufferSpec, kBufferCount> buffers{};
  std::array<Buffer, kPositionCount> position_buffer{};
  uint64_t hbm_bytes = 0;
  double hbm_gbps = 0;
  uint64_t l2_bytes = 0;
  // Optional data paths ("capabilities" in the description; absent: false).
  // Fixpipe can write L0C into the UB of the AIC's paired AIV (arch 3510). See Note [L0C to UB].
  bool fixpipe_to_ub = false;
  // The cube multiplies FLOAT (fp32) inputs into a FLOAT result (Atlas A2 and later: arch 2201,
  // 3002, 3510); without it FLOAT matmuls must go down to FLOAT16 (cubeMathType 1 or 2).
  bool cube_fp32 = false;
  nlohmann::json pipes;     // cost constants for the timing model, with their sources
  nlohmann::json raw;       // the whole description as loaded

  const BufferSpec& spec(Buffer b) const { return buffers[static_cast<int>(b)]; }
  Buffer BufferOf(Position p) const { return position_buffer[static_cast<int>(p)]; }
  bool split() const { return core_mode == CoreMode::kSplit; }
};

// Returns the names of the compiled-in presets, default first.
std::vector<std::string> PresetNames();
// Parses a chip description from JSON text; errors name the field and the value.
Chip ParseChip(std::string_view json_text, std::string_view origin);
// Loads a preset by name, or a JSON file when `name_or_path` ends in .json or contains '/'.
// Throws aicore::Error (NotFound) listing the presets when neither exists.
Chip LoadChip(std::string_view name_or_path);
// Returns the chip kernels run on unless a launch names another: AICORE_CHIP if set, else
// the build's default (SetBuildDefaultChip), else ascend910b1. Loaded once.
const Chip& DefaultChip();

// Makes `name` (a preset or a file) the chip DefaultChip() loads when AICORE_CHIP is unset: what
// a build configured for one SoC sets (tikicpulib::<SoC>, see cmake/tikicpulib). Takes effect
// only before DefaultChip()'s first call; later calls are ignored.
void SetBuildDefaultChip(const char* name);

}  // namespace aicore::arch
