// Chip preset parsing and lookup.
#include "aicore/arch/chip.h"

#include <fstream>
#include <optional>
#include <sstream>

#include "aicore/arch/presets_data.h"
#include "aicore/core/env.h"

namespace aicore::arch {

namespace {

constexpr const char* kBufferNames[kBufferCount] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
constexpr const char* kPositionNames[kPositionCount] = {
    "GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC", "SPM",
    "TSCM", "C2PIPE2GM", "C2PIPE2LOCAL"};

// Note [Chip schema]
// A chip description is checked field by field before any is used, so a bad file is reported as
// "chip description <file>: <json.path> is <value>; allowed: <what>" and never reaches a kernel
// (where align 0 would divide by zero and event_ids above 32 would overflow the per-pipe flag
// words). Unknown fields are errors too: a misspelt optional field would otherwise be ignored.
// Every object may carry free-text "source" fields (and "*_source" in pipes) citing its figures.
class Schema {
 public:
  explicit Schema(std::string_view origin) : origin_(origin) {}

  [[noreturn]] void Reject(const std::string& path, const nlohmann::json* value,
                           std::string_view allowed) const {
    std::string shown = "missing";
    if (value != nullptr) {
      shown = value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    }
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip description ",
         origin_, ": ", path, " is ", shown, "; allowed: ", allowed);
  }

  const nlohmann::json* Find(const nlohmann::json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const nlohmann::json& Object(const nlohmann::json& obj, const std::string& path,
                               const char* key, bool required) const {
    static const nlohmann::json kEmpty = nlohmann::json::object();
    const nlohmann::json* v = Find(obj, key);
    if (v == nullptr && !required) return kEmpty;
    if (v == nullptr || !v->is_object()) Reject(Join(path, key), v, "an object");
    return *v;
  }

  std::string String(const nlohmann::json& obj, const std::string& path, const char* key) const {
    const nlohmann::json* v = Find(obj, key);
    if (v == nullptr || !v->is_string() || v->get_ref<const std::string&>().empty()) {
      Reject(Join(path, key), v, "a non-empty string");
    }
    return v->get<std::string>();
  }

  // An integer in [lo, hi]; when `pow2`, also a power of two. `fallback` when absent, if given.
  int64_t Int(const nlohmann::json& obj, const std::string& path, const char* key, int64_t lo,
              int64_t hi, bool pow2 = false, std::optional<int64_t> fallback = {}) const {
    const nlohmann::json* v = Find(obj, key);
    if (v == nullptr && fallback) return *fallback;
    const std::string allowed = StrCat(pow2 ? "a power of two" : "an integer", " in [", lo, ", ",
                                       hi, "]");
    if (v == nullptr || !v->is_number_integer()) Reject(Join(path, key), v, allowed);
    if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(hi)) {
      Reject(Join(path, key), v, allowed);
    }
    const int64_t n = v->get<int64_t>();
    if (n < lo || n > hi || (pow2 && (n <= 0 || (n & (n - 1)) != 0))) {
      Reject(Join(path, key), v, allowed);
    }
    return n;
  }

  // A finite number in (lo, hi] (`open_lo`) or [lo, hi]; `fallback` when absent, if given.
  double Number(const nlohmann::json& obj, const std::string& path, const char* key, double lo,
                double hi, bool open_lo, std::optional<double> fallback = {}) const {
    const nlohmann::json* v = Find(obj, key);
    if (v == nullptr && fallback) return *fallback;
    const std::string allowed = StrCat("a number in ", open_lo ? "(" : "[", lo, ", ", hi, "]");
    if (v == nullptr || !v->is_number()) Reject(Join(path, key), v, allowed);
    const double d = v->get<double>();
    if (!(open_lo ? d > lo : d >= lo) || !(d <= hi)) Reject(Join(path, key), v, allowed);
    return d;
  }

  // Rejects members of `obj` other than `keys` and free-text sources.
  void OnlyKeys(const nlohmann::json& obj, const std::string& path,
                std::initializer_list<const char*> keys) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool known = IsSource(it.key());
      for (const char* k : keys) known = known || it.key() == k;
      if (known) continue;
      std::string list;
      for (const char* k : keys) list += StrCat(list.empty() ? "" : ", ", k);
      Reject(Join(path, it.key().c_str()), &it.value(), StrCat("no such field (known: ", list,
                                                               ", source)"));
    }
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (IsSource(it.key()) && !it.value().is_string()) {
        Reject(Join(path, it.key().c_str()), &it.value(), "a string (a citation)");
      }
    }
  }

  static std::string Join(const std::string& path, const char* key) {
    return path.empty() ? std::string(key) : StrCat(path, ".", key);
  }
  static bool IsSource(const std::string& key) {
    return key == "source" || (key.size() > 7 && key.substr(key.size() - 7) == "_source");
  }

 private:
  std::string_view origin_;
};

int BufferIndex(const std::string& s) {
  for (int i = 0; i < kBufferCount; ++i) {
    if (s == kBufferNames[i]) return i;
  }
  return -1;
}

// Buffers every chip must describe: the vector unit's UB and the cube unit's L1 and L0s.
constexpr Buffer kRequiredBuffers[] = {Buffer::kUb, Buffer::kL1, Buffer::kL0A, Buffer::kL0B,
                                       Buffer::kL0C};
constexpr int64_t kMaxBufferBytes = int64_t{1} << 30;  // local memories are KiB to a few MiB
constexpr int64_t kMaxAlign = 4096;  // a core's arena aligns every buffer to 4 KiB (sim/core.cc)
// SetFlag/WaitFlag and AllocEventID keep one 32-bit word of flags per event kind (sim/core.h).
constexpr int64_t kMaxEventIds = 32;

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
  const Schema S(origin);
  if (!j.is_object()) S.Reject("the top level", &j, "an object");
  S.OnlyKeys(j, "", {"name", "soc_version", "npu_arch", "core_mode", "aic_count", "aiv_count",
                     "clock_mhz", "event_ids", "buffers", "positions", "memory", "capabilities",
                     "pipes"});
  Chip c;
  c.raw = j;
  c.name = S.String(j, "", "name");
  c.soc_version = S.String(j, "", "soc_version");
  c.npu_arch = static_cast<int>(S.Int(j, "", "npu_arch", 100, 9999));
  const std::string mode = S.String(j, "", "core_mode");
  if (mode != "split" && mode != "coupled") S.Reject("core_mode", S.Find(j, "core_mode"), "split, coupled");
  c.core_mode = mode == "split" ? CoreMode::kSplit : CoreMode::kCoupled;
  c.aic_count = static_cast<int>(S.Int(j, "", "aic_count", 1, 65535));
  c.aiv_count = c.split() ? static_cast<int>(S.Int(j, "", "aiv_count", 1, 65535))
                          : static_cast<int>(S.Int(j, "", "aiv_count", 0, 0));
  c.clock_mhz = S.Number(j, "", "clock_mhz", 0, 100000, true);
  c.event_ids = static_cast<int>(S.Int(j, "", "event_ids", 1, kMaxEventIds, false, 8));

  const auto& bufs = S.Object(j, "", "buffers", true);
  c.buffers[static_cast<int>(Buffer::kGm)] = {~0ull, 1};
  for (auto it = bufs.begin(); it != bufs.end(); ++it) {
    if (Schema::IsSource(it.key())) continue;
    const std::string path = StrCat("buffers.", it.key());
    const int b = BufferIndex(it.key());
    if (b <= 0) {  // GM is not a per-core buffer
      S.Reject(path, &it.value(), "a buffer named UB, L1, L0A, L0B, L0C, BT or FB");
    }
    if (!it.value().is_object()) S.Reject(path, &it.value(), "an object {\"bytes\": ..., \"align\": ...}");
    S.OnlyKeys(it.value(), path, {"bytes", "align"});
    const int64_t align = S.Int(it.value(), path, "align", 1, kMaxAlign, true, 32);
    const int64_t bytes = S.Int(it.value(), path, "bytes", 1, kMaxBufferBytes);
    if (bytes % align != 0) {
      S.Reject(path + ".bytes", S.Find(it.value(), "bytes"), StrCat("a multiple of its align ", align));
    }
    c.buffers[b] = {static_cast<uint64_t>(bytes), static_cast<uint32_t>(align)};
  }
  for (Buffer b : kRequiredBuffers) {
    if (c.spec(b).bytes == 0) {
      S.Reject(StrCat("buffers.", BufferName(b)), nullptr,
               "an object {\"bytes\": ..., \"align\": ...}; every chip has UB, L1, L0A, L0B and L0C");
    }
  }

  c.position_buffer.fill(Buffer::kNone);
  const auto& pos = S.Object(j, "", "positions", true);
  for (auto it = pos.begin(); it != pos.end(); ++it) {
    if (Schema::IsSource(it.key())) {
      if (!it.value().is_string()) S.Reject("positions." + it.key(), &it.value(), "a string");
      continue;
    }
    const std::string path = StrCat("positions.", it.key());
    int p = -1;
    for (int i = 0; i < kPositionCount; ++i) {
      if (it.key() == kPositionNames[i]) p = i;
    }
    if (p < 0) {
      S.Reject(path, &it.value(), "a position named GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, "
                                  "VECOUT, VECCALC, SPM, TSCM, C2PIPE2GM or C2PIPE2LOCAL");
    }
    const int b = it.value().is_string() ? BufferIndex(it.value().get<std::string>()) : -1;
    if (b < 0 || (b > 0 && c.buffers[b].bytes == 0)) {
      S.Reject(path, &it.value(), "GM or a buffer this description defines in \"buffers\"");
    }
    c.position_buffer[p] = static_cast<Buffer>(b);
  }

  const auto& m = S.Object(j, "", "memory", false);
  S.OnlyKeys(m, "memory", {"hbm_bytes", "hbm_gbps", "l2_bytes"});
  c.hbm_bytes = static_cast<uint64_t>(S.Int(m, "memory", "hbm_bytes", 0, INT64_MAX, false, 0));
  c.hbm_gbps = S.Number(m, "memory", "hbm_gbps", 0, 1e6, false, 0.0);
  c.l2_bytes = static_cast<uint64_t>(S.Int(m, "memory", "l2_bytes", 0, INT64_MAX, false, 0));
  const auto& caps = S.Object(j, "", "capabilities", false);
  S.OnlyKeys(caps, "capabilities", {"fixpipe_to_ub", "cube_fp32"});
  if (const nlohmann::json* v = S.Find(caps, "fixpipe_to_ub"); v != nullptr) {
    if (!v->is_boolean()) S.Reject("capabilities.fixpipe_to_ub", v, "true or false");
    if (v->get<bool>() && !c.split()) {
      S.Reject("capabilities.fixpipe_to_ub", v,
               "false on a coupled chip (the path writes the UB of the AIC's paired AIV)");
    }
    c.fixpipe_to_ub = v->get<bool>();
  }
  if (const nlohmann::json* v = S.Find(caps, "cube_fp32"); v != nullptr) {
    if (!v->is_boolean()) S.Reject("capabilities.cube_fp32", v, "true or false");
    c.cube_fp32 = v->get<bool>();
  }
  // The timing model checks the cost constants it reads (perf/model.cc); here only the shape.
  c.pipes = S.Object(j, "", "pipes", false);
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

namespace {
// Set by SetBuildDefaultChip from static initialisers, before any launch reads DefaultChip().
std::string& BuildDefaultChip() {
  static std::string name = "ascend910b1";
  return name;
}
}  // namespace

void SetBuildDefaultChip(const char* name) {
  if (name != nullptr && *name != '\0') BuildDefaultChip() = name;
}

const Chip& DefaultChip() {
  static const Chip chip = [] {
    const auto env = env::Get("AICORE_CHIP");
    return LoadChip(env ? *env : BuildDefaultChip());
  }();
  return chip;
}

}  // namespace aicore::arch
