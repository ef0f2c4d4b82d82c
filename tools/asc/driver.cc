// The aicore-asc driver.
//
// - Arguments are sorted into preprocessor flags (-I -D -U -include -isystem ...), code
//   generation flags passed to every step (-O -g -f -m -W ...), dependency flags (-M*, applied
//   when preprocessing), link inputs in their order (objects, -l, -L, -Wl, ...), sources and the
//   driver's own options (--npu-arch, --run-mode). bisheng-only options are accepted and ignored;
//   any other unknown option is dropped with a warning.
// - Each source is preprocessed by the host compiler with the CPU-mode macros, the qualifier
//   markers (rewrite.h) and the installed aicore include directories, rewritten, and compiled
//   from the rewritten text (-x c++-cpp-output) at C++20 or later, so line markers keep every
//   diagnostic on the user's file. A unit with launches that does not include aicore's launch
//   header is preprocessed again with it forced in.
// - Without -c/-S/-E the objects are linked with the aicore libraries (perf and check whole,
//   then the layers in one group, -rdynamic, pthread); a -shared link leaves aicore's symbols to
//   the executable that links the library.
// - Launcher mode (the first argument is a compiler command, not an option or input) applies
//   the same rewrite to a `-c` compile of one C++ source and runs everything else unchanged.
#include "tools/asc/driver.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>

#include "tools/asc/asc_config.h"
#include "tools/asc/rewrite.h"

extern char** environ;

namespace aicore::asc {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsCxxSource(std::string_view path) {
  for (std::string_view ext : {".asc", ".cpp", ".cc", ".cxx", ".c++", ".C", ".cp", ".CPP"}) {
    if (EndsWith(path, ext)) return true;
  }
  return false;
}

bool IsLinkInput(std::string_view path) {
  for (std::string_view ext : {".o", ".a", ".so", ".lo", ".obj"}) {
    if (EndsWith(path, ext)) return true;
  }
  return path.find(".so.") != std::string_view::npos;
}

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t semi = list.find(';', at);
    const std::string_view item =
        list.substr(at, semi == std::string_view::npos ? std::string_view::npos : semi - at);
    if (!item.empty()) out.emplace_back(item);
    if (semi == std::string_view::npos) break;
    at = semi + 1;
  }
  return out;
}

void Warn(const std::string& message) {
  std::fprintf(stderr, "aicore-asc: warning: %s\n", message.c_str());
}
int Fatal(const std::string& message) {
  std::fprintf(stderr, "aicore-asc: error: %s\n", message.c_str());
  return 1;
}

bool Verbose() {
  const char* v = std::getenv("AICORE_ASC_VERBOSE");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

// Runs `argv` and returns its exit status (127 when it cannot be started).
int Run(const std::vector<std::string>& argv, bool verbose) {
  if (verbose) {
    std::string line;
    for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
    std::fprintf(stderr, "aicore-asc: %s\n", line.c_str());
  }
  std::vector<char*> raw;
  for (const auto& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, raw[0], nullptr, nullptr, raw.data(), environ) != 0) {
    std::fprintf(stderr, "aicore-asc: error: cannot run %s: %s\n", raw[0], std::strerror(errno));
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// A temporary file removed when the object goes (unless kept for -save-temps).
class TempFile {
 public:
  explicit TempFile(const std::string& suffix, bool keep) : keep_(keep) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/aicore-asc-XXXXXX" + suffix;
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    const int fd = mkstemps(buf.data(), static_cast<int>(suffix.size()));
    if (fd >= 0) {
      close(fd);
      path_ = buf.data();
    }
  }
  ~TempFile() {
    if (!path_.empty() && !keep_) unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool keep_;
};

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

enum class Stage { kLink, kCompile, kAssemble, kPreprocess };

struct Plan {
  std::vector<std::string> host;
  bool launcher = false;
  Stage stage = Stage::kLink;
  std::string output;
  std::vector<std::string> pp_flags;
  std::vector<std::string> common;
  std::vector<std::string> dep_flags;
  std::vector<std::string> link;  // in order; sources are replaced by their objects
  std::vector<size_t> source_slots;  // indices into `link` holding a source path
  std::string std_flag;
  int npu_arch = 2201;
  std::string run_mode = "cpu";
  bool shared = false;
  bool save_temps = false;
  bool verbose = false;
  bool has_mf = false;
  bool has_mt = false;
  bool wants_deps = false;
};

// Returns the standard to compile at: the user's when it is C++20 or later, else C++20.
std::string EffectiveStd(const std::string& user, bool launcher) {
  if (user.empty()) return launcher ? "" : "-std=c++20";
  const std::string value = user.substr(5);  // after -std=
  const bool gnu = StartsWith(value, "gnu");
  const size_t plus = value.find("++");
  if (plus == std::string::npos) return user;
  const std::string ver = value.substr(plus + 2);
  static const std::vector<std::string> kOld = {"98", "03", "0x", "11", "1y", "14", "1z", "17"};
  for (const auto& old : kOld) {
    if (ver == old) return gnu ? "-std=gnu++20" : "-std=c++20";
  }
  return user;
}

int ParseNpuArch(const std::string& value, int* arch) {
  if (value == "dav-2201") {
    *arch = 2201;
  } else if (value == "dav-2002") {
    *arch = 2002;
  } else if (value == "dav-3510") {
    *arch = 3510;
  } else {
    return Fatal("--npu-arch=" + value +
                 " is not supported: aicore runs dav-2201, dav-2002 and dav-3510");
  }
  return 0;
}

int ParseRunMode(const std::string& value, std::string* mode) {
  if (value == "cpu" || value == "sim") {
    *mode = value;
    return 0;
  }
  if (value == "npu") {
    return Fatal("--run-mode=npu needs CANN's bisheng and an NPU; aicore runs the cpu and sim "
                 "modes (sim: the CPU run timed by aicore's model of the chip)");
  }
  return Fatal("--run-mode=" + value + " is not a run mode: use cpu or sim");
}

// Parses `args` (after the compiler command in launcher mode) into `plan`. Returns non-zero on a
// fatal error.
int Parse(const std::vector<std::string>& args, size_t first, Plan* plan) {
  static const std::vector<std::string> kPpWithArg = {"-I", "-D", "-U", "-include", "-isystem",
                                                      "-iquote", "-idirafter", "-imacros"};
  static const std::vector<std::string> kDepWithArg = {"-MF", "-MT", "-MQ"};
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&](std::string* value) -> bool {
      if (i + 1 >= args.size()) return false;
      *value = args[++i];
      return true;
    };
    std::string value;
    if (a.empty()) continue;
    if (a[0] != '-' || a == "-") {
      if (IsCxxSource(a)) {
        plan->source_slots.push_back(plan->link.size());
        plan->link.push_back(a);
      } else if (IsLinkInput(a)) {
        plan->link.push_back(a);
      } else if (plan->launcher) {
        plan->link.push_back(a);  // whatever the compiler makes of it
      } else {
        Warn("'" + a + "' is neither a C++/.asc source nor an object or library; passing it to "
             "the linker");
        plan->link.push_back(a);
      }
      continue;
    }
    if (a == "-o") {
      if (!next(&plan->output)) return Fatal("-o needs a file name");
      continue;
    }
    if (a == "-c") { plan->stage = Stage::kCompile; continue; }
    if (a == "-S") { plan->stage = Stage::kAssemble; continue; }
    if (a == "-E") { plan->stage = Stage::kPreprocess; continue; }
    bool matched = false;
    for (const auto& p : kPpWithArg) {
      if (a == p) {
        if (!next(&value)) return Fatal(a + " needs an argument");
        plan->pp_flags.push_back(a);
        plan->pp_flags.push_back(value);
        matched = true;
        break;
      }
      if (StartsWith(a, p) && (p.size() == 2 || p == "-isystem" || p == "-iquote")) {
        plan->pp_flags.push_back(a);
        matched = true;
        break;
      }
    }
    if (matched) continue;
    for (const auto& p : kDepWithArg) {
      if (a == p || StartsWith(a, p)) {
        plan->dep_flags.push_back(a);
        if (a == p) {
          if (!next(&value)) return Fatal(a + " needs an argument");
          plan->dep_flags.push_back(value);
        }
        plan->has_mf = plan->has_mf || p == "-MF";
        plan->has_mt = plan->has_mt || p != "-MF";
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (a == "-MD" || a == "-MMD" || a == "-MP" || a == "-M" || a == "-MM" || a == "-MG") {
      plan->dep_flags.push_back(a);
      plan->wants_deps = plan->wants_deps || a == "-MD" || a == "-MMD";
      continue;
    }
    if (StartsWith(a, "-std=")) { plan->std_flag = a; continue; }
    // The driver's own options and bisheng's.
    if (StartsWith(a, "--npu-arch")) {
      if (a == "--npu-arch") {
        if (!next(&value)) return Fatal("--npu-arch needs a value");
      } else {
        value = a.substr(a.find('=') + 1);
      }
      if (const int rc = ParseNpuArch(value, &plan->npu_arch)) return rc;
      continue;
    }
    if (StartsWith(a, "--run-mode")) {
      if (a == "--run-mode") {
        if (!next(&value)) return Fatal("--run-mode needs a value");
      } else {
        value = a.substr(a.find('=') + 1);
      }
      if (const int rc = ParseRunMode(value, &plan->run_mode)) return rc;
      continue;
    }
    if (a == "--npu-soc" || a == "-x") {
      if (!next(&value)) return Fatal(a + " needs a value");
      if (a == "-x" && value != "asc" && value != "c++" && value != "none") {
        Warn("ignoring '-x " + value + "': aicore-asc compiles every source as C++ (.asc)");
      }
      continue;
    }
    if (StartsWith(a, "--npu-soc=") || a == "-xasc" || a == "-xc++" || a == "-dc" ||
        StartsWith(a, "--cce-") || a == "--sanitizer" || a == "--enable-simt" ||
        a == "--asc-aicore-lang" || a == "-lib") {
      continue;  // bisheng options with no meaning on the CPU
    }
    if (a == "-save-temps") { plan->save_temps = true; continue; }
    if (a == "-v") { plan->verbose = true; continue; }
    if (a == "-shared") {
      plan->shared = true;
      plan->link.push_back(a);
      continue;
    }
    if (a == "-Xlinker" || a == "-L" || a == "-l" || a == "-T" || a == "-u") {
      if (!next(&value)) return Fatal(a + " needs an argument");
      plan->link.push_back(a);
      plan->link.push_back(value);
      continue;
    }
    if (StartsWith(a, "-Wl,") || StartsWith(a, "-l") || StartsWith(a, "-L") || a == "-rdynamic" ||
        a == "-static" || a == "-static-libstdc++" || a == "-static-libgcc" || a == "-pie" ||
        a == "-no-pie" || a == "-nostdlib" || a == "-s" || StartsWith(a, "-fuse-ld=")) {
      plan->link.push_back(a);
      continue;
    }
    if (StartsWith(a, "-O") || StartsWith(a, "-g") || StartsWith(a, "-f") || StartsWith(a, "-m") ||
        StartsWith(a, "-W") || StartsWith(a, "-pedantic") || a == "-pthread" || a == "-w" ||
        a == "--coverage" || a == "-pipe" || StartsWith(a, "--sysroot") || a == "-p" ||
        a == "-pg") {
      plan->common.push_back(a);
      continue;
    }
    if (plan->launcher) {
      plan->common.push_back(a);  // the compiler's business
      continue;
    }
    Warn("dropping unknown option '" + a + "'");
  }
  return 0;
}

std::vector<std::string> MarkerDefines() {
  return {"-D__global__=" + std::string(kGlobalMarker),
          "-D__vector__=" + std::string(kVectorMarker),
          "-D__cube__=" + std::string(kCubeMarker),
          "-D__mix__(c,v)=" + std::string(kMixMarker) + "(c,v)",
          "-DAICORE_ASC=1"};
}

// Preprocesses, rewrites and compiles `source` into `object` (or writes the rewritten unit for
// -E). Returns the exit code.
int CompileSource(const Plan& plan, const Install& install, const std::string& source,
                  const std::string& object, bool write_deps) {
  std::vector<std::string> pre = plan.host;
  pre.insert(pre.end(), {"-E", "-x", "c++"});
  const std::string std_flag = EffectiveStd(plan.std_flag, plan.launcher);
  if (!std_flag.empty()) pre.push_back(std_flag);
  if (!plan.launcher) {
    pre.insert(pre.end(), {"-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1", "-D__CCE_KT_TEST__=1",
                           "-D__NPU_ARCH__=" + std::to_string(plan.npu_arch)});
  }
  for (const auto& d : MarkerDefines()) pre.push_back(d);
  pre.insert(pre.end(), plan.pp_flags.begin(), plan.pp_flags.end());
  pre.insert(pre.end(), plan.common.begin(), plan.common.end());
  for (const auto& dir : install.include_dirs) {
    pre.push_back(plan.launcher ? "-idirafter" : "-isystem");
    pre.push_back(dir);
  }
  if (write_deps && plan.stage != Stage::kPreprocess) {
    pre.insert(pre.end(), plan.dep_flags.begin(), plan.dep_flags.end());
    if (plan.wants_deps && !plan.has_mf) {
      const size_t dot = object.rfind('.');
      pre.insert(pre.end(), {"-MF", (dot == std::string::npos ? object : object.substr(0, dot)) +
                                        ".d"});
    }
    if (plan.wants_deps && !plan.has_mt) pre.insert(pre.end(), {"-MT", object});
  }
  const bool verbose = plan.verbose || Verbose();
  TempFile pre_out(".ii", plan.save_temps);
  TempFile rewritten(".asc.ii", plan.save_temps);
  if (pre_out.path().empty() || rewritten.path().empty()) {
    return Fatal("cannot create a temporary file");
  }
  auto preprocess = [&](bool force_launch_header, RewriteResult* result) -> int {
    std::vector<std::string> cmd = pre;
    if (force_launch_header) cmd.insert(cmd.end(), {"-include", "aicore/runtime/launch.h"});
    cmd.insert(cmd.end(), {source, "-o", pre_out.path()});
    if (const int rc = Run(cmd, verbose)) return rc;
    std::string text;
    if (!ReadFile(pre_out.path(), &text)) return Fatal("cannot read " + pre_out.path());
    RewriteOptions options;
    options.npu_arch = plan.npu_arch;
    *result = Rewrite(text, options);
    return 0;
  };
  RewriteResult result;
  if (const int rc = preprocess(false, &result)) return rc;
  if (result.errors.empty() && result.launches > 0 &&
      result.text.find("class AscLauncher") == std::string::npos) {
    if (const int rc = preprocess(true, &result)) return rc;
  }
  if (!result.errors.empty()) {
    for (const auto& e : result.errors) std::fprintf(stderr, "%s: error: %s\n",
                                                     e.substr(0, e.find(": ")).c_str(),
                                                     e.substr(e.find(": ") + 2).c_str());
    return 1;
  }
  if (plan.save_temps || verbose) {
    std::fprintf(stderr, "aicore-asc: %s: %d <<<>>> launch(es) rewritten into %s\n",
                 source.c_str(), result.launches, rewritten.path().c_str());
  }
  if (plan.stage == Stage::kPreprocess) {
    if (object.empty() || object == "-") {
      std::fwrite(result.text.data(), 1, result.text.size(), stdout);
      return 0;
    }
    return WriteFile(object, result.text) ? 0 : Fatal("cannot write " + object);
  }
  if (!WriteFile(rewritten.path(), result.text)) return Fatal("cannot write " + rewritten.path());
  std::vector<std::string> cc = plan.host;
  cc.insert(cc.end(), {"-x", "c++-cpp-output"});
  if (!std_flag.empty()) cc.push_back(std_flag);
  cc.insert(cc.end(), plan.common.begin(), plan.common.end());
  cc.push_back(plan.stage == Stage::kAssemble ? "-S" : "-c");
  cc.insert(cc.end(), {rewritten.path(), "-o", object});
  return Run(cc, verbose);
}

std::string ObjectName(const std::string& source, const std::string& ext) {
  std::string base = source.substr(source.rfind('/') + 1);
  const size_t dot = base.rfind('.');
  return (dot == std::string::npos ? base : base.substr(0, dot)) + ext;
}

int RunLauncher(const std::vector<std::string>& args, const Install& install) {
  Plan plan;
  plan.launcher = true;
  size_t first = 0;
  while (first < args.size() && args[first][0] != '-' && !IsCxxSource(args[first]) &&
         !IsLinkInput(args[first])) {
    plan.host.push_back(args[first++]);
  }
  const std::vector<std::string> passthrough(args.begin(), args.end());
  if (const int rc = Parse(args, first, &plan)) return rc;
  if (plan.stage != Stage::kCompile || plan.source_slots.size() != 1 ||
      EndsWith(plan.link[plan.source_slots[0]], ".c")) {
    return Run(passthrough, plan.verbose || Verbose());
  }
  // Everything that is not the source goes to the compiler as given.
  for (size_t i = 0; i < plan.link.size(); ++i) {
    if (i != plan.source_slots[0]) plan.common.push_back(plan.link[i]);
  }
  const std::string& source = plan.link[plan.source_slots[0]];
  const std::string object = plan.output.empty() ? ObjectName(source, ".o") : plan.output;
  return CompileSource(plan, install, source, object, true);
}

}  // namespace

Install FindInstall() {
  Install in;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  std::string bin = exe.substr(0, exe.rfind('/'));
  in.prefix = bin.substr(0, bin.rfind('/'));
  if (const char* env = std::getenv("AICORE_ASC_PREFIX"); env != nullptr && *env != '\0') {
    in.prefix = env;
  }
  for (const auto& d : SplitList(AICORE_ASC_INCLUDE_DIRS)) in.include_dirs.push_back(in.prefix + "/" + d);
  for (const auto& l : SplitList(AICORE_ASC_WHOLE_LIBS)) in.whole_libs.push_back(in.prefix + "/" + l);
  for (const auto& l : SplitList(AICORE_ASC_LIBS)) in.libs.push_back(in.prefix + "/" + l);
  in.sim_lib = in.prefix + "/" + AICORE_ASC_SIM_LIB;
  in.host_cxx = AICORE_ASC_HOST_CXX;
  if (const char* env = std::getenv("AICORE_ASC_CXX"); env != nullptr && *env != '\0') {
    in.host_cxx = env;
  }
  return in;
}

int RunDriver(const std::vector<std::string>& args, const Install& install) {
  if (args.empty()) {
    std::fprintf(stderr,
                 "usage: aicore-asc [options] file.asc... [-c] [-o out]  (bisheng-style driver)\n"
                 "       aicore-asc <compiler> <compiler args...>      (launcher mode)\n"
                 "options: --npu-arch=dav-2201|dav-2002|dav-3510 --run-mode=cpu|sim, the host\n"
                 "compiler's -I -D -O -g -f... -c -S -E -o -shared -l -L -Wl,...; AICORE_ASC_CXX\n"
                 "overrides the host compiler (%s), AICORE_ASC_VERBOSE=1 prints the commands.\n",
                 AICORE_ASC_HOST_CXX);
    return 2;
  }
  if (args[0] == "--version") {
    std::printf("aicore-asc %s (aicore's AscendC driver for the CPU; host compiler %s)\n",
                AICORE_ASC_VERSION, install.host_cxx.c_str());
    return 0;
  }
  if (args[0][0] != '-' && !IsCxxSource(args[0]) && !IsLinkInput(args[0])) {
    return RunLauncher(args, install);
  }
  Plan plan;
  plan.host = {install.host_cxx};
  if (const int rc = Parse(args, 0, &plan)) return rc;
  const bool verbose = plan.verbose || Verbose();
  if (plan.source_slots.empty() && plan.stage != Stage::kLink) {
    return Fatal("no input source (.asc, .cpp, .cc, .cxx)");
  }
  if (plan.stage != Stage::kLink) {
    if (!plan.output.empty() && plan.source_slots.size() > 1) {
      return Fatal("-o with -c, -S or -E takes one source");
    }
    for (size_t slot : plan.source_slots) {
      const std::string& source = plan.link[slot];
      std::string out = plan.output;
      if (out.empty() && plan.stage != Stage::kPreprocess) {
        out = ObjectName(source, plan.stage == Stage::kAssemble ? ".s" : ".o");
      }
      if (const int rc = CompileSource(plan, install, source, out, true)) return rc;
    }
    return 0;
  }
  // Compile and link.
  std::vector<std::unique_ptr<TempFile>> objects;
  for (size_t slot : plan.source_slots) {
    objects.push_back(std::make_unique<TempFile>(".o", plan.save_temps));
    if (objects.back()->path().empty()) return Fatal("cannot create a temporary file");
    if (const int rc = CompileSource(plan, install, plan.link[slot], objects.back()->path(),
                                     false)) {
      return rc;
    }
    plan.link[slot] = objects.back()->path();
  }
  std::vector<std::string> ld = plan.host;
  ld.insert(ld.end(), plan.common.begin(), plan.common.end());
  ld.insert(ld.end(), plan.link.begin(), plan.link.end());
  ld.insert(ld.end(), {"-o", plan.output.empty() ? "a.out" : plan.output});
  if (!plan.shared) {
    ld.push_back("-Wl,--whole-archive");
    ld.insert(ld.end(), install.whole_libs.begin(), install.whole_libs.end());
    if (plan.run_mode == "sim") ld.push_back(install.sim_lib);
    ld.push_back("-Wl,--no-whole-archive");
    ld.push_back("-Wl,--start-group");
    ld.insert(ld.end(), install.libs.begin(), install.libs.end());
    ld.push_back("-Wl,--end-group");
    ld.push_back("-rdynamic");
  }
  ld.insert(ld.end(), {"-pthread", "-ldl"});
  return Run(ld, verbose);
}

}  // namespace aicore::asc
