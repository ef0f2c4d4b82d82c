// The source rewriter of the aicore-asc driver: turns every `kernel<<<numBlocks, ubuf, stream>>>`
// launch of a (preprocessed) C++ translation unit into a call of aicore::detail::AscLaunch, with
// the kernel type read from the qualifier markers of the kernel's declaration, qualifies the
// unqualified printf calls of kernel bodies as ::AscendC::printf, and removes the markers. Strings, character literals, comments and line directives are left as they are.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aicore::asc {

// The tokens the driver makes the kernel qualifiers expand to (-D__global__=<marker> ...), so the
// rewriter sees them in the preprocessed text. Each is removed from the output.
inline constexpr std::string_view kGlobalMarker = "__aicore_asc_global__";
inline constexpr std::string_view kVectorMarker = "__aicore_asc_vector__";
inline constexpr std::string_view kCubeMarker = "__aicore_asc_cube__";
inline constexpr std::string_view kMixMarker = "__aicore_asc_mix__";  // followed by (cube, vector)

struct RewriteOptions {
  int npu_arch = 2201;  // __NPU_ARCH__ of the compilation (2201, 2002, 3510)
};

struct RewriteResult {
  std::string text;                 // the rewritten translation unit
  std::vector<std::string> errors;  // "file:line: message", empty on success
  int launches = 0;                 // <<<>>> launches rewritten
  int printf_calls = 0;             // printf calls in kernel bodies qualified as AscendC::printf
};

// Rewrites `source`. A launch's kernel type is the one its kernel's declaration (in this unit)
// states: __vector__ -> AIV only, __cube__ -> AIC only, __mix__(1, 2) / (1, 1) -> mix groups,
// __mix__(1, 0) -> AIC only, __mix__(0, 1) -> AIV only. A kernel declared with none of them is
// typed by the unit's code outside system headers (See Note [Undecorated kernels] in rewrite.cc).
// Malformed launches (no `>>>`, no argument list, more than three launch arguments, an
// unsupported __mix__ ratio) are reported in `errors` with the line of the user's file.
RewriteResult Rewrite(std::string_view source, const RewriteOptions& options = {});

}  // namespace aicore::asc
