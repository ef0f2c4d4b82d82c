// The `aicore` command: `aicore chips` lists the chip presets, `aicore chips NAME` prints one,
// `aicore info` shows the host ISA and worker threads.
#include <cstdio>
#include <cstring>
#include <string>

#include "aicore/arch/chip.h"
#include "aicore/core/cpu.h"
#include "aicore/kernel/vector/engine.h"
#include "aicore/sim/scheduler.h"

int CmdProfile(int argc, char** argv);  // cmd_profile.cc
int CmdCheck(int argc, char** argv);    // cmd_check.cc

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: aicore <command>\n"
               "  chips [NAME|FILE.json]   list chip presets, or print one description\n"
               "  info                     host ISA, engine ISA, worker threads, default chip\n"
               "  profile [--chip X] [--out DIR] PROGRAM [ARGS]  model every kernel PROGRAM runs\n"
               "  check [--tool=T] PROGRAM [ARGS]  run PROGRAM under the sanitizer (T: memcheck,\n"
               "                           racecheck, synccheck, initcheck, all)\n");
  return 2;
}

int Chips(int argc, char** argv) {
  if (argc < 3) {
    for (const auto& n : aicore::arch::PresetNames()) {
      auto c = aicore::arch::LoadChip(n);
      std::printf("%-14s %-12s arch %d  %s  AIC %d  AIV %d  UB %llu KB  L1 %llu KB\n", n.c_str(),
                  c.soc_version.c_str(), c.npu_arch, c.split() ? "split  " : "coupled",
                  c.aic_count, c.aiv_count,
                  static_cast<unsigned long long>(c.spec(aicore::arch::Buffer::kUb).bytes / 1024),
                  static_cast<unsigned long long>(c.spec(aicore::arch::Buffer::kL1).bytes / 1024));
    }
    return 0;
  }
  auto c = aicore::arch::LoadChip(argv[2]);
  std::printf("%s\n", c.raw.dump(2).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  try {
    if (std::strcmp(argv[1], "chips") == 0) return Chips(argc, argv);
    if (std::strcmp(argv[1], "profile") == 0) return CmdProfile(argc, argv);
    if (std::strcmp(argv[1], "check") == 0) return CmdCheck(argc, argv);
    if (std::strcmp(argv[1], "info") == 0) {
      std::printf("host isa: %s\nengine isa: %s\nworker threads: %d\ndefault chip: %s\n",
                  aicore::IsaName(aicore::DetectedIsa()), aicore::kernel::engine::EngineIsa(),
                  aicore::sim::WorkerThreads(), aicore::arch::DefaultChip().name.c_str());
      return 0;
    }
  } catch (const aicore::Error& e) {
    std::fprintf(stderr, "aicore: %s\n", e.what());
    return 1;
  }
  return Usage();
}
