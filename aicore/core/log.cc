// Leveled logging to stderr.
#include "aicore/core/log.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

namespace aicore {

LogLevel CurrentLogLevel() {
  static const LogLevel level = [] {
    const char* env = std::getenv("AICORE_LOG_LEVEL");
    if (env == nullptr) return LogLevel::kWarn;
    if (std::strcmp(env, "error") == 0) return LogLevel::kError;
    if (std::strcmp(env, "info") == 0) return LogLevel::kInfo;
    if (std::strcmp(env, "debug") == 0) return LogLevel::kDebug;
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
