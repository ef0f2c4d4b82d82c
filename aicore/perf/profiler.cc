// The Profiler API and the AICORE_PROFILE environment hook.
//
// Note [Env profiling]
// A static initializer in this file (linked whole into every aicore program, see the top-level
// CMakeLists) checks AICORE_PROFILE. When it names a directory, a Profiler is created and attached
// before main runs, and an atexit handler writes the reports there and prints the summary to
// stderr. The profiler is deliberately never destroyed: at exit other translation units' statics
// (the scheduler's observer list) may already be gone, so the handler only touches its own data.
// AICORE_CHIP selects the chip as for any launch, so the kernel runs and is modelled on it.
//
// Note [Profile status]
// A program can die without running atexit handlers: a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL),
// abort() or an uncaught exception (SIGABRT). The hook catches those signals, writes the reports
// of the launches that completed, and hands the signal on to the disposition that was there
// before (ASan's, or the default action), so the process still dies of it. (The fibers' overflow
// handler, installed later, passes other faults on to this one.) Writing from a signal handler
// is not async-signal-safe (the replay allocates): a crash inside malloc can hang it, so the
// handler first records the crash with plain write()s and `aicore profile` can say what
// happened even then. When AICORE_PROFILE_STATUS names a file, the hook appends lines to it:
// "crash <signal> <launches>" on a fatal signal, "written <launches> <dir>" once the reports
// are written, "error <message>" when they could not be. `aicore profile` reads it to explain a
// run that left no report.
#include "aicore/perf/profiler.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "aicore/core/env.h"
#include "aicore/sim/funnel.h"

namespace aicore::perf {

Profiler::Profiler() = default;
Profiler::Profiler(const arch::Chip& chip) : chip_(chip) {}

Profiler::~Profiler() { Detach(); }

void Profiler::Attach() {
  if (attached_) return;
  sim::AttachObserver(&recorder_);
  attached_ = true;
}

void Profiler::Detach() {
  if (!attached_) return;
  sim::DetachObserver(&recorder_);
  attached_ = false;
}

const std::vector<LaunchResult>& Profiler::Results() {
  const auto& launches = recorder_.launches();
  while (results_.size() < launches.size()) {
    const auto& l = launches[results_.size()];
    const arch::Chip& chip = chip_ ? *chip_ : *l->chip;
    results_.push_back(Analyze(l, chip));
  }
  return results_;
}

Status Profiler::WriteReports(const std::string& dir) {
  try {
    return perf::WriteReports(Results(), dir);
  } catch (const Error& e) {
    return e.status();
  }
}

void Profiler::Clear() {
  recorder_.Clear();
  results_.clear();
}

namespace {

Profiler* g_env_profiler = nullptr;
std::string* g_env_dir = nullptr;
const char* g_status_path = nullptr;  // AICORE_PROFILE_STATUS, or nullptr
std::atomic<bool> g_writing{false};

// Appends `text` to the status file with async-signal-safe calls only.
void AppendStatus(const char* text) {
  if (g_status_path == nullptr) return;
  const int fd = ::open(g_status_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  size_t n = std::strlen(text);
  while (n > 0) {
    const ssize_t w = ::write(fd, text, n);
    if (w <= 0) break;
    text += w;
    n -= static_cast<size_t>(w);
  }
  ::close(fd);
}

// Formats `v` into `buf` without the C library's locale machinery (signal context).
char* Decimal(uint64_t v, char* end) {
  *--end = '\0';
  do {
    *--end = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return end;
}

void WriteEnvReports() {
  Profiler* p = g_env_profiler;
  if (p == nullptr || p->recorder().launches().empty()) return;
  if (g_writing.exchange(true)) return;
  const Status st = p->WriteReports(*g_env_dir);
  if (!st.ok()) {
    std::fprintf(stderr, "aicore profile: %s\n", st.ToString().c_str());
    AppendStatus(StrCat("error ", st.message(), "\n").c_str());
    return;
  }
  const auto& results = p->Results();
  AppendStatus(StrCat("written ", results.size(), " ", *g_env_dir, "\n").c_str());
  std::fprintf(stderr, "aicore profile: %zu launch%s modelled, reports in %s\n", results.size(),
               results.size() == 1 ? "" : "es", g_env_dir->c_str());
  for (const auto& r : results) {
    std::fprintf(stderr, "  %s on %s: %.3f us modeled (body %.3f us), %s corner, %s busy %.1f%%\n",
                 r.kernel.c_str(), r.chip.c_str(), r.kernel_us, r.body_us,
                 r.triangle.corner.c_str(), r.triangle.binding_pipe.c_str(),
                 100 * r.triangle.binding_ratio);
  }
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[sizeof(kFatalSignals) / sizeof(kFatalSignals[0])];

// Note [Profile status]: records the crash, writes the completed launches' reports, then hands
// the signal to the disposition before ours (ASan's, or the default action).
void OnFatalSignal(int sig, siginfo_t* info, void*) {
  char num[24], cnt[24];
  const size_t launches = g_env_profiler ? g_env_profiler->recorder().launches().size() : 0;
  char line[96] = "crash ";
  std::strcat(line, Decimal(static_cast<uint64_t>(sig), num + sizeof(num)));
  std::strcat(line, " ");
  std::strcat(line, Decimal(launches, cnt + sizeof(cnt)));
  std::strcat(line, "\n");
  AppendStatus(line);
  if (launches > 0 && !g_writing.load()) {
    const char msg[] = "aicore profile: fatal signal; writing the reports of the launches that "
                       "completed\n";
    (void)!::write(2, msg, sizeof(msg) - 1);
    try {
      WriteEnvReports();
    } catch (...) {
      AppendStatus("error the reports could not be written after the crash\n");
    }
  }
  for (size_t k = 0; k < sizeof(kFatalSignals) / sizeof(kFatalSignals[0]); ++k) {
    if (kFatalSignals[k] == sig) ::sigaction(sig, &g_previous[k], nullptr);
  }
  // A fault repeats when the handler returns, now under the previous disposition; a signal sent
  // by raise(), abort() or kill() would not, so it is sent again (delivered once we return).
  if (info == nullptr || info->si_code == SI_USER || info->si_code == SI_TKILL) ::raise(sig);
}

void InstallCrashHandlers() {
  // An alternate stack so that a stack overflow still reaches the handler (main thread).
  static char* alt = new char[1 << 20];
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = 1 << 20;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = OnFatalSignal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < sizeof(kFatalSignals) / sizeof(kFatalSignals[0]); ++k) {
    ::sigaction(kFatalSignals[k], &sa, &g_previous[k]);
  }
}

struct EnvHook {
  EnvHook() {
    const auto dir = env::Get("AICORE_PROFILE");
    if (!dir) return;
    g_env_dir = new std::string(*dir);
    if (const auto status = env::Get("AICORE_PROFILE_STATUS"); status && !status->empty()) {
      g_status_path = (new std::string(*status))->c_str();
    }
    g_env_profiler = new Profiler();
    g_env_profiler->Attach();
    std::atexit(WriteEnvReports);
    InstallCrashHandlers();
  }
};
const EnvHook g_env_hook;

}  // namespace

Profiler* EnvProfiler() { return g_env_profiler; }

}  // namespace aicore::perf
