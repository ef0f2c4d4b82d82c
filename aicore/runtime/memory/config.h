// Caching-allocator settings and their parser for AICORE_ALLOC_CONF, which uses PyTorch's
// PYTORCH_ALLOC_CONF syntax: comma-separated key:value pairs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "aicore/core/status.h"

namespace aicore::memory {

// Number of power-of-two intervals roundup_power2_divisions configures: [1 MiB, 2 MiB), ...,
// with the last one open-ended (PyTorch's kRoundUpPowerOfTwoIntervals).
inline constexpr int kRoundUpPowerOfTwoIntervals = 16;

struct AllocatorConfig {
  // Blocks of at least this size are never split; requests below it never take them.
  size_t max_split_size = std::numeric_limits<size_t>::max();
  // An oversize request may take a cached oversize block of at most request + this.
  size_t max_non_split_rounding_size = 20u << 20;
  // GC starts when reserved memory exceeds this fraction of the allowed maximum; 0 is off.
  double garbage_collection_threshold = 0.0;
  // Grow per-stream segments page by page inside a reserved address range.
  bool expandable_segments = false;
  // Divisions per power-of-two interval for rounding requests above 1 MiB; 0 or 1 is off.
  std::array<size_t, kRoundUpPowerOfTwoIntervals> roundup_power2_divisions{};
  // aicore-specific: touch every page of a new segment so later first use does not fault.
  bool prefault = false;

  // Returns the settings as "key:value,..." (the syntax ParseAllocatorConfig accepts).
  std::string ToString() const;
};

// Parses `text` ("max_split_size_mb:128,expandable_segments:True"). Keys: max_split_size_mb (> 20),
// max_non_split_rounding_mb (>= 0), garbage_collection_threshold (in (0, 1)),
// expandable_segments and prefault (True/False), roundup_power2_divisions (a power of two, or a
// list "[256:1,512:2,>:4]" keyed by interval start in MiB). Empty text gives the defaults.
// Returns an InvalidArgument status naming the key and the bad value, or unknown keys.
Status ParseAllocatorConfig(std::string_view text, AllocatorConfig* config);

// Returns the config in AICORE_ALLOC_CONF (defaults if unset); throws aicore::Error if malformed.
AllocatorConfig AllocatorConfigFromEnv();

}  // namespace aicore::memory
