// The kernel side of op-project tiling (AscendC "Kernel Tiling" macros): TILING_KEY_VAR /
// TILING_KEY_IS read the running launch's tiling key; GET_TILING_DATA and its variants copy the
// tiling struct from the GM tiling argument; REGISTER_TILING_DEFAULT and
// REGISTER_TILING_FOR_TILINGKEY name the struct; KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE
// check the declared kernel type against the launch. The key and data belong to one launch (sim::LaunchTiling), so launches on
// different streams never see each other's. See docs/op-projects.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <type_traits>

namespace AscendC::detail {

// Returns the tiling key of the launch the calling kernel runs in (0 when the launch gave none).
// Fails outside a kernel.
uint64_t LaunchTilingKey();

// Copies `bytes` bytes of tiling data at `src` (the kernel's GM tiling argument, plus `offset`)
// to `dst`. Fails with a kernel error naming `api` and `type` when `src` is null or the launch's
// tiling data is known to be shorter than offset + bytes.
void LoadTilingData(void* dst, size_t bytes, const void* src, size_t offset, const char* api,
                    const char* type, const std::source_location& loc);

// Returns `src` as the tiling struct pointer after the same checks as LoadTilingData.
const void* CheckTilingPointer(const void* src, size_t bytes, const char* api, const char* type,
                               const std::source_location& loc);

template <typename T>
constexpr bool IsTilingStruct() {
  return std::is_trivially_copyable_v<T> && std::is_standard_layout_v<T>;
}

// Fails unless the kernel type `type` (a KernelMetaType) can run in the current launch: an
// AIV-only kernel on AIV (or coupled) cores only, an AIC-only kernel in a launch without AIVs, a
// mixed kernel in a launch with both. `key_matches` false: nothing to check (KERNEL_TASK_TYPE of
// another key).
void CheckKernelTaskType(int type, const char* type_name, bool key_matches,
                         const std::source_location& loc);

}  // namespace AscendC::detail

// The kernel types of KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE.
enum KernelMetaType {
  KERNEL_TYPE_AIV_ONLY,
  KERNEL_TYPE_AIC_ONLY,
  KERNEL_TYPE_MIX_AIV_1_0,
  KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1,
  KERNEL_TYPE_MIX_AIC_1_2,
};

// The running launch's tiling key (CANN: the g_tilingKey the generated kernel stub sets).
#define TILING_KEY_VAR (::AscendC::detail::LaunchTilingKey())
// True when the launch's tiling key is `key` (use in if / else if chains).
#define TILING_KEY_IS(key) (TILING_KEY_VAR == static_cast<uint64_t>(key))

// Names the default tiling struct GET_TILING_DATA reads (plain-struct tiling; macro-defined
// tiling classes are named by the op project's generated kernel header instead).
#define REGISTER_TILING_DEFAULT(S)                                                           \
  using AicoreDefaultTilingData [[maybe_unused]] = S;                                          \
  static_assert(::AscendC::detail::IsTilingStruct<AicoreDefaultTilingData>(),                 \
                "REGISTER_TILING_DEFAULT: a tiling struct must be trivially copyable and "     \
                "standard-layout (no pointers, virtuals or containers)")
#define AICORE_TILING_CAT2(a, b) a##b
#define AICORE_TILING_CAT(a, b) AICORE_TILING_CAT2(a, b)
// Registers `S` for the tiling keys where `key_expr` holds. Accepted and checked; kernels read a
// per-key struct with GET_TILING_DATA_WITH_STRUCT(S, ...) inside that key's branch (aicore
// compiles one kernel for all keys, so GET_TILING_DATA always reads the default struct).
#define REGISTER_TILING_FOR_TILINGKEY(key_expr, S)                                              \
  using AICORE_TILING_CAT(AicoreKeyTilingData, __LINE__) [[maybe_unused]] = S;                   \
  static_assert(sizeof(key_expr) > 1, "REGISTER_TILING_FOR_TILINGKEY needs a key expression");   \
  static_assert(::AscendC::detail::IsTilingStruct<S>(),                                         \
                "REGISTER_TILING_FOR_TILINGKEY: a tiling struct must be trivially copyable")
// The op does not pass tiling data.
#define REGISTER_NONE_TILING static_assert(true, "")

// Declares `var` (struct S) holding a copy of the tiling data at GM address `tiling`.
#define GET_TILING_DATA_WITH_STRUCT(S, var, tiling)                                            \
  S var;                                                                                       \
  static_assert(::AscendC::detail::IsTilingStruct<S>(),                                        \
                "GET_TILING_DATA: a tiling struct must be trivially copyable");                \
  ::AscendC::detail::LoadTilingData(&var, sizeof(S), (tiling), 0, "GET_TILING_DATA", #S,       \
                                    std::source_location::current())
// Declares `var` of the default tiling struct (REGISTER_TILING_DEFAULT or the op's registered
// tiling-data class).
#define GET_TILING_DATA(var, tiling) \
  GET_TILING_DATA_WITH_STRUCT(AicoreDefaultTilingData, var, tiling)
// Declares `var` holding only member `member` of struct S.
#define GET_TILING_DATA_MEMBER(S, member, var, tiling)                                          \
  decltype(S::member) var;                                                                       \
  ::AscendC::detail::LoadTilingData(&var, sizeof(var), (tiling), offsetof(S, member),            \
                                    "GET_TILING_DATA_MEMBER", #S "::" #member,                   \
                                    std::source_location::current())
// Declares `ptr`, a pointer to struct S over the GM tiling data (read in place).
#define GET_TILING_DATA_PTR_WITH_STRUCT(S, ptr, tiling)                                          \
  const S* ptr = static_cast<const S*>(::AscendC::detail::CheckTilingPointer(                    \
      (tiling), sizeof(S), "GET_TILING_DATA_PTR_WITH_STRUCT", #S, std::source_location::current()))
// Declares `dst`, a local copy of the struct S at pointer `src` (from the PTR form).
#define COPY_TILING_WITH_STRUCT(S, src, dst)                                                     \
  S dst;                                                                                         \
  ::AscendC::detail::LoadTilingData(&dst, sizeof(S), (src), 0, "COPY_TILING_WITH_STRUCT", #S,    \
                                    std::source_location::current())
// Declares `dst`, a local copy of the `n` elements of `type` at `src`.
#define COPY_TILING_WITH_ARRAY(type, n, src, dst)                                                \
  type dst[n];                                                                                   \
  ::AscendC::detail::LoadTilingData(dst, sizeof(type) * (n), (src), 0, "COPY_TILING_WITH_ARRAY", \
                                    #type, std::source_location::current())

// Checks the launch against the kernel type the kernel declares.
#define KERNEL_TASK_TYPE_DEFAULT(type) \
  ::AscendC::detail::CheckKernelTaskType((type), #type, true, std::source_location::current())
#define KERNEL_TASK_TYPE(key, type)                                                   \
  ::AscendC::detail::CheckKernelTaskType((type), #type, TILING_KEY_IS(key),           \
                                         std::source_location::current())
