// PlatformAscendC over the aicore chip presets. A SoC version string is matched against each
// preset's soc_version (case-insensitive), then against the SoC family ("Ascend310P1" finds the
// 310P preset), then against preset names; each object lives for the program's lifetime.

#include "aicore/runtime/tiling/platform_ascendc.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "aicore/core/log.h"

namespace platform_ascendc {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Returns the SoC family prefix: "ascend910b1" -> "ascend910b", "ascend310p3" -> "ascend310p".
std::string Family(const std::string& soc) {
  std::string s = Lower(soc);
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// Returns the preset for `soc` or false.
bool FindChip(const std::string& soc, aicore::arch::Chip* out) {
  const std::string want = Lower(soc);
  std::vector<aicore::arch::Chip> chips;
  for (const std::string& name : aicore::arch::PresetNames()) {
    chips.push_back(aicore::arch::LoadChip(name));
  }
  for (const auto& c : chips) {
    if (Lower(c.soc_version) == want || Lower(c.name) == want) {
      *out = c;
      return true;
    }
  }
  for (const auto& c : chips) {
    if (Family(c.soc_version) == Family(want)) {
      *out = c;
      return true;
    }
  }
  return false;
}

}  // namespace

PlatformAscendC::PlatformAscendC() : chip_(aicore::arch::DefaultChip()) {}

PlatformAscendC::PlatformAscendC(const fe::PlatFormInfos* info) {
  if (info == nullptr || info->soc == nullptr || *info->soc == '\0') {
    chip_ = aicore::arch::DefaultChip();
    return;
  }
  if (!FindChip(info->soc, &chip_)) chip_ = aicore::arch::LoadChip(info->soc);  // throws NotFound
}

PlatformAscendC::PlatformAscendC(const aicore::arch::Chip& chip) : chip_(chip) {}

uint32_t PlatformAscendC::GetCoreNum() const {
  return static_cast<uint32_t>(chip_.split() ? chip_.aiv_count : chip_.aic_count);
}

uint32_t PlatformAscendC::GetCoreNumAic() const { return static_cast<uint32_t>(chip_.aic_count); }

uint32_t PlatformAscendC::GetCoreNumAiv() const {
  return static_cast<uint32_t>(chip_.split() ? chip_.aiv_count : chip_.aic_count);
}

void PlatformAscendC::GetCoreMemSize(CoreMemType mem_type, uint64_t& size) const {
  using aicore::arch::Buffer;
  switch (mem_type) {
    case CoreMemType::L0_A:
      size = chip_.spec(Buffer::kL0A).bytes;
      return;
    case CoreMemType::L0_B:
      size = chip_.spec(Buffer::kL0B).bytes;
      return;
    case CoreMemType::L0_C:
      size = chip_.spec(Buffer::kL0C).bytes;
      return;
    case CoreMemType::L1:
      size = chip_.spec(Buffer::kL1).bytes;
      return;
    case CoreMemType::UB:
      size = chip_.spec(Buffer::kUb).bytes;
      return;
    case CoreMemType::FB:
      size = chip_.spec(Buffer::kFb).bytes;
      return;
    case CoreMemType::BT:
      size = chip_.spec(Buffer::kBt).bytes;
      return;
    case CoreMemType::L2:
      size = chip_.l2_bytes;
      return;
    case CoreMemType::HBM:
      size = chip_.hbm_bytes;
      return;
    case CoreMemType::RESERVED:
      break;
  }
  size = 0;
}

SocVersion PlatformAscendC::GetSocVersion() const {
  switch (chip_.npu_arch) {
    case 1001:
      return SocVersion::ASCEND910;
    case 2201:
      return SocVersion::ASCEND910B;
    case 2002:
      return SocVersion::ASCEND310P;
    case 3002:
      return SocVersion::ASCEND310B;
    case 3510:
      return SocVersion::ASCEND910_95;
    default:
      return SocVersion::RESERVED_VERSION;
  }
}

uint32_t PlatformAscendC::GetLibApiWorkSpaceSize() const {
  // RESERVED_WORKSPACE of the AscendC docs (ascendc-reference.md §1.4): 16 MiB on 2201/3002.
  const bool large = chip_.npu_arch == 2201 || chip_.npu_arch == 3002;
  return large ? 16u * 1024 * 1024 : 2u * 1024 * 1024;
}

uint32_t PlatformAscendC::CalcTschBlockDim(uint32_t slice_num, uint32_t aic_core_num,
                                           uint32_t aiv_core_num) const {
  if (slice_num == 0) return 0;
  if (!chip_.split() || aic_core_num == 0 || aiv_core_num == 0) {
    const uint32_t cores = aic_core_num != 0 ? aic_core_num : aiv_core_num;
    return cores == 0 ? slice_num : std::min(slice_num, cores);
  }
  // A mixed kernel's block is one AIC with its AIVs: ceil(slices / AIVs per AIC).
  const uint32_t ratio = std::max(1u, aiv_core_num / aic_core_num);
  return (slice_num + ratio - 1) / ratio;
}

PlatformAscendC* PlatformAscendCManager::GetInstance() {
  static PlatformAscendC* instance = new PlatformAscendC();
  return instance;
}

PlatformAscendC* PlatformAscendCManager::GetInstance(const char* custom_soc_version) {
  if (custom_soc_version == nullptr || *custom_soc_version == '\0') return GetInstance();
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<PlatformAscendC>> by_soc;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = Lower(custom_soc_version);
  auto it = by_soc.find(key);
  if (it != by_soc.end()) return it->second.get();
  aicore::arch::Chip chip;
  if (!FindChip(custom_soc_version, &chip)) {
    std::string names;
    for (const auto& n : aicore::arch::PresetNames()) names += (names.empty() ? "" : ", ") + n;
    AICORE_LOG(kError) << "PlatformAscendCManager::GetInstance: no chip preset matches SoC \""
                       << custom_soc_version << "\" (presets: " << names << ")";
    return nullptr;
  }
  auto* p = new PlatformAscendC(chip);
  by_soc.emplace(key, std::unique_ptr<PlatformAscendC>(p));
  return p;
}

}  // namespace platform_ascendc
