// AICORE_ALLOC_CONF parsing: split on top-level commas (brackets may nest a list), then validate
// each key's value with PyTorch's limits. Unknown keys are errors, as in torch_npu.
#include "aicore/runtime/memory/config.h"

#include <bit>
#include <charconv>
#include <cstdlib>
#include <vector>

#include "aicore/core/env.h"

namespace aicore::memory {
namespace {

constexpr size_t kMiB = 1u << 20;
// The smallest interval starts at 1 MiB; more than 2048 divisions of it would give steps below
// the 512-byte block granularity (and huge values overflow the rounding arithmetic).
constexpr uint64_t kMaxRoundupDivisions = 2048;
// Interval keys are MiB interval starts; above 2^40 MiB (1 EiB) they name no possible size.
constexpr uint64_t kMaxIntervalMb = uint64_t{1} << 40;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Status Bad(std::string_view key, std::string_view value, std::string_view allowed) {
  return Status(StatusCode::kInvalidArgument,
                StrCat("AICORE_ALLOC_CONF: bad value '", value, "' for ", key, ": ", allowed));
}

bool ParseUnsigned(std::string_view s, uint64_t* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool ParseDouble(std::string_view s, double* out) {
  s = Trim(s);
  if (s.empty()) return false;
  std::string copy(s);
  char* end = nullptr;
  *out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size();
}

bool ParseBool(std::string_view s, bool* out) {
  s = Trim(s);
  if (s == "True" || s == "true" || s == "1") {
    *out = true;
    return true;
  }
  if (s == "False" || s == "false" || s == "0") {
    *out = false;
    return true;
  }
  return false;
}

// Splits on commas outside brackets; an unbalanced bracket yields an empty result and sets *ok.
std::vector<std::string_view> SplitTopLevel(std::string_view s, bool* ok) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  *ok = true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[') ++depth;
    if (s[i] == ']' && --depth < 0) *ok = false;
    if (s[i] == ',' && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) *ok = false;
  parts.push_back(s.substr(start));
  return parts;
}

Status ParseRoundup(std::string_view value, AllocatorConfig* config) {
  constexpr std::string_view kAllowed =
      "expected a power of two up to 2048 (e.g. 4) or a list like [256:1,512:2,>:4] whose keys "
      "are power-of-two MiB interval starts and whose values are 0 or powers of two up to 2048";
  value = Trim(value);
  auto valid_divisions = [](uint64_t d) {
    return d == 0 || (std::has_single_bit(d) && d <= kMaxRoundupDivisions);
  };
  if (value.empty()) return Bad("roundup_power2_divisions", value, kAllowed);
  if (value.front() != '[') {
    uint64_t d = 0;
    if (!ParseUnsigned(value, &d) || !valid_divisions(d)) {
      return Bad("roundup_power2_divisions", value, kAllowed);
    }
    config->roundup_power2_divisions.fill(d);
    return Status::Ok();
  }
  if (value.back() != ']') return Bad("roundup_power2_divisions", value, kAllowed);
  bool ok = true;
  auto items = SplitTopLevel(value.substr(1, value.size() - 2), &ok);
  if (!ok) return Bad("roundup_power2_divisions", value, kAllowed);
  size_t next_index = 0;
  for (std::string_view item : items) {
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) return Bad("roundup_power2_divisions", value, kAllowed);
    std::string_view key = Trim(item.substr(0, colon));
    uint64_t d = 0;
    if (!ParseUnsigned(item.substr(colon + 1), &d) || !valid_divisions(d)) {
      return Bad("roundup_power2_divisions", value, kAllowed);
    }
    if (key == ">") {
      for (size_t i = next_index; i < config->roundup_power2_divisions.size(); ++i) {
        config->roundup_power2_divisions[i] = d;
      }
      next_index = config->roundup_power2_divisions.size();
      continue;
    }
    uint64_t mb = 0;
    if (!ParseUnsigned(key, &mb) || !std::has_single_bit(mb) || mb > kMaxIntervalMb) {
      return Bad("roundup_power2_divisions", value, kAllowed);
    }
    const size_t index = std::min<size_t>(std::countr_zero(mb), kRoundUpPowerOfTwoIntervals - 1);
    if (index < next_index) {
      return Bad("roundup_power2_divisions", value, "interval keys must increase");
    }
    // Intervals up to this key that were not named take its divisions.
    for (size_t i = next_index; i <= index; ++i) config->roundup_power2_divisions[i] = d;
    next_index = index + 1;
  }
  return Status::Ok();
}

}  // namespace

std::string AllocatorConfig::ToString() const {
  std::string out;
  if (max_split_size != std::numeric_limits<size_t>::max()) {
    out += StrCat("max_split_size_mb:", max_split_size / kMiB, ",");
  }
  out += StrCat("max_non_split_rounding_mb:", max_non_split_rounding_size / kMiB, ",");
  if (garbage_collection_threshold > 0) {
    out += StrCat("garbage_collection_threshold:", garbage_collection_threshold, ",");
  }
  out += StrCat("expandable_segments:", expandable_segments ? "True" : "False", ",");
  out += "roundup_power2_divisions:[";
  for (int i = 0; i < kRoundUpPowerOfTwoIntervals; ++i) {
    out += StrCat(i == 0 ? "" : ",",
                  i == kRoundUpPowerOfTwoIntervals - 1 ? std::string(">") : StrCat(1u << i), ":",
                  roundup_power2_divisions[i]);
  }
  out += StrCat("],prefault:", prefault ? "True" : "False");
  return out;
}

Status ParseAllocatorConfig(std::string_view text, AllocatorConfig* config) {
  AllocatorConfig result;
  text = Trim(text);
  if (text.empty()) {
    *config = result;
    return Status::Ok();
  }
  bool balanced = true;
  auto pairs = SplitTopLevel(text, &balanced);
  if (!balanced) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("AICORE_ALLOC_CONF: unbalanced brackets in '", text, "'"));
  }
  for (std::string_view pair : pairs) {
    pair = Trim(pair);
    if (pair.empty()) continue;
    const size_t colon = pair.find(':');
    if (colon == std::string_view::npos) {
      return Status(StatusCode::kInvalidArgument,
                    StrCat("AICORE_ALLOC_CONF: '", pair, "' is not a key:value pair"));
    }
    const std::string_view key = Trim(pair.substr(0, colon));
    const std::string_view value = Trim(pair.substr(colon + 1));
    if (key == "max_split_size_mb") {
      uint64_t mb = 0;
      // PyTorch requires more than kLargeBuffer (20 MiB) so mid-size segments stay splittable.
      if (!ParseUnsigned(value, &mb) || mb <= 20 || mb > (uint64_t{1} << 40)) {
        return Bad(key, value, "expected an integer number of MiB greater than 20");
      }
      result.max_split_size = mb * kMiB;
    } else if (key == "max_non_split_rounding_mb") {
      uint64_t mb = 0;
      if (!ParseUnsigned(value, &mb) || mb > (uint64_t{1} << 40)) {
        return Bad(key, value, "expected a non-negative integer number of MiB");
      }
      result.max_non_split_rounding_size = mb * kMiB;
    } else if (key == "garbage_collection_threshold") {
      double t = 0;
      if (!ParseDouble(value, &t) || !(t > 0.0 && t < 1.0)) {
        return Bad(key, value, "expected a fraction strictly between 0 and 1");
      }
      result.garbage_collection_threshold = t;
    } else if (key == "expandable_segments") {
      if (!ParseBool(value, &result.expandable_segments)) {
        return Bad(key, value, "expected True or False");
      }
    } else if (key == "prefault") {
      if (!ParseBool(value, &result.prefault)) return Bad(key, value, "expected True or False");
    } else if (key == "roundup_power2_divisions") {
      AICORE_RETURN_IF_ERROR(ParseRoundup(value, &result));
    } else {
      return Status(StatusCode::kInvalidArgument,
                    StrCat("AICORE_ALLOC_CONF: unknown key '", key,
                           "'; known keys: max_split_size_mb, max_non_split_rounding_mb, "
                           "garbage_collection_threshold, expandable_segments, "
                           "roundup_power2_divisions, prefault"));
    }
  }
  *config = result;
  return Status::Ok();
}

AllocatorConfig AllocatorConfigFromEnv() {
  AllocatorConfig config;
  const auto text = env::Get("AICORE_ALLOC_CONF");
  if (!text) return config;
  Status status = ParseAllocatorConfig(*text, &config);
  if (!status.ok()) throw Error(status);
  return config;
}

}  // namespace aicore::memory
