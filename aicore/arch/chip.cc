// Chip preset parsing and lookup.
#include "aicore/arch/chip.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "aicore/arch/presets_data.h"
#include "aicore/core/env.h"

namespace aicore::arch {

namespace {

constexpr const char* kBufferNames[kBufferCount] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
constexpr const char* kPositionNames[kPositionCount] = {
    "GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC", "SPM",
    "TSCM", "C2PIPE2GM", "C2PIPE2LOCAL"};

Buffer BufferFromName(const std::string& s, std::string_view origin) {
  for (int i = 0; i < kBufferCount; ++i) {
    if (s == kBufferNames[i]) return static_cast<Buffer>(i);
  }
  Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ", origin,
       ": unknown buffer '", s, "' (allowed: GM, UB, L1, L0A, L0B, L0C, BT, FB)");
}

template <typename T>
T Required(const nlohmann::json& j, const char* key, std::string_view origin) {
  if (!j.contains(key)) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
         origin, ": missing field '", key, "'");
  }
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception& e) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
         origin, ": field '", key, "' has the wrong type: ", e.what());
  }
}

}  // namespace

const char* BufferName(Buffer b) {
  int i = static_cast<int>(b);
  return i < kBufferCount ? kBufferNames[i] : "none";
}

const char* PositionName(Position p) {
  int i = static_cast<int>(p);
  return i < kPositionCount ? kPositionNames[i] : "?";
}

Chip ParseChip(std::string_view json_text, std::string_view origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
         origin, " is not valid JSON: ", e.what());
  }
  Chip c;
  c.raw = j;
  c.name = Required<std::string>(j, "name", origin);
  c.soc_version = Required<std::string>(j, "soc_version", origin);
  c.npu_arch = Required<int>(j, "npu_arch", origin);
  std::string mode = Required<std::string>(j, "core_mode", origin);
  if (mode != "split" && mode != "coupled") {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
         origin, ": core_mode is '", mode, "' (allowed: split, coupled)");
  }
  c.core_mode = mode == "split" ? CoreMode::kSplit : CoreMode::kCoupled;
  c.aic_count = Required<int>(j, "aic_count", origin);
  c.aiv_count = Required<int>(j, "aiv_count", origin);
  c.clock_mhz = Required<double>(j, "clock_mhz", origin);
  c.event_ids = j.value("event_ids", 8);
  if (c.aic_count <= 0 || (c.split() && c.aiv_count <= 0)) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
         origin, ": core counts aic_count=", c.aic_count, " aiv_count=", c.aiv_count,
         " (need aic_count > 0, and aiv_count > 0 on split chips)");
  }
  const auto& bufs = Required<nlohmann::json>(j, "buffers", origin);
  c.buffers[static_cast<int>(Buffer::kGm)] = {~0ull, 1};
  for (auto it = bufs.begin(); it != bufs.end(); ++it) {
    Buffer b = BufferFromName(it.key(), origin);
    c.buffers[static_cast<int>(b)].bytes = Required<uint64_t>(it.value(), "bytes", origin);
    c.buffers[static_cast<int>(b)].align = it.value().value("align", 32u);
  }
  c.position_buffer.fill(Buffer::kNone);
  const auto& pos = Required<nlohmann::json>(j, "positions", origin);
  for (auto it = pos.begin(); it != pos.end(); ++it) {
    if (it.key() == "source") continue;
    int p = -1;
    for (int i = 0; i < kPositionCount; ++i) {
      if (it.key() == kPositionNames[i]) p = i;
    }
    if (p < 0) {
      Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
           origin, ": unknown position '", it.key(), "'");
    }
    c.position_buffer[p] = BufferFromName(it.value().get<std::string>(), origin);
  }
  if (j.contains("memory")) {
    const auto& m = j["memory"];
    c.hbm_bytes = m.value("hbm_bytes", 0ull);
    c.hbm_gbps = m.value("hbm_gbps", 0.0);
    c.l2_bytes = m.value("l2_bytes", 0ull);
  }
  c.pipes = j.value("pipes", nlohmann::json::object());
  return c;
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

Chip LoadChip(std::string_view name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string_view::npos ||
                       (name_or_path.size() > 5 &&
                        name_or_path.substr(name_or_path.size() - 5) == ".json");
  if (is_path) {
    std::ifstream in{std::string(name_or_path)};
    if (!in) {
      Fail(StatusCode::kNotFound, std::source_location::current(), "chip description file '",
           name_or_path, "' cannot be opened");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ParseChip(ss.str(), name_or_path);
  }
  for (const auto& p : kPresets) {
    if (name_or_path == p.name) return ParseChip(p.json, p.name);
  }
  std::string known;
  for (const auto& p : kPresets) known += std::string(known.empty() ? "" : ", ") + p.name;
  Fail(StatusCode::kNotFound, std::source_location::current(), "unknown chip '", name_or_path,
       "' (presets: ", known, "; or a path to a .json file)");
}

const Chip& DefaultChip() {
  static const Chip chip = [] {
    const auto env = env::Get("AICORE_CHIP");
    return LoadChip(env ? *env : "ascend910b1");
  }();
  return chip;
}

}  // namespace aicore::arch
