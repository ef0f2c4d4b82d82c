// Assertion failures and Trap: kernel errors inside a kernel (Note [Kernel assert]).
#include "aicore/kernel/debug/assert.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace AscendC {

void Trap(detail::SrcLoc loc) {
  detail::Fail(aicore::StatusCode::kFailedPrecondition, "Trap", loc, "the kernel called Trap()");
}

namespace detail {

void AssertFail(const char* expr, const char* file, int line, const char* func,
                const std::string& message) {
  const char* base = std::strrchr(file, '/');
  const std::string text =
      aicore::StrCat("[ASSERT] ", base ? base + 1 : file, ":", line, ": Assertion `", expr,
                     "' failed", message.empty() ? "" : ": ", message);
  if (aicore::sim::CurrentCoreOrNull() == nullptr) {
    std::fprintf(stderr, "%s (in %s)\n", text.c_str(), func);
    std::abort();
  }
  throw aicore::Error(aicore::Status(
      aicore::StatusCode::kFailedPrecondition,
      aicore::StrCat(aicore::sim::CurrentCore().kernel_name(), " ",
                     aicore::sim::CurrentCore().Name(), ": assert: ", text, " (in ", func, ")")));
}

}  // namespace detail
}  // namespace AscendC
