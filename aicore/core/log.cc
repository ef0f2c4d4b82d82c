// Leveled logging to stderr.
#include "aicore/core/log.h"

#include <cstring>
#include <iostream>
#include <mutex>

#include "aicore/core/env.h"

namespace aicore {

LogLevel CurrentLogLevel() {
  static const LogLevel level = [] {
    const std::string v = env::Choice("AICORE_LOG_LEVEL", {"error", "warn", "info", "debug"}, "warn");
    if (v == "error") return LogLevel::kError;
    if (v == "info") return LogLevel::kInfo;
    if (v == "debug") return LogLevel::kDebug;
    return LogLevel::kWarn;
  }();
  return level;
}

LogMessage::LogMessage(LogLevel level, const char* file, int line)
    : level_(level), file_(file), line_(line) {}

LogMessage::~LogMessage() {
  static const char* const kNames[] = {"error", "warn", "info", "debug"};
  static std::mutex mu;
  const char* base = std::strrchr(file_, '/');
  std::lock_guard<std::mutex> lock(mu);
  std::cerr << "[aicore " << kNames[static_cast<int>(level_)] << "] " << os_.str() << " ("
            << (base ? base + 1 : file_) << ":" << line_ << ")\n";
}

}  // namespace aicore
