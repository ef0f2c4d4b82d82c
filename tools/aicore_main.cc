// The `aicore` command: dispatches to the commands of tools/cli.cc's table (check, profile, chips,
// info, examples, help, completion) and holds the small ones. Conventions follow git and cmake:
// --help and help exit 0 on stdout, usage mistakes exit 2 on stderr with a suggestion.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/cpu.h"
#include "aicore/core/status.h"
#include "aicore/kernel/vector/engine.h"
#include "aicore/sim/scheduler.h"
#include "tools/cli.h"

namespace aicore::cli {

namespace {

// Handles the argument-free commands' arguments: --help prints the help, anything else is a
// usage mistake. Returns -1 when the command should run.
int NoArguments(int argc, char** argv) {
  if (argc <= 2) return -1;
  if (IsHelpFlag(argv[2])) {
    PrintCommandHelp(*FindCommand(argv[1]), stdout);
    return 0;
  }
  if (argv[2][0] == '-') return UnknownOption(argv[1], argv[2]);
  return UsageError(argv[1], std::string("unexpected argument '") + argv[2] + "'");
}

}  // namespace

int CmdChips(int argc, char** argv) {
  if (argc > 3) return UsageError("chips", std::string("unexpected argument '") + argv[3] + "'");
  if (argc == 3) {
    if (IsHelpFlag(argv[2])) {
      PrintCommandHelp(*FindCommand("chips"), stdout);
      return 0;
    }
    if (argv[2][0] == '-') return UnknownOption("chips", argv[2]);
    const std::string name = argv[2];
    if (name.find('/') == std::string::npos && !name.ends_with(".json")) {
      const auto presets = arch::PresetNames();
      bool known = false;
      for (const auto& p : presets) known = known || p == name;
      if (!known) {
        std::fprintf(stderr, "aicore chips: unknown chip '%s'\n", name.c_str());
        const std::string match = ClosestMatch(name, presets);
        if (!match.empty()) std::fprintf(stderr, "did you mean '%s'?\n", match.c_str());
        std::fprintf(stderr, "see 'aicore chips' for the presets\n");
        return kUsageExitCode;
      }
    }
    const arch::Chip c = arch::LoadChip(name);
    std::printf("%s\n", c.raw.dump(2).c_str());
    return 0;
  }
  for (const auto& n : arch::PresetNames()) {
    const arch::Chip c = arch::LoadChip(n);
    std::printf("%-14s %-12s arch %d  %s  AIC %d  AIV %d  UB %llu KB  L1 %llu KB\n", n.c_str(),
                c.soc_version.c_str(), c.npu_arch, c.split() ? "split  " : "coupled", c.aic_count,
                c.aiv_count,
                static_cast<unsigned long long>(c.spec(arch::Buffer::kUb).bytes / 1024),
                static_cast<unsigned long long>(c.spec(arch::Buffer::kL1).bytes / 1024));
  }
  return 0;
}

int CmdInfo(int argc, char** argv) {
  if (const int rc = NoArguments(argc, argv); rc >= 0) return rc;
  std::printf("aicore %s\nhost isa: %s\nengine isa: %s\nworker threads: %d\ndefault chip: %s\n",
              AICORE_VERSION, IsaName(DetectedIsa()), kernel::engine::EngineIsa(),
              sim::WorkerThreads(), arch::DefaultChip().name.c_str());
  const std::vector<std::string> dirs = ExampleDirs();
  std::printf("examples: %s\n", dirs.empty() ? "(none found)" : dirs[0].c_str());
  return 0;
}

int CmdExamples(int argc, char** argv) {
  if (const int rc = NoArguments(argc, argv); rc >= 0) return rc;
  const std::vector<std::string> dirs = ExampleDirs();
  if (dirs.empty()) {
    std::fprintf(stderr, "aicore examples: no examples/ beside this build of aicore, nor an "
                 "installed share/aicore/examples\n");
    return 1;
  }
  std::set<std::string> names;  // a build tree's example shadows an installed one
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!FindExample(name).empty()) names.insert(name);
    }
  }
  for (const std::string& n : names) std::printf("%-28s %s\n", n.c_str(), FindExample(n).c_str());
  return 0;
}

int CmdHelp(int argc, char** argv) {
  if (argc <= 2) {
    PrintHelp(stdout);
    return 0;
  }
  if (IsHelpFlag(argv[2])) {
    PrintCommandHelp(*FindCommand("help"), stdout);
    return 0;
  }
  if (const Command* c = FindCommand(argv[2])) {
    PrintCommandHelp(*c, stdout);
    return 0;
  }
  std::vector<std::string> names;
  for (const Command& c : Commands()) names.push_back(c.name);
  std::fprintf(stderr, "aicore help: unknown command '%s'\n", argv[2]);
  const std::string match = ClosestMatch(argv[2], names);
  if (!match.empty()) std::fprintf(stderr, "did you mean '%s'?\n", match.c_str());
  std::fprintf(stderr, "see 'aicore --help'\n");
  return kUsageExitCode;
}

int CmdCompletion(int argc, char** argv) {
  if (argc == 3 && IsHelpFlag(argv[2])) {
    PrintCommandHelp(*FindCommand("completion"), stdout);
    return 0;
  }
  if (argc != 3 || std::strcmp(argv[2], "bash") != 0) {
    return UsageError("completion", argc < 3 ? "name a shell: bash"
                                             : std::string("unsupported shell '") + argv[2] +
                                                   "' (supported: bash)");
  }
  PrintBashCompletion(stdout);
  return 0;
}

}  // namespace aicore::cli

int main(int argc, char** argv) {
  using namespace aicore::cli;
  if (argc < 2) {
    PrintHelp(stderr);
    return kUsageExitCode;
  }
  const std::string first = argv[1];
  if (IsHelpFlag(first)) {
    PrintHelp(stdout);
    return 0;
  }
  if (first == "--version") {
    std::printf("aicore %s\n", AICORE_VERSION);
    return 0;
  }
  if (first[0] == '-') return UnknownOption("", first);
  const Command* command = FindCommand(first);
  if (command == nullptr) {
    std::vector<std::string> names;
    for (const Command& c : Commands()) names.push_back(c.name);
    std::fprintf(stderr, "aicore: unknown command '%s'\n", first.c_str());
    const std::string match = ClosestMatch(first, names);
    if (!match.empty()) std::fprintf(stderr, "did you mean '%s'?\n", match.c_str());
    std::fprintf(stderr, "see 'aicore --help'\n");
    return kUsageExitCode;
  }
  try {
    return command->run(argc, argv);
  } catch (const aicore::Error& e) {
    std::fprintf(stderr, "aicore %s: %s\n", command->name, e.what());
    return 1;
  }
}
