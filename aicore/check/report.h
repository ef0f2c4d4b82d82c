// What the sanitizer finds: the four tools (memcheck, racecheck, synccheck, initcheck), the defect
// classes each reports, and the Report record with both call sites of a defect.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "aicore/arch/chip.h"
#include "aicore/sim/funnel.h"

namespace aicore::check {

// The sanitizer's tools, as a bitmask (the msSanitizer --tool choices).
enum Tool : uint32_t {
  kMemcheck = 1u << 0,
  kRacecheck = 1u << 1,
  kSynccheck = 1u << 2,
  kInitcheck = 1u << 3,
  kAllTools = kMemcheck | kRacecheck | kSynccheck | kInitcheck,
};

// Parses "memcheck", "racecheck", "synccheck", "initcheck" or "all", or a comma-separated list of
// them, into a Tool mask. Returns false (and leaves *tools alone) on any other word or empty text.
bool ParseTools(std::string_view text, uint32_t* tools);
// Returns "memcheck,racecheck" etc. for a mask ("all" for kAllTools, "none" for 0).
std::string ToolsName(uint32_t tools);

enum class DefectKind : uint8_t {
  // racecheck: two accesses by different pipes of one core, at least one a write, with no sync
  // edge between them (same-pipe for the DMA pipes MTE1/MTE2/MTE3, which need a PipeBarrier).
  kRaceRaw,
  kRaceWar,
  kRaceWaw,
  // racecheck: GM bytes written by one block and read or written by another with no SyncAll
  // between them (RAW/WAR across cores; cross-core WAW is kGmOverlap).
  kCrossCoreRace,
  // synccheck: a SetFlag no WaitFlag consumed before the block ended (leaks into the next kernel).
  kUnconsumedFlag,
  // synccheck: a queue buffer still allocated, enqueued or dequeued at block end (no FreeTensor).
  kQueueLeak,
  // memcheck: an access past the end of a core's local buffer.
  kOutOfBounds,
  // memcheck: a transfer whose local operand does not start on the buffer's alignment (32 B for
  // UB/L1, 512 B for L0A/L0B, 64 B for L0C/BT/FB: the chip's `align`).
  kMisaligned,
  // memcheck: GM bytes written (not atomically) by two blocks with no SyncAll between them.
  kGmOverlap,
  // memcheck: GmAlloc blocks still live when the check ran (program end for AICORE_CHECK).
  kGmLeak,
  // initcheck: a read of local bytes no instruction wrote since the block started.
  kUninitRead,
  // memcheck: GM bytes past the end of the GmAlloc or device allocation the access starts in.
  kGmOutOfBounds,
  // memcheck: GM bytes of a GmAlloc or device allocation that was freed.
  kGmUseAfterFree,
};

// Returns "RAW race", "WAR race", "WAW race", "cross-core race", "unconsumed SetFlag",
// "queue buffer not freed", "out of bounds", "misaligned transfer", "overlapping GM write",
// "GM leak", "uninitialised read", "GM out of bounds", "GM use after free".
const char* DefectName(DefectKind kind);
// Returns the tool that reports `kind`.
Tool ToolOf(DefectKind kind);

// One call site: the API, its pipe and the user's source line.
struct CallSite {
  std::string api;          // "DataCopy", "Add", "SetFlag", ...
  sim::Pipe pipe = sim::Pipe::kS;
  std::string file;         // full path as the compiler saw it; empty when unknown
  uint32_t line = 0;
  std::string core;         // "AIV 3": the core that made the call
};

// One defect. Identical defects (same kind, same call sites, same buffer) are merged into one
// report whose `count` says how often they occurred (loops, blocks).
struct Report {
  DefectKind kind = DefectKind::kRaceRaw;
  std::string kernel;
  CallSite site;             // the offending (later) call
  bool has_prev = false;
  CallSite prev;             // the conflicting earlier call (races, overlaps)
  arch::Buffer buffer = arch::Buffer::kNone;
  uint64_t begin = 0;        // [begin, end): offset in a local buffer, host address in GM
  uint64_t end = 0;
  uint64_t count = 1;
  std::string detail;        // the explanation and the fix

  // Returns the one-line form, e.g. "racecheck: RAW race on UB [0x0, 0x400) in kernel k, block
  // AIV 0: V Add (k.cc:52) conflicts with MTE2 DataCopy (k.cc:47). <detail> [3 occurrences]".
  std::string ToString() const;
};

}  // namespace aicore::check
