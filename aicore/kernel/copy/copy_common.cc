// Funnel records of copies, GM accumulation (SetAtomicAdd/Max/Min) and the GM write path.
//
// Note [Streaming GM writes]
// A UB -> GM copy with ordinary stores first reads every destination line into the cache
// (write-allocate) and later writes it back: two DRAM passes per output byte, and the output
// evicts the inputs. Kernels stream their outputs tile after tile, so:
// - each host thread remembers where its last GM write ended and how long the current run of
//   back-to-back writes is;
// - once a run exceeds kStreamingRunBytes (larger than a core's L2, so the output would not stay
//   cached anyway), contiguous writes of at least kStreamingMinBytes use non-temporal stores,
//   which go to memory without the read. No store fence follows each copy: a fence waits until
//   the write-combining buffers reach memory, which would make every copy-out synchronous
//   (measured: add_custom 0.64 -> 0.81 of STREAM add without it). Another thread sees the data
//   only after synchronising with this one, and every such path (block end, SyncAll, cross-core
//   flags, launch completion) goes through the scheduler's mutex, whose locked instructions
//   drain the write-combining buffers as a fence would;
// - where the library runs AVX-512, each 64-byte line is written by one 64-byte store instead of
//   four 16-byte ones (measured +1..5% on add_custom and Exp);
// - short, scattered or strided writes keep ordinary stores, so small outputs stay in cache for
//   the host code or the next kernel that reads them.
//
// Note [Prefetching GM reads]
// A kernel's copy-in, compute and copy-out run one after another on one host thread, so while the
// thread computes, memory idles, and the next tile's copy-in then waits for DRAM. Kernels read GM
// tile after tile, so after a contiguous GM read of at least kPrefetchMinBytes the bytes that
// follow it (as many again, at most kPrefetchMaxBytes) are prefetched into L2: DRAM works on the
// next tile while the thread computes on this one. Prefetches never fault, so reading past the
// end of a tensor is harmless; a kernel that does not read sequentially only wastes bandwidth.
#include "aicore/kernel/copy/copy_common.h"

#include <algorithm>
#include <mutex>

#if defined(__x86_64__)
#include <immintrin.h>

#include "aicore/core/cpu.h"
#endif

#include "aicore/sim/gm_copies.h"

namespace AscendC::detail {

aicore::sim::Instr CopyInstr(aicore::sim::Core& core, const char* api, aicore::sim::Pipe pipe,
                             aicore::DType dt, const void* dst, uint64_t dst_span,
                             const void* src, uint64_t src_span, uint64_t bytes,
                             const aicore::sim::Stride& dst_stride,
                             const aicore::sim::Stride& src_stride, const SrcLoc& loc) {
  aicore::sim::Instr in;
  in.kind = aicore::sim::InstrKind::kCopy;
  in.pipe = pipe;
  in.api = api;
  in.dtype = dt;
  in.dst = core.Locate(dst, dst_span);
  in.src[0] = core.Locate(src, src_span);
  in.src_count = 1;
  in.dst_stride = dst_stride;
  in.src_stride[0] = src_stride;
  in.elements = bytes / std::max<size_t>(1, aicore::DTypeSize(dt));
  in.loc = loc;
  return in;
}

namespace {

constexpr uint64_t kStreamingRunBytes = uint64_t{4} << 20;  // see Note [Streaming GM writes]
constexpr uint64_t kStreamingMinBytes = 1024;

// The GM write run of the calling thread: where its last write ended and the run's length.
thread_local const uint8_t* t_run_end = nullptr;
thread_local uint64_t t_run_bytes = 0;

// Records a write of [dst, dst + bytes) and returns true when it continues a run long enough to
// stream.
bool ExtendRun(const uint8_t* dst, uint64_t bytes) {
  t_run_bytes = dst == t_run_end ? t_run_bytes + bytes : bytes;
  t_run_end = dst + bytes;
  return t_run_bytes > kStreamingRunBytes;
}

#if defined(__x86_64__)
// StreamCopy with one 64-byte non-temporal store per cache line: the head up to the first
// 64-byte boundary of dst and the tail use memcpy.
[[gnu::target("avx512f")]] void StreamLines(uint8_t* dst, const uint8_t* src, uint64_t len) {
  const uint64_t misalign = reinterpret_cast<uintptr_t>(dst) & 63;
  const uint64_t head = std::min<uint64_t>(len, (64 - misalign) & 63);
  std::memcpy(dst, src, head);
  uint64_t i = head;
  for (; i + 64 <= len; i += 64) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_loadu_si512(src + i));
  }
  std::memcpy(dst + i, src + i, len - i);
}
#endif

// Copies `len` bytes with non-temporal stores where the destination is 16-byte aligned (64-byte
// with AVX-512; the unaligned head and the tail use memcpy); see Note [Streaming GM writes] for
// the fence.
void StreamCopy(uint8_t* dst, const uint8_t* src, uint64_t len) {
#if defined(__x86_64__)
  static const bool lines = aicore::ActiveIsa() == aicore::Isa::kAvx512;
  if (lines) {
    StreamLines(dst, src, len);
    return;
  }
  const uint64_t misalign = reinterpret_cast<uintptr_t>(dst) & 15;
  const uint64_t head = std::min<uint64_t>(len, (16 - misalign) & 15);
  std::memcpy(dst, src, head);
  uint64_t i = head;
  for (; i + 64 <= len; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  for (; i + 16 <= len; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
  std::memcpy(dst + i, src + i, len - i);
#else
  std::memcpy(dst, src, len);
#endif
}

// The plain (non-atomic) GM write: CopyBlocks, streaming long contiguous runs.
void WriteGm(uint8_t* dst, uint64_t dst_pitch, const uint8_t* src, uint64_t src_pitch,
             uint32_t count, uint64_t len) {
  const bool contiguous = count == 1 || (dst_pitch == len && src_pitch == len);
  const uint64_t span = contiguous ? len * count : (count - 1) * dst_pitch + len;
  const bool stream = ExtendRun(dst, span);
  const bool overlap = dst < src + span && src < dst + span;
  if (stream && contiguous && span >= kStreamingMinBytes && !overlap) {
    StreamCopy(dst, src, span);
    return;
  }
  CopyBlocks(dst, dst_pitch, src, src_pitch, count, len);
}

constexpr uint64_t kPrefetchMinBytes = 1024;       // see Note [Prefetching GM reads]
constexpr uint64_t kPrefetchMaxBytes = 32 * 1024;

}  // namespace

void ReadGm(uint8_t* dst, uint64_t dst_pitch, const uint8_t* src, uint64_t src_pitch,
            uint32_t count, uint64_t len) {
  CopyBlocks(dst, dst_pitch, src, src_pitch, count, len);
#if defined(__x86_64__)
  const bool contiguous = count == 1 || src_pitch == len;
  const uint64_t span = len * count;
  if (!contiguous || span < kPrefetchMinBytes) return;
  const char* next = reinterpret_cast<const char*>(src + span);
  const uint64_t ahead = std::min(span, kPrefetchMaxBytes);
  for (uint64_t o = 0; o < ahead; o += 64) _mm_prefetch(next + o, _MM_HINT_T1);
#endif
}

namespace {

std::mutex g_atomic_mu;  // GM accumulation from all cores is serialised, as one L2 would

template <typename T>
void Accumulate(T* dst, const T* src, uint64_t n, int mode) {
  for (uint64_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(dst[i]);
    const float b = static_cast<float>(src[i]);
    if constexpr (std::is_integral_v<T>) {
      if (mode == 1) dst[i] = static_cast<T>(dst[i] + src[i]);
      else if (mode == 2) dst[i] = std::max(dst[i], src[i]);
      else dst[i] = std::min(dst[i], src[i]);
    } else {
      dst[i] = static_cast<T>(mode == 1 ? a + b : (mode == 2 ? std::max(a, b) : std::min(a, b)));
    }
  }
}

}  // namespace

void AtomicCopyBlocks(int atomic_mode, uint8_t* dst, uint64_t dst_pitch, const uint8_t* src,
                      uint64_t src_pitch, uint32_t count, uint64_t len, aicore::DType dt) {
  if (count == 0) return;
  // Copies of GM kept across blocks must not outlive this write (Note [GM copies]).
  struct Noted {
    aicore::sim::GmRegion written;
    ~Noted() { aicore::sim::NoteGmWrite(written); }
  } noted{{dst, count, len, dst_pitch}};
  if (atomic_mode == 0) {
    WriteGm(dst, dst_pitch, src, src_pitch, count, len);
    return;
  }
  std::lock_guard<std::mutex> lock(g_atomic_mu);
  for (uint32_t b = 0; b < count; ++b) {
    uint8_t* d = dst + b * dst_pitch;
    const uint8_t* s = src + b * src_pitch;
    switch (dt) {
      case aicore::DType::kF32:
        Accumulate(reinterpret_cast<float*>(d), reinterpret_cast<const float*>(s), len / 4, atomic_mode);
        break;
      case aicore::DType::kF16:
        Accumulate(reinterpret_cast<aicore::half*>(d), reinterpret_cast<const aicore::half*>(s), len / 2, atomic_mode);
        break;
      case aicore::DType::kBF16:
        Accumulate(reinterpret_cast<aicore::bfloat16*>(d), reinterpret_cast<const aicore::bfloat16*>(s), len / 2, atomic_mode);
        break;
      case aicore::DType::kI32:
        Accumulate(reinterpret_cast<int32_t*>(d), reinterpret_cast<const int32_t*>(s), len / 4, atomic_mode);
        break;
      case aicore::DType::kI16:
        Accumulate(reinterpret_cast<int16_t*>(d), reinterpret_cast<const int16_t*>(s), len / 2, atomic_mode);
        break;
      case aicore::DType::kI8:
        Accumulate(reinterpret_cast<int8_t*>(d), reinterpret_cast<const int8_t*>(s), len, atomic_mode);
        break;
      default:
        Fail(aicore::StatusCode::kInvalidArgument, "DataCopy", std::source_location::current(),
                   "atomic accumulation is not defined for ", aicore::DTypeName(dt));
    }
  }
}

}  // namespace AscendC::detail
