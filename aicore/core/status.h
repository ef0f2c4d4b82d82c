// Status and errors: a code, a message and the source location that raised it. Errors that must
// cross a kernel boundary are thrown as aicore::Error and caught by the launcher.
#pragma once

#include <source_location>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace aicore {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // a value outside what the API allows
  kOutOfRange,        // an access past a tensor's or buffer's extent
  kResourceExhausted, // a buffer, pool or device memory is full
  kFailedPrecondition,// the call is illegal in the current state (e.g. use after FreeTensor)
  kDeadlock,          // every live block waits and none can proceed
  kNotFound,
  kUnimplemented,
  kInternal,
};

// Returns "InvalidArgument", "OutOfRange", ...
const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message,
         std::source_location where = std::source_location::current())
      : code_(code), message_(std::move(message)), where_(where) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::source_location& where() const { return where_; }
  // Returns "<Code>: <message>" (or "OK").
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::source_location where_;
};

// The exception that carries a Status out of kernel code, the scheduler or the runtime.
class Error : public std::runtime_error {
 public:
  explicit Error(Status status) : std::runtime_error(status.ToString()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

// Concatenates the streamable arguments into a string: StrCat("size ", n, " > ", cap).
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// Throws aicore::Error with `code` and the concatenated message.
template <typename... Args>
[[noreturn]] void Fail(StatusCode code, std::source_location where, const Args&... args) {
  throw Error(Status(code, StrCat(args...), where));
}

}  // namespace aicore

// Throws an InvalidArgument error unless `cond` holds; the message is the concatenated rest.
#define AICORE_CHECK(cond, ...)                                                      \
  do {                                                                               \
    if (!(cond)) [[unlikely]]                                                        \
      ::aicore::Fail(::aicore::StatusCode::kInvalidArgument,                         \
                     ::std::source_location::current(), __VA_ARGS__);                \
  } while (0)

// Returns a non-ok Status from the enclosing function.
#define AICORE_RETURN_IF_ERROR(expr)         \
  do {                                       \
    ::aicore::Status aicore_status_ = (expr); \
    if (!aicore_status_.ok()) return aicore_status_; \
  } while (0)
