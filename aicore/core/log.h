// Minimal leveled logging to stderr. The level comes from AICORE_LOG_LEVEL (error, warn, info,
// debug; default warn).
#pragma once

#include <sstream>

namespace aicore {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// Returns the level set by AICORE_LOG_LEVEL, read once.
LogLevel CurrentLogLevel();

// Collects one message and writes it, with its level and origin, when destroyed.
class LogMessage {
 public:
  LogMessage(LogLevel level, const char* file, int line);
  ~LogMessage();
  std::ostream& stream() { return os_; }

 private:
  LogLevel level_;
  const char* file_;
  int line_;
  std::ostringstream os_;
};

}  // namespace aicore

#define AICORE_LOG(level)                                                        \
  if (::aicore::LogLevel::level > ::aicore::CurrentLogLevel()) {                 \
  } else                                                                         \
    ::aicore::LogMessage(::aicore::LogLevel::level, __FILE__, __LINE__).stream()
