// Kernel debug output: printf/PRINTF, DumpTensor, PrintTimeStamp, the C-style asc_dump_* and
// asc_time_stamp, and KERNEL_LOG.
//
// Note [Kernel output lines]
// Blocks run as fibers on several worker threads, so their output must not mix mid-line. Each
// core keeps its text after the last newline (sim::Core::print_pending); a call writes only whole
// lines, each prefixed with the core as CANN's NPU mode prints it ("[AIV Block 3/8] "), in a
// single fwrite, which stdio serialises against every other thread. A core's unfinished last
// line is written when the core ends. Outside a kernel the text is written as is. Defining
// ASCENDC_DUMP=0 turns printf, PRINTF and DumpTensor into no-ops, as in CANN.
// One gap: an unqualified printf("text") with no arguments (under `using namespace AscendC`, or
// through utils/debug/asc_printf.h's global export) resolves to C's printf (a non-template wins a
// tie), so it prints without the prefix; with arguments, or written AscendC::printf / PRINTF, the
// kernel printf is chosen. aicore-asc closes the gap in kernel bodies (Note [printf in kernel
// bodies] in tools/asc/rewrite.cc).
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
// Returns host memory for `p` passed to asc_dump_<buffer> `api`: a host address inside the
// calling core's buffer `b`, or a byte offset into it (what LocalTensor::GetPhyAddr returns, cast
// to a pointer, as kernels write it); `*bytes_left` gets the bytes from there to the buffer's end.
// Fails naming the API, the address and the buffer otherwise (on a split chip UB is the AIV's,
// L1 and L0C the AIC's).
const void* ResolveLocalDump(aicore::arch::Buffer b, const void* p, uint64_t* bytes_left,
                             const char* api, const SrcLoc& loc);
// Returns the elements of T a GM dump at `p` may read: the rest of its GmAlloc or device
// allocation, or `requested` when `p` lies in none. Fails for nullptr and freed memory.
uint64_t GmDumpAvailable(const void* p, uint64_t elem_bytes, uint64_t requested, const char* api,
                         const SrcLoc& loc);
// Writes PrintTimeStamp's line "descId is <id>, rsv is 0, timeStamp is <cycle>, pcPtr is 0,
// entry is 0." for the calling core.
void WriteTimeStamp(uint32_t desc_id, const SrcLoc& loc);
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

// Marks a point of the kernel: with -DASCENDC_TIME_STAMP_ON (CANN's switch for this feature) it
// prints "descId is <descId>, rsv is 0, timeStamp is <GetSystemCycle()>, pcPtr is 0, entry is 0."
// as one kernel output line with the core prefix (the CPU has no PC: pcPtr is 0; entry is the
// reserved field). Without the switch it does nothing, as in CANN (where CPU debug mode never
// prints it). `static`: each translation unit keeps its own setting of the switch.
static inline void PrintTimeStamp(uint32_t descId, detail::SrcLoc loc = detail::SrcLoc::current()) {
#if defined(ASCENDC_TIME_STAMP_ON)
  detail::WriteTimeStamp(descId, loc);
#else
  (void)descId;
  (void)loc;
#endif
}

}  // namespace AscendC

// The C-style spelling of PrintTimeStamp (CANN's asc_time_stamp).
static inline void asc_time_stamp(uint32_t desc_id,
                                  AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::PrintTimeStamp(desc_id, loc);
}

// The C-style dumps of utils/debug/asc_dump.h: `dump_size` elements of T at `input` (fewer when
// the memory ends sooner), printed as DumpTensor prints them with `desc` in the header. GM takes a
// GM pointer; the local forms take LocalTensor::GetPhyAddr() cast to a pointer (an offset into
// the calling core's buffer) or a host address inside that buffer. ASCENDC_DUMP=0 makes them
// no-ops.
template <typename T>
void asc_dump_gm(__gm__ T* input, uint32_t desc, uint32_t dump_size,
                 AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
  const uint64_t n =
      AscendC::detail::GmDumpAvailable(input, sizeof(T), dump_size, "asc_dump_gm", loc);
  AscendC::detail::DumpElements(input, reinterpret_cast<uintptr_t>(input), "GM", desc,
                                dump_size, n, nullptr);
#else
  (void)input, (void)desc, (void)dump_size, (void)loc;
#endif
}

namespace AscendC::detail {
template <typename T>
void DumpLocalC(aicore::arch::Buffer b, const char* api, const T* input, uint32_t desc,
                uint32_t dump_size, const SrcLoc& loc) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP != 0
  uint64_t bytes_left = 0;
  const auto* data = static_cast<const T*>(ResolveLocalDump(b, input, &bytes_left, api, loc));
  const uint64_t offset = Core().Locate(data, 0).offset;
  DumpElements(data, offset, aicore::arch::BufferName(b), desc, dump_size,
               bytes_left / sizeof(T), nullptr);
#else
  (void)b, (void)api, (void)input, (void)desc, (void)dump_size, (void)loc;
#endif
}
}  // namespace AscendC::detail

template <typename T>
void asc_dump_ubuf(__ubuf__ T* input, uint32_t desc, uint32_t dump_size,
                   AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::detail::DumpLocalC(aicore::arch::Buffer::kUb, "asc_dump_ubuf", input, desc, dump_size,
                              loc);
}
template <typename T>
void asc_dump_l1buf(__cbuf__ T* input, uint32_t desc, uint32_t dump_size,
                    AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::detail::DumpLocalC(aicore::arch::Buffer::kL1, "asc_dump_l1buf", input, desc,
                              dump_size, loc);
}
template <typename T>
void asc_dump_cbuf(__cc__ T* input, uint32_t desc, uint32_t dump_size,
                   AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::detail::DumpLocalC(aicore::arch::Buffer::kL0C, "asc_dump_cbuf", input, desc,
                              dump_size, loc);
}

// KERNEL_LOG(KERNEL_ERROR, "fmt", args...): one line with CANN's CPU-mode prefix
// "[ERROR][Block_i][AIV_k][file:line][func][pid] " (Note [Kernel output lines]).
#define KERNEL_LOG(level, fmt, ...)                                                             \
  ::AscendC::detail::KernelWrite(                                                               \
      ::AscendC::detail::KernelLogPrefix(::AscendC::detail::KernelLogLevel::level, __FILE__,    \
                                         __LINE__, __func__) +                                  \
      ::AscendC::detail::FormatV(fmt __VA_OPT__(, ) __VA_ARGS__) + "\n")
