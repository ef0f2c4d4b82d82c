// Environment parsing: one strict parser per kind of value; a rejected value is reported once per
// read (each variable is read once, when its subsystem first needs it).
#include "aicore/core/env.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

extern char** environ;

namespace aicore::env {

namespace {

constexpr std::initializer_list<const char*> kKnown = {
    "AICORE_ALLOC_CONF",     "AICORE_CHECK",       "AICORE_CHIP",      "AICORE_DEVICE_COUNT",
    "AICORE_DEVICE_MEMORY_MB", "AICORE_DIFFERENTIAL", "AICORE_ISA",     "AICORE_LOG_LEVEL",
    "AICORE_MATMUL_FUSED",   "AICORE_MMAD_BF16",   "AICORE_MMAD_INT8", "AICORE_PROFILE",
    "AICORE_MATMUL_PANEL_CACHE",
    "AICORE_STACK_KB",       "AICORE_THREADS",     "AICORE_TUNE",      "AICORE_TUNE_CACHE",
    // Set by `aicore profile` for the program it runs (Note [Profile status] in
    // aicore/perf/profiler.cc).
    "AICORE_PROFILE_STATUS",
    // Read by the aicore-asc driver (tools/asc), not by programs; known so that a shell that
    // exports them for builds runs programs without a warning.
    "AICORE_ASC_CXX",        "AICORE_ASC_PREFIX",  "AICORE_ASC_VERBOSE",
};

void WarnUnknownOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string_view entry(*e);
      if (entry.substr(0, 7) != "AICORE_") continue;
      const std::string_view name = entry.substr(0, entry.find('='));
      bool known = false;
      for (const char* k : kKnown) known = known || name == k;
      if (!known) {
        std::string list;
        for (const char* k : kKnown) list += std::string(list.empty() ? "" : ", ") + k;
        std::fprintf(stderr, "[aicore warn] %.*s is not an aicore variable and is ignored (known: %s)\n",
                     static_cast<int>(name.size()), name.data(), list.c_str());
      }
    }
  });
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

}  // namespace

void Warn(const char* name, std::string_view value, std::string_view problem) {
  std::fprintf(stderr, "[aicore warn] %s=%.*s: %.*s\n", name, static_cast<int>(value.size()),
               value.data(), static_cast<int>(problem.size()), problem.data());
}

std::optional<std::string> Get(const char* name) {
  WarnUnknownOnce();
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

int64_t Int(const char* name, int64_t fallback, int64_t min, int64_t max) {
  return IntOr(name, min, max, std::to_string(fallback)).value_or(fallback);
}

std::optional<int64_t> IntOr(const char* name, int64_t min, int64_t max,
                             std::string_view default_text) {
  const auto v = Get(name);
  if (!v) return std::nullopt;
  const std::string fallback(default_text);
  std::string_view s = *v;
  int base = 10;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  const std::string range =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (s.empty() || end != s.data() + s.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    Warn(name, *v, "not an integer (accepted: " + range + "); using the default " + fallback);
    return std::nullopt;
  }
  const bool huge = ec == std::errc::result_out_of_range || magnitude > uint64_t{INT64_MAX};
  if (!negative && (huge || static_cast<int64_t>(magnitude) > max)) {
    Warn(name, *v, "above the maximum " + std::to_string(max) + " (accepted: " + range +
                       "); clamped to " + std::to_string(max));
    return max;
  }
  const int64_t value = negative ? (huge ? INT64_MIN : -static_cast<int64_t>(magnitude))
                                 : static_cast<int64_t>(magnitude);
  if (value < min) {
    Warn(name, *v, "below the minimum " + std::to_string(min) + " (accepted: " + range +
                       "); using the default " + fallback);
    return std::nullopt;
  }
  return value;
}

std::string Choice(const char* name, std::initializer_list<std::string_view> choices,
                   std::string_view fallback) {
  const auto v = Get(name);
  if (!v) return std::string(fallback);
  std::string list;
  for (std::string_view c : choices) {
    if (*v == c) return *v;
    list += (list.empty() ? "" : ", ") + std::string(c);
  }
  Warn(name, *v, "not one of " + list + "; using " + std::string(fallback));
  return std::string(fallback);
}

bool Bool(const char* name, bool fallback) {
  const auto v = Get(name);
  if (!v) return fallback;
  const std::string s = Lower(*v);
  if (s == "1" || s == "true" || s == "on" || s == "yes") return true;
  if (s == "0" || s == "false" || s == "off" || s == "no") return false;
  Warn(name, *v, std::string("not a boolean (accepted: 1, true, on, yes, 0, false, off, no); using ") +
                     (fallback ? "1" : "0"));
  return fallback;
}

std::initializer_list<const char*> KnownVariables() { return kKnown; }

}  // namespace aicore::env
