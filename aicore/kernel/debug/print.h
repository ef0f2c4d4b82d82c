// Kernel debug output: printf/PRINTF, DumpTensor and KERNEL_LOG.
//
// Note [Kernel output lines]
// Blocks run as fibers on several worker threads, so their output must not mix mid-line. Each
// core keeps its text after the last newline (sim::Core::print_pending); a call writes only whole
// lines, each prefixed with the core as CANN's NPU mode prints it ("[AIV Block 3/8] "), in a
// single fwrite, which stdio serialises against every other thread. A core's unfinished last
// line is written when the core ends. Outside a kernel the text is written as is. Defining
// ASCENDC_DUMP=0 turns printf, PRINTF and DumpTensor into no-ops, as in CANN.
// One gap: an unqualified printf("text") with no arguments under `using namespace AscendC`
// resolves to C's printf (a non-template wins a tie), so it prints without the prefix; with
// arguments, or written AscendC::printf / PRINTF, the kernel printf is chosen.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "aicore/core/dtype.h"
#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/tensor/shape_info.h"

namespace AscendC {

namespace detail {

// Formats like std::snprintf (arguments already promoted to C varargs types).
std::string FormatV(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Appends `text` to the calling core's output (Note [Kernel output lines]).
void KernelWrite(const std::string& text);

// Converts a printf argument to what C varargs can carry: half and bfloat16 print as double.
template <typename A>
auto PrintArg(const A& a) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, aicore::half> || std::is_same_v<D, aicore::bfloat16>) {
    return static_cast<double>(static_cast<float>(a));
  } else if constexpr (std::is_enum_v<D>) {
    return static_cast<std::underlying_type_t<D>>(a);
  } else {
    return a;
  }
}

// One element of a DumpTensor as text ("%f" for floating types, decimal for integers).
std::string DumpValue(double v, bool floating);
// Writes a DumpTensor block: header line, optional shape note, the values.
void DumpBlock(uint32_t desc, uint64_t addr, aicore::DType dt, const char* position,
               uint32_t dump_size, const double* values, uint32_t available, bool floating,
               const ShapeInfo* shape);

template <typename T>
void DumpElements(const T* data, uint64_t addr, const char* position, uint32_t desc,
                  uint32_t dump_size, uint64_t available, const ShapeInfo* shape) {
  const uint32_t n = static_cast<uint32_t>(available < dump_size ? available : dump_size);
  std::vector<double> values(n, 0.0);
  for (uint32_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, aicore::half> || std::is_same_v<T, aicore::bfloat16>) {
      values[i] = static_cast<float>(data[i]);
    } else {
      values[i] = static_cast<double>(data[i]);
    }
  }
  constexpr bool kFloating = std::is_floating_point_v<T> || std::is_same_v<T, aicore::half> ||
                             std::is_same_v<T, aicore::bfloat16>;
  DumpBlock(desc, addr, aicore::DTypeOf<T>(), position, dump_size, values.data(), n, kFloating,
            shape);
}

const char* LocalPositionName(const void* p);

enum class KernelLogLevel { KERNEL_DEBUG, KERNEL_INFO, KERNEL_WARN, KERNEL_ERROR };
// Returns the CPU-mode KERNEL_LOG prefix "[ERROR][Block_3][AIV_1][file:line][func][pid] ".
std::string KernelLogPrefix(KernelLogLevel level, const char* file, int line, const char* func);

}  // namespace detail

// Prints like C printf from a kernel, one whole line at a time with the core as prefix
// (Note [Kernel output lines]). half and bfloat16_t arguments print with %f.
template <typename... Args>
void printf(const char* fmt, Args&&... args) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
  detail::KernelWrite(detail::FormatV(fmt, detail::PrintArg(args)...));
#pragma GCC diagnostic pop
#else
  (void)fmt;
  ((void)args, ...);
#endif
}
// PRINTF is the same function under its macro-era name.
template <typename... Args>
void PRINTF(const char* fmt, Args&&... args) {
  printf(fmt, static_cast<Args&&>(args)...);
}

// Prints `dumpSize` elements of `tensor` (fewer if the tensor is shorter) after a header naming
// `desc`, the byte address, the data type and the position, as CANN's DumpTensor does.
template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                detail::SrcLoc loc = detail::SrcLoc::current()) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
  tensor.CheckLive("DumpTensor", loc);
  detail::DumpElements(tensor.data(), tensor.GetPhyAddr(), detail::LocalPositionName(tensor.data()),
                       desc, dumpSize, tensor.GetSize(), nullptr);
#endif
}
// The same, laid out by `shapeInfo` (missing elements print as "-", extra ones are left out).
template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                const ShapeInfo& shapeInfo, detail::SrcLoc loc = detail::SrcLoc::current()) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
  tensor.CheckLive("DumpTensor", loc);
  detail::DumpElements(tensor.data(), tensor.GetPhyAddr(), detail::LocalPositionName(tensor.data()),
                       desc, dumpSize, tensor.GetSize(), &shapeInfo);
#endif
}
// GM forms: an unbounded GlobalTensor dumps all dumpSize elements.
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                detail::SrcLoc loc = detail::SrcLoc::current()) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
  if (tensor.data() == nullptr) {
    detail::Fail(aicore::StatusCode::kFailedPrecondition, "DumpTensor", loc,
                 "GlobalTensor has no buffer (call SetGlobalBuffer first)");
  }
  detail::DumpElements(tensor.data(), reinterpret_cast<uintptr_t>(tensor.data()), "GM", desc,
                       dumpSize, tensor.bounded() ? tensor.GetSize() : dumpSize, nullptr);
#endif
}
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                const ShapeInfo& shapeInfo, detail::SrcLoc loc = detail::SrcLoc::current()) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
  if (tensor.data() == nullptr) {
    detail::Fail(aicore::StatusCode::kFailedPrecondition, "DumpTensor", loc,
                 "GlobalTensor has no buffer (call SetGlobalBuffer first)");
  }
  detail::DumpElements(tensor.data(), reinterpret_cast<uintptr_t>(tensor.data()), "GM", desc,
                       dumpSize, tensor.bounded() ? tensor.GetSize() : dumpSize, &shapeInfo);
#endif
}

}  // namespace AscendC

// KERNEL_LOG(KERNEL_ERROR, "fmt", args...): one line with CANN's CPU-mode prefix
// "[ERROR][Block_i][AIV_k][file:line][func][pid] " (Note [Kernel output lines]).
#define KERNEL_LOG(level, fmt, ...)                                                             \
  ::AscendC::detail::KernelWrite(                                                               \
      ::AscendC::detail::KernelLogPrefix(::AscendC::detail::KernelLogLevel::level, __FILE__,    \
                                         __LINE__, __func__) +                                  \
      ::AscendC::detail::FormatV(fmt __VA_OPT__(, ) __VA_ARGS__) + "\n")
