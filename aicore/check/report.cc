// Defect names, tool parsing and the text form of a report.
#include "aicore/check/report.h"

#include <cstdio>
#include <cstring>

#include "aicore/core/status.h"

namespace aicore::check {

namespace {

struct ToolName {
  const char* name;
  uint32_t mask;
};
constexpr ToolName kToolNames[] = {
    {"memcheck", kMemcheck}, {"racecheck", kRacecheck}, {"synccheck", kSynccheck},
    {"initcheck", kInitcheck}, {"all", kAllTools}};

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Where(const CallSite& s) {
  if (s.file.empty()) return "unknown location";
  const char* base = std::strrchr(s.file.c_str(), '/');
  return StrCat(base ? base + 1 : s.file.c_str(), ":", s.line);
}

std::string Call(const CallSite& s) {
  return StrCat(sim::PipeName(s.pipe), " ", s.api, " (", Where(s), ")");
}

}  // namespace

bool ParseTools(std::string_view text, uint32_t* tools) {
  uint32_t mask = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    bool known = false;
    for (const auto& t : kToolNames) {
      if (word == t.name) {
        mask |= t.mask;
        known = true;
      }
    }
    if (!known) return false;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (mask == 0) return false;
  *tools = mask;
  return true;
}

std::string ToolsName(uint32_t tools) {
  if (tools == kAllTools) return "all";
  if (tools == 0) return "none";
  std::string out;
  for (const auto& t : kToolNames) {
    if (t.mask == kAllTools || !(tools & t.mask)) continue;
    out += (out.empty() ? "" : ",") + std::string(t.name);
  }
  return out;
}

const char* DefectName(DefectKind kind) {
  switch (kind) {
    case DefectKind::kRaceRaw: return "RAW race";
    case DefectKind::kRaceWar: return "WAR race";
    case DefectKind::kRaceWaw: return "WAW race";
    case DefectKind::kCrossCoreRace: return "cross-core race";
    case DefectKind::kUnconsumedFlag: return "unconsumed SetFlag";
    case DefectKind::kQueueLeak: return "queue buffer not freed";
    case DefectKind::kOutOfBounds: return "out of bounds";
    case DefectKind::kMisaligned: return "misaligned transfer";
    case DefectKind::kGmOverlap: return "overlapping GM write";
    case DefectKind::kGmLeak: return "GM leak";
    case DefectKind::kUninitRead: return "uninitialised read";
    case DefectKind::kGmOutOfBounds: return "GM out of bounds";
    case DefectKind::kGmUseAfterFree: return "GM use after free";
  }
  return "?";
}

Tool ToolOf(DefectKind kind) {
  switch (kind) {
    case DefectKind::kRaceRaw:
    case DefectKind::kRaceWar:
    case DefectKind::kRaceWaw:
    case DefectKind::kCrossCoreRace:
      return kRacecheck;
    case DefectKind::kUnconsumedFlag:
    case DefectKind::kQueueLeak:
      return kSynccheck;
    case DefectKind::kOutOfBounds:
    case DefectKind::kMisaligned:
    case DefectKind::kGmOverlap:
    case DefectKind::kGmLeak:
    case DefectKind::kGmOutOfBounds:
    case DefectKind::kGmUseAfterFree:
      return kMemcheck;
    case DefectKind::kUninitRead:
      return kInitcheck;
  }
  return kMemcheck;
}

std::string Report::ToString() const {
  std::string out = StrCat(ToolsName(ToolOf(kind)), ": ", DefectName(kind));
  if (buffer != arch::Buffer::kNone) {
    out += StrCat(" on ", arch::BufferName(buffer), " [", Hex(begin), ", ", Hex(end), ")");
  }
  if (!kernel.empty()) out += StrCat(" in kernel ", kernel);
  if (!site.core.empty()) out += StrCat(", block ", site.core);
  if (!site.api.empty()) out += StrCat(": ", Call(site));
  if (has_prev) {
    out += StrCat(" conflicts with ", Call(prev));
    if (prev.core != site.core) out += StrCat(" on block ", prev.core);
  }
  if (!detail.empty()) out += StrCat(". ", detail);
  if (count > 1) out += StrCat(" [", count, " occurrences]");
  return out;
}

}  // namespace aicore::check
