// Fixpipe's parameter checks, mover and funnel record. See Note [Fixpipe layouts] and
// Note [Fixpipe quantisation] in fixpipe.h.
//
// The mover walks the output row by row:
// - NZ -> ND: row m of the output is gathered from ceil(nSize/16) fractal columns, 16 L0C
//   elements (one fractal row, a fixed-size copy) at a time; casts (float -> float/half/bfloat16,
//   int32 -> int32) then apply ReLU and convert the whole row with the vector engine's vectorised
//   CAST_RINT, and the quantising modes convert element by element through a small typed op;
// - GM writes under SetAtomicAdd/Max/Min convert a row into a scratch row first and accumulate
//   it with AtomicCopyBlocks, so the accumulation rules are the same as DataCopy's;
// - NZ output converts fractal row by fractal row into the destination fractal layout.
#include "aicore/kernel/cube/fixpipe.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "aicore/kernel/vector/engine.h"

namespace AscendC::detail {

namespace {

using aicore::DType;

constexpr uint32_t kFrac = 16;  // rows and columns of an L0C fractal

bool IsVectorMode(QuantMode_t q) { return q == VDEQF16 || q == VQF322B8_PRE || q == VREQ8; }

const char* QuantName(QuantMode_t q) {
  switch (q) {
    case NoQuant:
      return "NoQuant";
    case F322F16:
      return "F322F16";
    case F322BF16:
      return "F322BF16";
    case DEQF16:
      return "DEQF16";
    case VDEQF16:
      return "VDEQF16";
    case QF322B8_PRE:
      return "QF322B8_PRE";
    case VQF322B8_PRE:
      return "VQF322B8_PRE";
    case REQ8:
      return "REQ8";
    case VREQ8:
      return "VREQ8";
  }
  return "?";
}

// Returns the quantisation modes allowed for a (src, dst) pair, as a readable list, and whether
// `q` is among them.
bool QuantFits(DType src, DType dst, QuantMode_t q, const char** allowed) {
  const bool f = src == DType::kF32;
  if (dst == DType::kF32 || dst == DType::kI32) {
    *allowed = "NoQuant";
    return q == NoQuant;
  }
  if (dst == DType::kF16 && f) {
    *allowed = "F322F16";
    return q == F322F16;
  }
  if (dst == DType::kBF16) {
    *allowed = "F322BF16";
    return q == F322BF16;
  }
  if (dst == DType::kF16) {
    *allowed = "DEQF16 or VDEQF16";
    return q == DEQF16 || q == VDEQF16;
  }
  if (f) {
    *allowed = "QF322B8_PRE or VQF322B8_PRE";
    return q == QF322B8_PRE || q == VQF322B8_PRE;
  }
  *allowed = "REQ8 or VREQ8";
  return q == REQ8 || q == VREQ8;
}

// One decoded quantisation parameter. See Note [Fixpipe quantisation].
struct Coef {
  float m1 = 1.0f;  // scale for non-negative inputs
  float m2 = 1.0f;  // scale for negative inputs (0 with ReLU)
  int shift = 1;    // N
  bool mcb = false;
  float offset = 0;
  bool is_signed = true;
};

float ScaleOf(uint64_t q) {
  uint32_t bits = static_cast<uint32_t>(q) & 0xFFFFE000u;  // the hardware keeps 10 mantissa bits
  float m;
  std::memcpy(&m, &bits, sizeof(m));
  return m;
}

Coef Decode(uint64_t q, bool relu) {
  Coef c;
  c.m1 = ScaleOf(q);
  c.m2 = relu ? 0.0f : c.m1;
  c.shift = static_cast<int>((q >> 32) & 0xF) + 1;
  c.mcb = ((q >> 36) & 1) != 0;
  int off = static_cast<int>((q >> 37) & 0x1FF);
  if (off & 0x100) off -= 512;
  c.offset = static_cast<float>(off);
  c.is_signed = ((q >> 46) & 1) != 0;
  return c;
}

// The value an int32 input enters the multiply with (MCB: shifted and saturated to int16).
float PreOf(int32_t x, const Coef& c) {
  if (!c.mcb) return static_cast<float>(x);
  const int32_t s = x >> c.shift;
  return static_cast<float>(std::clamp<int32_t>(s, INT16_MIN, INT16_MAX));
}
float PreOf(float x, const Coef&) { return x; }

// Element ops: convert one L0C value of column `col` to the output type.
template <typename S, typename D>
struct CastOp {
  bool relu;
  D operator()(S x, uint32_t /*col*/) const {
    if (relu && x < S{0}) x = S{0};
    return static_cast<D>(x);
  }
};

template <typename S>
struct DeqF16Op {
  const Coef* coef;  // one (scalar) or one per column
  bool per_column;
  aicore::half operator()(S x, uint32_t col) const {
    const Coef& c = coef[per_column ? col : 0];
    const float v = PreOf(x, c);
    return aicore::half(v * (v >= 0 ? c.m1 : c.m2));
  }
};

template <typename S, typename D>
struct QuantB8Op {
  const Coef* coef;
  bool per_column;
  D operator()(S x, uint32_t col) const {
    const Coef& c = coef[per_column ? col : 0];
    const float v = PreOf(x, c);
    const float y = std::nearbyint(v * (v >= 0 ? c.m1 : c.m2) + c.offset);
    const float lo = c.is_signed ? -128.0f : 0.0f;
    const float hi = c.is_signed ? 127.0f : 255.0f;
    const float r = std::isnan(y) ? 0.0f : std::clamp(y, lo, hi);
    return c.is_signed ? static_cast<D>(static_cast<int8_t>(r))
                       : static_cast<D>(static_cast<uint8_t>(r));
  }
};

// Converts `count` elements of one fractal row (columns col0 .. col0+count-1) into `out`.
template <typename S, typename D, typename Op>
inline void ConvertRun(D* out, const S* in, uint32_t count, uint32_t col0, const Op& op) {
  if constexpr (std::is_same_v<Op, CastOp<S, D>> && std::is_same_v<S, D>) {
    if (!op.relu) {
      std::memcpy(out, in, count * sizeof(D));
      return;
    }
  }
  for (uint32_t j = 0; j < count; ++j) out[j] = op(in[j], col0 + j);
}

// Gathers row m of an L0C matrix (nSize elements from ceil(nSize/16) fractal columns) into `row`.
template <typename S>
inline void GatherRow(S* row, const S* src, uint64_t col_elems, uint32_t m, uint32_t n_size) {
  const uint32_t full = n_size / kFrac;
  const S* in = src + uint64_t{m} * kFrac;
  for (uint32_t c1 = 0; c1 < full; ++c1) {
    std::memcpy(row + c1 * kFrac, in + c1 * col_elems, kFrac * sizeof(S));
  }
  if (const uint32_t tail = n_size % kFrac; tail != 0) {
    std::memcpy(row + full * kFrac, in + full * col_elems, tail * sizeof(S));
  }
}

// NZ -> ND without quantisation: gather each row, apply ReLU, convert the whole row at once with
// the vector engine's CAST_RINT (float -> half/bfloat16), then store or accumulate it.
template <typename S, typename D>
void RunCastNd(const FixpipeJob& job) {
  const FixpipeParamsV220& p = job.p;
  const S* src = reinterpret_cast<const S*>(job.src);
  const uint64_t col_elems = uint64_t{p.srcStride} * kFrac;
  const bool atomic = job.dst_gm && job.atomic_mode != 0;
  constexpr bool kSame = std::is_same_v<S, D>;
  std::vector<S> gathered(kSame && !atomic ? 0 : p.nSize);
  std::vector<D> converted(!kSame && atomic ? p.nSize : 0);
  for (uint32_t i = 0; i < job.nd_num; ++i) {
    const S* src_i = src + uint64_t{i} * p.srcNdStride * kFrac * kFrac;
    D* dst_i = reinterpret_cast<D*>(job.dst) + uint64_t{i} * p.dstNdStride;
    for (uint32_t m = 0; m < p.mSize; ++m) {
      D* dst_row = dst_i + uint64_t{m} * p.dstStride;
      S* row;
      if constexpr (kSame) {
        row = atomic ? gathered.data() : dst_row;
      } else {
        row = gathered.data();
      }
      GatherRow(row, src_i, col_elems, m, p.nSize);
      if (p.reluEn) {
        for (uint32_t j = 0; j < p.nSize; ++j) row[j] = row[j] < S{0} ? S{0} : row[j];
      }
      const D* out = reinterpret_cast<const D*>(row);
      if constexpr (!kSame) {
        D* target = atomic ? converted.data() : dst_row;
        aicore::kernel::engine::Cast(job.dst_type, job.src_type,
                                     aicore::kernel::engine::Round::kRint, target, row, p.nSize);
        out = target;
      }
      if (atomic) {
        AtomicCopyBlocks(job.atomic_mode, reinterpret_cast<uint8_t*>(dst_row), 0,
                         reinterpret_cast<const uint8_t*>(out), 0, 1, uint64_t{p.nSize} * sizeof(D),
                         job.dst_type);
      }
    }
  }
}

template <typename S, typename D, typename Op>
void Run(const FixpipeJob& job, const Op& op) {
  const FixpipeParamsV220& p = job.p;
  const S* src = reinterpret_cast<const S*>(job.src);
  const uint64_t col_elems = uint64_t{p.srcStride} * kFrac;  // one fractal column in L0C
  if constexpr (std::is_same_v<Op, CastOp<S, D>>) {
    if (job.nz2nd) return RunCastNd<S, D>(job);
  }
  if (job.nz2nd) {
    const bool atomic = job.dst_gm && job.atomic_mode != 0;
    std::vector<D> scratch(atomic ? p.nSize : 0);
    for (uint32_t i = 0; i < job.nd_num; ++i) {
      const S* src_i = src + uint64_t{i} * p.srcNdStride * kFrac * kFrac;
      D* dst_i = reinterpret_cast<D*>(job.dst) + uint64_t{i} * p.dstNdStride;
      for (uint32_t m = 0; m < p.mSize; ++m) {
        D* row = atomic ? scratch.data() : dst_i + uint64_t{m} * p.dstStride;
        for (uint32_t c1 = 0; c1 < job.n1; ++c1) {
          const uint32_t col0 = c1 * kFrac;
          const uint32_t count = std::min<uint32_t>(kFrac, p.nSize - col0);
          ConvertRun(row + col0, src_i + c1 * col_elems + uint64_t{m} * kFrac, count, col0, op);
        }
        if (atomic) {
          AtomicCopyBlocks(job.atomic_mode,
                           reinterpret_cast<uint8_t*>(dst_i + uint64_t{m} * p.dstStride), 0,
                           reinterpret_cast<const uint8_t*>(scratch.data()), 0, 1,
                           uint64_t{p.nSize} * sizeof(D), job.dst_type);
        }
      }
    }
    return;
  }
  // NZ output: element (m, n) at (n/c0)*dstStride*32 B + m*c0 + n%c0 (elements of D).
  const uint32_t c0 = job.dst_c0;
  const uint64_t col_bytes = uint64_t{p.dstStride} * 32;
  const bool atomic = job.dst_gm && job.atomic_mode != 0;
  std::vector<D> scratch(c0);
  for (uint32_t m = 0; m < p.mSize; ++m) {
    for (uint32_t n = 0; n < p.nSize; n += c0) {
      const uint32_t count = std::min<uint32_t>(c0, p.nSize - n);
      D* out = reinterpret_cast<D*>(job.dst + (n / c0) * col_bytes) + uint64_t{m} * c0;
      D* row = atomic ? scratch.data() : out;
      // A destination row of c0 elements may span one or two source fractal rows.
      for (uint32_t j = 0; j < count;) {
        const uint32_t col = n + j;
        const uint32_t run = std::min<uint32_t>(count - j, kFrac - col % kFrac);
        ConvertRun(row + j, src + (col / kFrac) * col_elems + uint64_t{m} * kFrac + col % kFrac,
                   run, col, op);
        j += run;
      }
      if (atomic) {
        AtomicCopyBlocks(job.atomic_mode, reinterpret_cast<uint8_t*>(out), 0,
                         reinterpret_cast<const uint8_t*>(scratch.data()), 0, 1,
                         uint64_t{count} * sizeof(D), job.dst_type);
      }
    }
  }
}

template <typename S, typename D>
void RunQuant(const FixpipeJob& job) {
  const FixpipeParamsV220& p = job.p;
  const bool per_column = job.quant != nullptr;
  std::vector<Coef> coef(per_column ? p.nSize : 1);
  for (size_t c = 0; c < coef.size(); ++c) {
    coef[c] = Decode(per_column ? job.quant[c] : p.deqScalar, p.reluEn);
  }
  if constexpr (std::is_same_v<D, aicore::half>) {
    Run<S, D>(job, DeqF16Op<S>{coef.data(), per_column});
  } else {
    Run<S, D>(job, QuantB8Op<S, D>{coef.data(), per_column});
  }
}

}  // namespace

bool PrepareFixpipe(FixpipeJob& job, int64_t quant_elems, bool dst_signed, uint64_t* dst_bytes,
                    uint64_t* src_bytes, const SrcLoc& loc) {
  const FixpipeParamsV220& p = job.p;
  const auto& chip = Core().chip();
  if (chip.npu_arch != 2201 && chip.npu_arch != 3002 && chip.npu_arch != 3510) {
    Fail(StatusCode::kUnimplemented, "Fixpipe", loc, "Fixpipe is not available on ", chip.name,
         " (NPU arch ", chip.npu_arch, "); it exists on arch 2201 (910B), 3002 and 3510");
  }
  const char* allowed = "";
  if (!QuantFits(job.src_type, job.dst_type, p.quantPre, &allowed)) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "quantPre=", QuantName(p.quantPre),
         " does not convert ", aicore::DTypeName(job.src_type), " to ",
         aicore::DTypeName(job.dst_type), "; use ", allowed);
  }
  if (IsVectorMode(p.quantPre) && job.quant == nullptr) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "quantPre=", QuantName(p.quantPre),
         " takes per-column parameters: call the overload with a cbufWorkspace tensor (L1, "
         "uint64_t per column)");
  }
  if ((p.quantPre == REQ8 || p.quantPre == QF322B8_PRE) &&
      (((p.deqScalar >> 46) & 1) != 0) != dst_signed) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "deqScalar bit 46 (signed result) is ",
         (p.deqScalar >> 46) & 1, " but the destination type is ", aicore::DTypeName(job.dst_type),
         "; set bit 46 to ", dst_signed ? 1 : 0);
  }
  if (p.nSize == 0 || p.mSize == 0 || (job.nz2nd && p.ndNum == 0)) return false;
  if (p.nSize > 4095) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "nSize=", p.nSize, " is outside [0, 4095]");
  }
  if (job.nz2nd && p.mSize > 8192) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "mSize=", p.mSize,
         " is outside [0, 8192] for NZ -> ND output");
  }
  if (p.isChannelSplit &&
      (job.nz2nd || job.src_type != DType::kF32 || job.dst_type != DType::kF32)) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc,
         "isChannelSplit needs float -> float with CFG_NZ output");
  }
  job.n1 = (p.nSize + kFrac - 1) / kFrac;
  if (job.n1 > 1 && p.srcStride < p.mSize) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "srcStride=", p.srcStride,
         " is smaller than mSize=", p.mSize,
         ": srcStride is the distance of L0C fractal "
         "columns in 16-element rows, ceil(m/16)*16 for a Mmad of m rows");
  }
  if (quant_elems >= 0 && IsVectorMode(p.quantPre) && quant_elems < p.nSize) {
    Fail(StatusCode::kOutOfRange, "Fixpipe", loc, "cbufWorkspace holds ", quant_elems,
         " parameters but nSize=", p.nSize, " columns need one each");
  }
  const uint64_t ssize = aicore::DTypeSize(job.src_type);
  const uint64_t dsize = aicore::DTypeSize(job.dst_type);
  job.nd_num = job.nz2nd ? p.ndNum : 1;
  *src_bytes = (uint64_t{job.nd_num - 1} * p.srcNdStride * kFrac * kFrac +
                uint64_t{job.n1 - 1} * p.srcStride * kFrac + uint64_t{p.mSize} * kFrac) *
               ssize;
  if (job.nz2nd) {
    if (p.dstStride == 0 || (p.mSize > 1 && p.dstStride < p.nSize)) {
      Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "dstStride=", p.dstStride,
           " is the ND row pitch in elements and must be >= nSize=", p.nSize,
           " (destination rows must not overlap)");
    }
    *dst_bytes = (uint64_t{job.nd_num - 1} * p.dstNdStride + (uint64_t{p.mSize} - 1) * p.dstStride +
                  p.nSize) *
                 dsize;
    return true;
  }
  const uint32_t step = p.isChannelSplit ? 8 : kFrac;
  if (p.nSize % step != 0) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "nSize=", p.nSize, " must be a multiple of ",
         step, " for CFG_NZ output", p.isChannelSplit ? " with isChannelSplit" : "");
  }
  job.dst_c0 = dsize == 4 ? (p.isChannelSplit ? 8 : 16) : static_cast<uint32_t>(32 / dsize);
  const uint64_t column_bytes = uint64_t{p.mSize} * job.dst_c0 * dsize;
  const uint64_t c1 = (p.nSize + job.dst_c0 - 1) / job.dst_c0;
  if (p.dstStride == 0 || (c1 > 1 && uint64_t{p.dstStride} * 32 < column_bytes)) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "dstStride=", p.dstStride,
         " (32-byte units) is the distance of destination NZ fractal columns and must be >= ",
         (column_bytes + 31) / 32, " for mSize=", p.mSize, " (columns must not overlap)");
  }
  *dst_bytes = (c1 - 1) * p.dstStride * 32 + column_bytes;
  return true;
}

void CheckFixpipeToUb(const char* position, const SrcLoc& loc) {
  auto& core = Core();
  const auto& chip = core.chip();
  if (!chip.fixpipe_to_ub) {
    Fail(StatusCode::kFailedPrecondition, "Fixpipe", loc, "dst is a ", position,
         " tensor in UB, but ", chip.name, " (NPU arch ", chip.npu_arch,
         ") has no L0C -> UB path: its Fixpipe writes L0C to GM (GlobalTensor) or L1 (A1, B1, C1, "
         "TSCM) only; L0C -> UB needs a chip with the fixpipe_to_ub capability (ascend950, arch "
         "3510)");
  }
  if (core.PeerUb() == nullptr) {
    Fail(StatusCode::kFailedPrecondition, "Fixpipe", loc, "dst is a ", position, " tensor in UB: ",
         chip.name, " writes L0C into the UB of the AIC's paired AIV, which only a 1:1 mix launch "
         "(KernelMode::kMix1To1, __mix__(1, 1)) gives ", core.Name(),
         "; the dual-destination mode that splits a tile between the two AIVs of a 1:2 group is "
         "not modelled");
  }
}

void CheckPeerUbRange(const uint8_t* dst, uint64_t dst_bytes, uint32_t elements,
                      uint64_t tensor_bytes, const SrcLoc& loc) {
  auto& core = Core();
  const auto ub = reinterpret_cast<uintptr_t>(core.PeerUb());
  const uint64_t cap = core.LocalSize(aicore::arch::Buffer::kUb);
  const auto at = reinterpret_cast<uintptr_t>(dst);
  if (at < ub || at - ub >= cap) {
    // Not an address in the AIV's UB at all (a tensor built over another buffer or memory).
    const aicore::sim::MemRef where = core.Locate(dst, 0);
    Fail(StatusCode::kOutOfRange, "Fixpipe", loc, "dst (a UB tensor) starts ",
         where.buffer == aicore::arch::Buffer::kGm
             ? std::string("outside every local buffer")
             : aicore::StrCat("at ", aicore::arch::BufferName(where.buffer), " offset ",
                              where.offset),
         ", not in the paired AIV's UB: allowed dst offsets are [0, ", cap, ") of its ", cap,
         " B UB on ", core.chip().name);
  }
  const uint64_t off = at - ub;
  if (off % 32 != 0) {
    Fail(StatusCode::kInvalidArgument, "Fixpipe", loc, "dst starts at UB offset ", off,
         ", not on a 32-byte boundary");
  }
  if (dst_bytes > tensor_bytes) {
    Fail(StatusCode::kOutOfRange, "Fixpipe", loc, "dst LocalTensor: the copy reaches byte ",
         dst_bytes, " but the tensor holds ", elements, " elements (", tensor_bytes, " bytes)");
  }
  if (dst_bytes > cap - off) {
    Fail(StatusCode::kOutOfRange, "Fixpipe", loc, "dst: the copy writes UB bytes [", off, ", ",
         off + dst_bytes, ") but the paired AIV's UB is [0, ", cap, ") on ", core.chip().name,
         " (", dst_bytes, " B at offset ", off, "; at most ", cap - off, " B fit there)");
  }
}

void FixpipeMove(const FixpipeJob& job) {
  const bool relu = job.p.reluEn;
  using aicore::bfloat16;
  using aicore::half;
  if (job.src_type == DType::kF32) {
    switch (job.dst_type) {
      case DType::kF32:
        return Run<float, float>(job, CastOp<float, float>{relu});
      case DType::kF16:
        return Run<float, half>(job, CastOp<float, half>{relu});
      case DType::kBF16:
        return Run<float, bfloat16>(job, CastOp<float, bfloat16>{relu});
      case DType::kI8:
        return RunQuant<float, int8_t>(job);
      case DType::kU8:
        return RunQuant<float, uint8_t>(job);
      default:
        break;
    }
  } else {
    switch (job.dst_type) {
      case DType::kI32:
        return Run<int32_t, int32_t>(job, CastOp<int32_t, int32_t>{relu});
      case DType::kF16:
        return RunQuant<int32_t, half>(job);
      case DType::kI8:
        return RunQuant<int32_t, int8_t>(job);
      case DType::kU8:
        return RunQuant<int32_t, uint8_t>(job);
      default:
        break;
    }
  }
}

aicore::sim::Instr FixpipeInstr(aicore::sim::Core& core, const FixpipeJob& job, uint64_t dst_bytes,
                                uint64_t src_bytes, const SrcLoc& loc) {
  const FixpipeParamsV220& p = job.p;
  const uint64_t dsize = aicore::DTypeSize(job.dst_type);
  const uint64_t ssize = aicore::DTypeSize(job.src_type);
  const uint64_t moved = uint64_t{job.nd_num} * p.mSize * p.nSize * dsize;
  aicore::sim::Instr in;
  in.kind = aicore::sim::InstrKind::kCopy;
  in.pipe = aicore::sim::Pipe::kFix;
  in.api = "Fixpipe";
  in.dtype = job.dst_type;
  in.dst = core.Locate(job.dst, dst_bytes);
  if (job.dst_peer_ub) {
    in.dst = {aicore::arch::Buffer::kUb, static_cast<uint64_t>(job.dst - core.PeerUb()),
              dst_bytes};
    in.dst_in_peer_ub = true;
  }
  in.src[0] = core.Locate(job.src, src_bytes);
  in.src_count = 1;
  in.dst_stride = {1, static_cast<uint32_t>(moved), moved};
  if (job.nz2nd && job.nd_num == 1 && p.mSize > 1 && p.dstStride > p.nSize) {
    in.dst_stride = {p.mSize, static_cast<uint32_t>(p.nSize * dsize), p.dstStride * dsize};
  }
  const uint64_t col_bytes = uint64_t{p.mSize} * kFrac * ssize;
  if (job.nd_num == 1 && job.n1 > 1 && p.srcStride > p.mSize) {
    in.src_stride[0] = {job.n1, static_cast<uint32_t>(col_bytes),
                        uint64_t{p.srcStride} * kFrac * ssize};
  }
  if (job.quant != nullptr) {
    in.src[1] = core.Locate(job.quant, uint64_t{p.nSize} * sizeof(uint64_t));
    in.src_count = 2;
  }
  in.elements = uint64_t{job.nd_num} * p.mSize * p.nSize;
  in.loc = loc;
  return in;
}

}  // namespace AscendC::detail
