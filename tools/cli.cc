// The `aicore` command table, help output, typo suggestions, example lookup and bash completion.
#include "tools/cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <numeric>

namespace aicore::cli {

namespace {

const Option kHelpOption = {"-h, --help", "", "print this command's help and exit"};

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Returns the directory holding the running `aicore` binary, or "".
std::string SelfDir() {
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  std::string dir(self);
  return dir.substr(0, dir.rfind('/'));
}

// Returns the long spellings of `option` ("-h, --help" gives "-h" and "--help").
std::vector<std::string> Spellings(const Option& option) {
  std::vector<std::string> out;
  std::string s = option.spelling;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(", ", start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

// Returns `option` with its value: "--chip NAME|FILE.json", "--tool=TOOLS".
std::string Spelled(const Option& option) {
  std::string s = option.spelling;
  if (option.value[0] != '\0') {
    s += std::string(s.back() == '[' || s.back() == '=' ? "" : " ") + option.value;
  }
  return s;
}

void PrintOptions(const std::vector<Option>& options, std::FILE* out) {
  for (const Option& o : options) {
    const std::string left = Spelled(o);
    std::fprintf(out, "  %-24s %s\n", left.c_str(), o.help);
  }
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"check", "[OPTIONS] PROGRAM|EXAMPLE [ARGS...]",
       "run a program with the sanitizer attached to every kernel launch",
       "Runs PROGRAM (a path, a file in the working directory, or the name of a bundled example)\n"
       "with AICORE_CHECK set, so every kernel it launches is checked for races between pipes and\n"
       "cores, sync misuse, out-of-bounds and uninitialised accesses. Reports go to stderr.\n"
       "Exits 0 when the run was clean, 1 when defects were found (sanitizer reports or failed\n"
       "kernel launches), 2 on a usage mistake, else with PROGRAM's own status.",
       {{"--tool=", "TOOLS",
         "memcheck,racecheck,synccheck,initcheck or all (default)"},
        {"--differential[=", "SEED]",
         "defer transfer pipes until a sync consumes them"},
        kHelpOption},
       CmdCheck},
      {"profile", "[OPTIONS] PROGRAM|EXAMPLE [ARGS...]",
       "run a program and model every kernel it launches on a chip",
       "Runs PROGRAM (a path, a file in the working directory, or the name of a bundled example)\n"
       "with every kernel launch recorded and replayed through the timing model of the chip, then\n"
       "prints the summary: modelled chip time (not host time), per-pipe utilisation, what bounds\n"
       "the kernel. Writes summary.txt, summary.json, trace.json (ui.perfetto.dev),\n"
       "pipe_utilization.csv, memory.csv, instructions.csv and report.html to DIR.\n"
       "When PROGRAM crashes after some launches, the reports hold the launches that completed.\n"
       "With --compare, prints two earlier profiles side by side instead (per-launch time, ratio\n"
       "and delta, per-pipe ratios; compare.html too when --out is given).\n"
       "Exits with PROGRAM's status, 1 when it launched no kernel or no report could be written,\n"
       "2 on a usage mistake.",
       {{"--chip", "NAME|FILE.json", "chip to model (default: AICORE_CHIP or ascend910b1)"},
        {"--out", "DIR", "where the reports go (default: ./aicore-profile)"},
        {"--compare", "BEFORE AFTER", "compare two profile directories (their summary.json)"},
        kHelpOption},
       CmdProfile},
      {"tune", "[OPTIONS] OP SHAPE",
       "rank an operator's candidate plans by model and host time, and cache the choice",
       "Runs strategy selection for operator OP (softmax, log_softmax, layer_norm, rms_norm, add,\n"
       "mul, adds, muls, silu, gelu, gelu_erf) on SHAPE (dims joined by 'x', e.g. 4096x4096; the\n"
       "norms and softmax reduce the last dim). Every candidate plan is modeled on the chip; the\n"
       "best few and the heuristic are also run on the host. Prints the times, the plan MODE\n"
       "chooses and why, and stores the decision in the tune cache (AICORE_TUNE_CACHE) for MODE.\n"
       "Exits 0, 1 when the operator rejects the shape, 2 on a usage mistake.",
       {{"--dtype", "fp32|fp16|bf16", "element type (default fp32)"},
        {"--chip", "NAME|FILE.json", "chip to model (default: AICORE_CHIP or ascend910b1)"},
        {"--mode", "off|model|measure", "the rule that picks the winner (default: AICORE_TUNE, "
                                        "else model)"},
        kHelpOption},
       CmdTune},
      {"chips", "[NAME|FILE.json]", "list the chip presets, or print one chip's description",
       "Without an argument, lists every chip preset with its SoC, architecture, core counts and\n"
       "buffer sizes. With a preset name or a path to a chip .json file, prints that chip's full\n"
       "description as JSON.",
       {kHelpOption},
       CmdChips},
      {"info", "", "show the host ISA, engine ISA, worker threads and default chip", "",
       {kHelpOption}, CmdInfo},
      {"examples", "", "list the bundled examples `check` and `profile` find by name",
       "Lists each bundled example binary by name with its path, from the build tree (examples/\n"
       "beside the tool's directory) or an install (<prefix>/share/aicore/examples).",
       {kHelpOption},
       CmdExamples},
      {"help", "[COMMAND]", "show the help of aicore or of one command", "", {kHelpOption},
       CmdHelp},
      {"completion", "bash", "print a bash completion script",
       "Prints a bash completion script for aicore. Installs put it in\n"
       "<prefix>/share/bash-completion/completions/aicore, where bash-completion loads it; to use\n"
       "it from a build tree: source <(build/tools/aicore completion bash).",
       {kHelpOption},
       CmdCompletion},
  };
  return commands;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

const std::vector<Option>& GlobalOptions() {
  static const std::vector<Option> options = {
      {"-h, --help", "", "print this help and exit"},
      {"--version", "", "print aicore's version and exit"},
  };
  return options;
}

void PrintHelp(std::FILE* out) {
  std::fprintf(out,
               "usage: aicore [--version] [-h|--help] <command> [<args>]\n\n"
               "aicore runs AscendC kernels and their host programs on the CPU.\n\n"
               "Commands:\n");
  for (const Command& c : Commands()) {
    std::fprintf(out, "  %-12s %s\n", c.name, c.summary);
    std::string options;
    for (const Option& o : c.options) {
      if (std::strcmp(o.spelling, kHelpOption.spelling) == 0) continue;
      options += (options.empty() ? "" : ", ") + Spelled(o);
    }
    if (!options.empty()) std::fprintf(out, "  %-12s   %s\n", "", options.c_str());
  }
  std::fprintf(out, "\nOptions:\n");
  PrintOptions(GlobalOptions(), out);
  std::fprintf(out,
               "\nEnvironment: AICORE_CHIP, AICORE_THREADS, AICORE_ISA, AICORE_LOG_LEVEL "
               "(debug logs launches,\nscheduling and allocator segments), AICORE_CHECK, "
               "AICORE_PROFILE (see README.md).\n"
               "Run 'aicore help <command>' or 'aicore <command> --help' for a command's "
               "options.\n");
}

void PrintCommandHelp(const Command& command, std::FILE* out) {
  std::fprintf(out, "usage: aicore %s%s%s\n\n%s.\n", command.name,
               command.synopsis[0] != '\0' ? " " : "", command.synopsis, command.summary);
  if (command.details[0] != '\0') std::fprintf(out, "\n%s\n", command.details);
  std::fprintf(out, "\nOptions:\n");
  PrintOptions(command.options, out);
}

bool IsHelpFlag(std::string_view arg) { return arg == "-h" || arg == "--help"; }

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diag = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string ClosestMatch(std::string_view given, const std::vector<std::string>& candidates) {
  std::string best;
  int best_distance = INT_MAX;
  std::vector<std::string> prefixed;
  for (const std::string& c : candidates) {
    const int d = EditDistance(given, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
    if (!given.empty() && c.starts_with(given)) prefixed.push_back(c);
  }
  const int allowed = std::max<int>(2, static_cast<int>(given.size()) / 3);
  if (best_distance <= allowed) return best;
  if (prefixed.size() == 1) return prefixed[0];
  return "";
}

int UnknownOption(std::string_view command, std::string_view option) {
  const std::string_view key = option.substr(0, option.find('='));
  std::vector<std::string> candidates;
  const std::vector<Option>* options = &GlobalOptions();
  if (const Command* c = FindCommand(command)) options = &c->options;
  for (const Option& o : *options) {
    for (std::string s : Spellings(o)) {
      while (!s.empty() && (s.back() == '=' || s.back() == '[')) s.pop_back();
      candidates.push_back(s);
    }
  }
  const std::string prefix = command.empty() ? "aicore" : "aicore " + std::string(command);
  std::fprintf(stderr, "%s: unknown option '%.*s'\n", prefix.c_str(),
               static_cast<int>(option.size()), option.data());
  const std::string match = ClosestMatch(key, candidates);
  if (!match.empty()) std::fprintf(stderr, "did you mean '%s'?\n", match.c_str());
  std::fprintf(stderr, "see '%s --help'\n", prefix.c_str());
  return kUsageExitCode;
}

int UsageError(std::string_view command, std::string_view message) {
  const std::string prefix = command.empty() ? "aicore" : "aicore " + std::string(command);
  std::fprintf(stderr, "%s: %.*s\nsee '%s --help'\n", prefix.c_str(),
               static_cast<int>(message.size()), message.data(), prefix.c_str());
  return kUsageExitCode;
}

std::vector<std::string> ExampleDirs() {
  std::vector<std::string> dirs;
  const std::string self = SelfDir();
  if (self.empty()) return dirs;
  for (const std::string& d : {self + "/../examples", self + "/../share/aicore/examples"}) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::canonical(d, ec);
    if (!ec && IsDir(canonical.string())) dirs.push_back(canonical.string());
  }
  return dirs;
}

std::string FindExample(std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos) return "";
  for (const std::string& dir : ExampleDirs()) {
    const std::string candidate = dir + "/" + std::string(name);
    if (IsFile(candidate) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string ResolveProgram(const std::string& arg) {
  if (arg.find('/') != std::string::npos || IsFile(arg)) return arg;
  const std::string example = FindExample(arg);
  return example.empty() ? arg : example;
}

void PrintBashCompletion(std::FILE* out) {
  std::string commands;
  for (const Command& c : Commands()) commands += std::string(commands.empty() ? "" : " ") + c.name;
  std::fprintf(out,
               "# bash completion for aicore (generated by `aicore completion bash`)\n"
               "_aicore() {\n"
               "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
               "  COMPREPLY=()\n"
               "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
               "    COMPREPLY=($(compgen -W '%s --help --version' -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  local cmd=${COMP_WORDS[1]} opts=''\n"
               "  case $cmd in\n",
               commands.c_str());
  for (const Command& c : Commands()) {
    std::string opts;
    for (const Option& o : c.options) {
      for (std::string s : Spellings(o)) {
        if (s.ends_with("[=")) s.resize(s.size() - 2);  // an optional value: complete the flag
        opts += (opts.empty() ? "" : " ") + s;
      }
    }
    std::fprintf(out, "    %s) opts='%s' ;;\n", c.name, opts.c_str());
  }
  std::fprintf(out,
               "  esac\n"
               "  if [[ $prev == --chip || ($cmd == chips && $COMP_CWORD -eq 2) ]]; then\n"
               "    COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" chips 2>/dev/null |"
               " cut -d' ' -f1)\" -- \"$cur\"))\n"
               "    [[ $cmd == chips ]] && COMPREPLY+=($(compgen -f -X '!*.json' -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  if [[ $prev == --out ]]; then\n"
               "    COMPREPLY=($(compgen -d -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  if [[ $cmd == help && $COMP_CWORD -eq 2 ]]; then\n"
               "    COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  if [[ $cmd == completion && $COMP_CWORD -eq 2 ]]; then\n"
               "    COMPREPLY=($(compgen -W 'bash' -- \"$cur\"))\n"
               "    return\n"
               "  fi\n"
               "  if [[ $cur == -* ]]; then\n"
               "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
               "    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] &&"
               " compopt -o nospace 2>/dev/null\n"
               "    return\n"
               "  fi\n"
               "  if [[ $cmd == check || $cmd == profile ]]; then\n"
               "    local i\n"
               "    for ((i = 2; i < COMP_CWORD; i++)); do\n"
               "      [[ ${COMP_WORDS[i]} != -* && ${COMP_WORDS[i-1]} != --chip &&"
               " ${COMP_WORDS[i-1]} != --out ]] && return  # PROGRAM is given\n"
               "    done\n"
               "    COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" examples 2>/dev/null |"
               " cut -d' ' -f1)\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
               "  fi\n"
               "}\n"
               "complete -F _aicore aicore\n",
               commands.c_str());
}

}  // namespace aicore::cli
