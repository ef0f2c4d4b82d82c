// Flash attention: checks, plan, launch, the C++ entry points and the unfused composition.
// - Every operand becomes a (B, N, S, D) view of its storage (BSND and BNSD permute dims; BSH
//   and SBH split H into N x D), read in place when it has the kernel's dtype, a unit D stride
//   and row pitches the Matmul takes, else staged dense BNSD in that dtype (Note [Staging]);
//   outputs likewise. The kernel dtype is the input's in both passes (the cube reads fp16/bf16
//   Q, K, V and dO natively; P, and in the backward dS, are cast to it in UB).
// - The sparse mode becomes a window [i + lo_off, i + hi_off] per row i (modes 2..4 and pre/next
//   tokens) plus, in modes 0 and 1, the explicit mask the kernel reads.
// - Tiles: tk = 128 kv rows; tq (<= 128, a multiple of 16) from the AIVs' UB budget for D, the
//   dtype and the mask. The forward triple-buffers its slots, the backward double-buffers them
//   (FlashAttentionPlan::slot_buffers); the forward's AIC runs Q K^T and P V on two Matmuls.
// - Groups: min(items, AICs); each gets workspace slots (FlashAttentionTiling).
#include "aicore/ops/attention/flash_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/framework/run_op.h"
#include "aicore/ops/ops.h"
#include "aicore/ops/patterns/flash_attention.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"
#include "aicore/runtime/tiling/matmul_tiling.h"

namespace aicore::ops {

namespace {

using patterns::FaOperand;
using patterns::FlashAttentionTiling;

constexpr int64_t kMaxPitch = 65535;  // the Matmul's Nd2Nz row pitch is 16-bit
constexpr int32_t kTk = 128;

struct PlainScores {
  static constexpr bool kExplicitMask = false;
};
struct MaskedScores {
  static constexpr bool kExplicitMask = true;
};

bool IsFloat(DType dt) { return dt == DType::kF32 || dt == DType::kF16 || dt == DType::kBF16; }

// The (B, N, S, D) geometry of one operand.
struct Heads {
  int64_t b = 0, n = 0, s = 0, d = 0;
};

bool IsLayout(const std::string& l) {
  return l == "BNSD" || l == "BSND" || l == "BSH" || l == "SBH";
}
int64_t LayoutRank(const std::string& l) { return l.size() == 4 ? 4 : 3; }

// Returns `t` (of `layout`, with `n` heads for BSH/SBH) as a (B, N, S, D) view.
TensorRef HeadView(const TensorRef& t, const std::string& layout, int64_t n) {
  TensorRef r = t;
  const std::vector<int64_t> st = t.Strides();
  const std::vector<int64_t>& sh = t.shape;
  if (layout == "BNSD") {
    r.strides = st;
  } else if (layout == "BSND") {
    r.shape = {sh[0], sh[2], sh[1], sh[3]};
    r.strides = {st[0], st[2], st[1], st[3]};
  } else {
    const bool bsh = layout == "BSH";
    const int64_t b = bsh ? sh[0] : sh[1], s = bsh ? sh[1] : sh[0];
    const int64_t sb = bsh ? st[0] : st[1], ss = bsh ? st[1] : st[0];
    const int64_t d = sh[2] / n;
    r.shape = {b, n, s, d};
    r.strides = {sb, d * st[2], ss, st[2]};
  }
  return r;
}

// The common checks of both passes: q/k/v, the layout, heads, the attributes and the mask.
// `key_name`: the key argument's name ("key", "keyIn"); `pse`: the name of the pse argument when
// one was given, else nullptr. Fills the geometry of q
// (heads q), k (kv) and v's D (dv).
OpCheck CheckAttention(const char* op, const char* key_name, const TensorRef& q, const TensorRef& k,
                       const TensorRef& v,
                       bool has_mask, const TensorRef& mask, const char* pse, bool has_prefix,
                       const FlashAttentionAttrs& a, const arch::Chip& chip, Heads* hq, Heads* hkv,
                       int64_t* dv) {
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{"query", &q}, {key_name, &k}, {"value", &v}}) {
    if (!IsFloat(t->dtype)) {
      return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t->dtype),
                            "; allowed: FLOAT, FLOAT16, BFLOAT16"));
    }
    if (t->data == nullptr && t->NumElements() > 0) {
      return NullArg(StrCat(op, ": ", what, " has null storage"));
    }
  }
  if (k.dtype != q.dtype || v.dtype != q.dtype) {
    return Invalid(StrCat(op, ": query, key and value must share one dtype; got ",
                          OpDTypeName(q.dtype), ", ", OpDTypeName(k.dtype), ", ",
                          OpDTypeName(v.dtype)));
  }
  if (!IsLayout(a.layout)) {
    return Invalid(
        StrCat(op, ": inputLayout \"", a.layout, "\" is not one of BSH, SBH, BSND, BNSD"));
  }
  const int64_t rank = LayoutRank(a.layout);
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{"query", &q}, {key_name, &k}, {"value", &v}}) {
    if (t->Rank() != rank) {
      return Invalid(StrCat(op, ": inputLayout ", a.layout, " needs ", rank, "-D tensors; ", what,
                            " has ", t->Rank(), " dims ", ShapeString(t->shape)));
    }
  }
  if (a.head_num <= 0 || a.head_num > kFaMaxHeads) {
    return Invalid(
        StrCat(op, ": headNum ", a.head_num, " is out of range; allowed: 1 to ", kFaMaxHeads));
  }
  const int64_t n = a.head_num;
  if (rank == 3) {
    if (q.shape[2] % n != 0) {
      return Invalid(StrCat(op, ": headNum ", n, " does not divide query's H = ", q.shape[2], " (",
                            a.layout, ")"));
    }
    const int64_t d = q.shape[2] / n;
    if (d == 0 || k.shape[2] % d != 0 || k.shape[2] == 0) {
      return Invalid(StrCat(op, ": key's H = ", k.shape[2],
                            " is not a whole number of heads of D = ", d,
                            " (query's H / headNum)"));
    }
  } else if (q.shape[a.layout == "BNSD" ? 1 : 2] != n) {
    return Invalid(StrCat(op, ": headNum ", n, " differs from query's N = ",
                          q.shape[a.layout == "BNSD" ? 1 : 2], " (", a.layout, ")"));
  }
  const TensorRef vq = HeadView(q, a.layout, n);
  const int64_t d = vq.shape[3];
  const int64_t nkv =
      rank == 3 ? (d > 0 ? k.shape[2] / d : 0) : k.shape[a.layout == "BNSD" ? 1 : 2];
  const TensorRef vk = HeadView(k, a.layout, std::max<int64_t>(nkv, 1));
  if (rank == 3 && nkv > 0 && v.shape[2] % nkv != 0) {
    return Invalid(StrCat(op, ": value's H = ", v.shape[2], " is not a multiple of the ", nkv,
                          " key/value heads"));
  }
  const TensorRef vv = HeadView(v, a.layout, std::max<int64_t>(nkv, 1));
  *hq = {vq.shape[0], vq.shape[1], vq.shape[2], vq.shape[3]};
  *hkv = {vk.shape[0], vk.shape[1], vk.shape[2], vk.shape[3]};
  *dv = vv.shape[3];
  if (nkv <= 0 || n % nkv != 0) {
    return Invalid(StrCat(op, ": key/value have ", nkv, " heads, which does not divide query's ", n,
                          " heads (GQA/MQA need N_q a multiple of N_kv)"));
  }
  if (vk.shape[0] != hq->b || vv.shape[0] != hq->b) {
    return Invalid(
        StrCat(op, ": B differs: query ", hq->b, ", key ", vk.shape[0], ", value ", vv.shape[0]));
  }
  if (vv.shape[1] != nkv || vv.shape[2] != hkv->s) {
    return Invalid(StrCat(op, ": value ", ShapeString(v.shape), " must match key ",
                          ShapeString(k.shape), " in every dim but D"));
  }
  if (hkv->d != d) {
    return Invalid(StrCat(op, ": key's D = ", hkv->d, " differs from query's D = ", d));
  }
  if (d > kFaMaxHeadDim || *dv > kFaMaxHeadDim) {
    return Invalid(StrCat(op, ": D = ", std::max(d, *dv), " (query/key ", d, ", value ", *dv,
                          ") is above the documented limit ", kFaMaxHeadDim));
  }
  if (hq->s > kFaMaxSeq || hkv->s > kFaMaxSeq || hq->b > kFaMaxBatch) {
    return Invalid(StrCat(op, ": B = ", hq->b, ", Sq = ", hq->s, ", Skv = ", hkv->s,
                          "; allowed: B <= 2M, S <= 1M"));
  }
  if (!std::isfinite(a.scale)) {
    return Invalid(StrCat(op, ": scaleValue ", a.scale, " is not a finite number"));
  }
  if (!(a.keep_prob > 0 && a.keep_prob <= 1)) {
    return Invalid(StrCat(op, ": keepProb ", a.keep_prob, " is out of range (0, 1]"));
  }
  if (a.keep_prob != 1) {
    return Invalid(StrCat(op, ": keepProb ", a.keep_prob,
                          " asks for dropout, which aicore does not implement; pass 1"));
  }
  if (pse != nullptr) {
    return Invalid(StrCat(op, ": ", pse, " (pse) is not supported; pass null"));
  }
  if (has_prefix) {
    return Invalid(StrCat(op, ": prefixOptional is not supported (sparse modes 5/6); pass null"));
  }
  if (a.inner_precise < 0 || a.inner_precise > 2) {
    return Invalid(StrCat(op, ": innerPrecise ", a.inner_precise, " is not one of 0, 1, 2"));
  }
  if (a.sparse_mode < 0 || a.sparse_mode > 4) {
    return Invalid(StrCat(op, ": sparseMode ", a.sparse_mode,
                          " is not supported; allowed: 0 (mask, pre/next tokens), 1 (mask), 2 "
                          "(left-up causal), 3 (right-down causal), 4 (band)"));
  }
  if (has_mask) {
    if (mask.dtype != DType::kU8) {
      return Invalid(StrCat(op, ": attenMaskOptional has dtype ", OpDTypeName(mask.dtype),
                            "; allowed: BOOL, UINT8"));
    }
    if (mask.data == nullptr && mask.NumElements() > 0) {
      return NullArg(StrCat(op, ": attenMaskOptional has null storage"));
    }
    const std::vector<int64_t>& ms = mask.shape;
    if (a.sparse_mode >= 2) {
      if (ms != std::vector<int64_t>{kFaCompressedMask, kFaCompressedMask}) {
        return Invalid(StrCat(op, ": sparseMode ", a.sparse_mode,
                              " takes the compressed 2048 x 2048 attenMaskOptional; got ",
                              ShapeString(ms)));
      }
    } else {
      const bool rank2 = ms.size() == 2 && ms[0] == hq->s && ms[1] == hkv->s;
      const bool rank4 = ms.size() == 4 && (ms[0] == 1 || ms[0] == hq->b) &&
                         (ms[1] == 1 || ms[1] == n) && ms[2] == hq->s && ms[3] == hkv->s;
      if (!rank2 && !rank4) {
        return Invalid(StrCat(op, ": attenMaskOptional has shape ", ShapeString(ms),
                              "; allowed: [Sq, Skv], [B, 1, Sq, Skv], [1, 1, Sq, Skv] or [B, N, "
                              "Sq, Skv] with B = ",
                              hq->b, ", N = ", n, ", Sq = ", hq->s, ", Skv = ", hkv->s));
      }
    }
    int64_t sum = 0;  // the sign is the sum's also when it overflows
    const bool negative = __builtin_add_overflow(a.pre_tokens, a.next_tokens, &sum)
                              ? a.pre_tokens < 0
                              : sum < 0;
    if ((a.sparse_mode == 0 || a.sparse_mode == 4) && negative) {
      return Invalid(StrCat(op, ": preTokens ", a.pre_tokens, " and nextTokens ", a.next_tokens,
                            " leave no column to attend to (their sum must be >= 0)"));
    }
  }
  if (!chip.split()) {
    return Invalid(
        StrCat(op, ": needs a split chip (Atlas A2: AIC + AIV); ", chip.name, " is not one"));
  }
  return {};
}

OpCheck CheckOutput(const char* op, const char* what, const TensorRef& t, DType dt,
                    const std::vector<int64_t>& shape) {
  if (t.data == nullptr && t.NumElements() > 0) {
    return NullArg(StrCat(op, ": ", what, " has null storage"));
  }
  if (t.dtype != dt) {
    return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t.dtype), "; it must be ",
                          OpDTypeName(dt)));
  }
  if (t.shape != shape) {
    return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString(t.shape), "; it must be ",
                          ShapeString(shape)));
  }
  return {};
}

using Named = std::pair<const char*, const TensorRef*>;  // nullptr: absent

// The kernels read the inputs while they write the outputs: an output must not share bytes with
// an input, repeat an element (a stride-0 dim) or share bytes with another output. Outputs whose
// elements merely interleave (dq, dk, dv as slices of one packed buffer) are apart.
OpCheck CheckApart(const char* op, std::initializer_list<Named> outs,
                   std::initializer_list<Named> ins) {
  std::vector<Operand> o, i;
  for (const auto& [name, t] : outs) o.push_back({name, t});
  for (const auto& [name, t] : ins) i.push_back({name, t});
  return CheckOutputs(op, o, i);
}

std::vector<int64_t> StatShape(const Heads& h) { return {h.b, h.n, h.s, patterns::kFaStatWidth}; }

// The window of the sparse mode (no mask: everything).
void WindowOf(const FlashAttentionAttrs& a, bool has_mask, int64_t sq, int64_t skv, int64_t* lo,
              int64_t* hi) {
  const int64_t far = patterns::kFaUnbounded;
  *lo = -far;
  *hi = far;
  if (!has_mask) return;
  const auto clamp = [far](int64_t x) { return std::clamp<int64_t>(x, -far, far); };
  // base + x saturated at +-far: preTokens/nextTokens may be anything CanImplement lets through
  // (INT64_MAX: unbounded), which skv - sq would push past int64.
  const auto shifted = [far, clamp](int64_t base, int64_t x) {
    int64_t r = 0;
    return __builtin_add_overflow(base, x, &r) ? (x > 0 ? far : -far) : clamp(r);
  };
  switch (a.sparse_mode) {
    case 0:
      *lo = clamp(-a.pre_tokens);
      *hi = clamp(a.next_tokens);
      break;
    case 2:
      *hi = 0;
      break;
    case 3:
      *hi = skv - sq;
      break;
    case 4:
      // -preTokens: INT64_MIN is refused (preTokens + nextTokens < 0).
      *lo = shifted(skv - sq, -a.pre_tokens);
      *hi = shifted(skv - sq, a.next_tokens);
      break;
    default:
      break;
  }
}

// True when the kernel reads (B, N, S, D) view `v` in place as `kernel_dtype`.
bool InPlace(const TensorRef& v, DType kernel_dtype) {
  const std::vector<int64_t> st = v.strides;
  return v.dtype == kernel_dtype && (st[3] == 1 || v.shape[3] == 1) && st[2] >= v.shape[3] &&
         st[2] <= kMaxPitch && st[0] >= 0 && st[1] >= 0;
}

uint64_t SpanOf(const TensorRef& t) {
  const std::vector<int64_t> s = t.Strides();
  int64_t last = 0;
  for (size_t i = 0; i < t.shape.size(); ++i) last += (t.shape[i] - 1) * s[i];
  return static_cast<uint64_t>(last + 1);
}

// The kernel operand of view `v` (in place or staged at `dense`).
FaOperand OperandOf(const Staging& st, int i, const TensorRef& v, uint8_t* dense) {
  FaOperand o;
  o.data = dense;
  if (st.staged(i)) {
    o.sn = v.shape[2] * v.shape[3];
    o.sb = v.shape[1] * o.sn;
    o.ss = v.shape[3];
    o.span = static_cast<uint64_t>(v.NumElements());
  } else {
    o.sb = v.strides[0];
    o.sn = v.strides[1];
    o.ss = v.strides[2];
    o.span = SpanOf(v);
  }
  return o;
}

uint64_t Align512(uint64_t b) { return (b + 511) / 512 * 512; }

// The mask as a (Bm, Nm, Sq, Skv) view.
TensorRef MaskView(const TensorRef& m) {
  TensorRef r = m;
  r.strides = m.Strides();
  if (r.shape.size() == 2) {
    r.shape.insert(r.shape.begin(), 2, 1);
    r.strides.insert(r.strides.begin(), 2, 0);
  }
  return r;
}

// The part of the AIC's buffers a Matmul tiling may take.
struct CubeUse {
  int64_t l1_bytes = -1;  // L1 for the Matmul's panels; -1: all of it
  bool half_l0 = false;   // one of two Matmul objects: half of L0A/L0B/L0C
};

// The Matmul tiling of A/B elements of `in` (FLOAT, FLOAT16, BFLOAT16) and an fp32 C.
AscendC::tiling::TCubeTiling CubeTiling(const arch::Chip& chip, DType in, int64_t m, int64_t n,
                                        int64_t k, const char* op, const CubeUse& use = {}) {
  const platform_ascendc::PlatformAscendC platform(chip);
  matmul_tiling::MatmulApiTiling api(platform);
  const matmul_tiling::DataType ab = in == DType::kF16    ? matmul_tiling::DataType::DT_FLOAT16
                                     : in == DType::kBF16 ? matmul_tiling::DataType::DT_BF16
                                                          : matmul_tiling::DataType::DT_FLOAT;
  api.SetAType(AscendC::TPosition::GM, CubeFormat::ND, ab);
  if (use.half_l0) {
    // Base blocks of at most 128 x 128 x (16 KiB / (128 x element)), double-buffered: half of
    // L0A and L0B (64 KiB each on the 2201 chips); a 128 x 128 fp32 block, half of L0C.
    const int32_t kb = static_cast<int32_t>(16384 / (128 * DTypeSize(in)));
    api.SetDoubleBuffer(true, true, false, false);
    api.SetSplitRange(128, 128, kb, -1, -1, -1);
  }
  api.SetBType(AscendC::TPosition::GM, CubeFormat::ND, ab);
  api.SetCType(AscendC::TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  const auto m32 = static_cast<int32_t>(m), n32 = static_cast<int32_t>(n),
             k32 = static_cast<int32_t>(k);
  api.SetShape(m32, n32, k32);
  api.SetOrgShape(m32, n32, k32);
  api.SetBias(false);
  api.SetBufferSpace(static_cast<int32_t>(use.l1_bytes), use.half_l0 ? 128 * 128 * 4 : -1, -1);
  AscendC::tiling::TCubeTiling t{};
  if (api.GetTiling(t) != 0) {
    throw Error(Status(StatusCode::kInternal, StrCat(op, ": no Matmul tiling for M=", m, " N=", n,
                                                     " K=", k, ": ", api.last_error())));
  }
  return t;
}

// The shared part of both plans; `in` is the inputs' dtype.
FlashAttentionPlan PlanCommon(const Heads& hq, const Heads& hkv, int64_t dv, bool has_mask,
                              DType in, const FlashAttentionAttrs& a, bool backward,
                              const arch::Chip& chip, const char* op) {
  FlashAttentionPlan p;
  p.chip = &chip;
  p.batch = hq.b;
  p.nq = hq.n;
  p.nkv = hkv.n;
  p.sq = hq.s;
  p.skv = hkv.s;
  p.d = hq.d;
  p.dv = dv;
  p.explicit_mask = has_mask && a.sparse_mode <= 1;
  WindowOf(a, has_mask, p.sq, p.skv, &p.lo_off, &p.hi_off);
  const int64_t dp = (p.d + 7) / 8 * 8, dvp = (dv + 7) / 8 * 8;
  const int64_t ub = static_cast<int64_t>(BudgetOf(chip).ub_bytes) - 4096;
  // Both passes' kernel dtype is the input's (fp32 accumulation inside).
  const DType kernel_dtype = in;
  const int64_t in_bytes = DTypeSize(kernel_dtype);
  if (!backward) {
    p.tk = kTk;
    const int64_t rq = std::clamp<int64_t>(
        ub / patterns::FaForwardRowBytes(p.tk, dv, p.explicit_mask, in_bytes) / 8 * 8, 8, 64);
    p.tq = static_cast<int32_t>(2 * rq);
  } else {
    // The largest kv block, then the largest q tile, whose buffers fit.
    p.tk = 32;
    p.tq = 16;
    bool found = false;
    for (int32_t tk : {128, 64, 32}) {
      for (int32_t rq = 64; rq >= 8 && !found; rq -= 8) {
        if (patterns::FaBackwardBytes(2 * rq, tk, p.d, dv, p.explicit_mask, in_bytes) <= ub) {
          p.tk = tk;
          p.tq = 2 * rq;
          found = true;
        }
      }
      if (found) break;
    }
  }
  if (p.batch == 0 || p.nq == 0 || p.sq == 0 || p.skv == 0) return p;
  const int64_t items = p.batch * p.nq * ((p.sq + p.tq - 1) / p.tq);
  const int64_t aics = std::max(1, chip.aic_count);
  p.block_dim = static_cast<uint32_t>(std::min(items, aics));
  const int64_t kv_items = p.batch * p.nkv * ((p.skv + p.tk - 1) / p.tk);
  p.block_dim_dkdv = static_cast<uint32_t>(std::min(kv_items, aics));
  const int64_t mm_m = std::max<int64_t>(p.tq, p.tk);
  const int64_t mm_n = std::max<int64_t>({p.tk, dp, dvp});
  const int64_t mm_k = std::max<int64_t>({p.tq, p.tk, dp, dvp});
  if (backward) {
    p.mm = CubeTiling(chip, kernel_dtype, mm_m, mm_n, mm_k, op);
  } else {
    // Two Matmul objects (Note [Forward Matmuls]): Q K^T and P V, each with half of L0 and L1.
    uint64_t l1 = 0;
    platform_ascendc::PlatformAscendC(chip).GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    const int64_t share = static_cast<int64_t>(l1) / 2 / 512 * 512;
    p.mm = CubeTiling(chip, kernel_dtype, p.tq, p.tk, dp, op, {share, true});
    p.mm_pv = CubeTiling(chip, kernel_dtype, p.tq, dvp, p.tk, op, {share, true});
  }
  const int64_t group_floats =
      backward ? patterns::FaBackwardGroupFloats(p.tq, p.tk, dp, dvp, p.slot_buffers, in_bytes)
               : patterns::FaForwardGroupFloats(p.tq, p.tk, dvp, p.slot_buffers, in_bytes);
  const uint32_t groups = std::max(p.block_dim, p.block_dim_dkdv);
  p.slots_bytes = Align512(static_cast<uint64_t>(groups * group_floats) * 4);
  return p;
}

FlashAttentionTiling TilingOf(const FlashAttentionPlan& p, float scale, void* workspace) {
  FlashAttentionTiling t;
  t.batch = p.batch;
  t.nq = p.nq;
  t.nkv = p.nkv;
  t.sq = p.sq;
  t.skv = p.skv;
  t.d = p.d;
  t.dv = p.dv;
  t.scale = scale;
  t.lo_off = p.lo_off;
  t.hi_off = p.hi_off;
  t.tq = p.tq;
  t.tk = p.tk;
  t.ws = static_cast<float*>(workspace);
  t.mm = p.mm;
  t.mm_pv = p.mm_pv;
  return t;
}

// The operands of the forward in staging order: q, k, v, [mask], out, max, sum.
struct ForwardViews {
  TensorRef q, k, v, mask, out, smax, ssum;
};

ForwardViews ViewsOf(const FlashAttentionArgs& args, int64_t nkv) {
  ForwardViews w;
  const std::string& l = args.attrs.layout;
  w.q = HeadView(args.query, l, args.attrs.head_num);
  w.k = HeadView(args.key, l, nkv);
  w.v = HeadView(args.value, l, nkv);
  w.out = HeadView(args.attention_out, l, args.attrs.head_num);
  if (args.has_mask) w.mask = MaskView(args.atten_mask);
  w.smax = args.softmax_max;
  w.ssum = args.softmax_sum;
  return w;
}

// Q, K, V and the output are staged only for their layout: the kernel reads their dtype.
void StageForward(const ForwardViews& w, bool explicit_mask, Staging* st) {
  const DType dt = w.q.dtype;
  for (const TensorRef* t : {&w.q, &w.k, &w.v}) st->AddInput(*t, dt, InPlace(*t, dt));
  if (explicit_mask)
    st->AddInput(w.mask, DType::kU8, w.mask.strides[3] == 1 || w.mask.shape[3] == 1);
  st->AddOutput(w.out, dt, InPlace(w.out, dt));
  st->AddOutput(w.smax, DType::kF32, w.smax.IsDense());
  st->AddOutput(w.ssum, DType::kF32, w.ssum.IsDense());
}

// Fills `t`'s mask fields from the mask view staged (or not) as operand `i`.
void SetMask(const Staging& st, int i, const TensorRef& m, uint8_t* dense,
             FlashAttentionTiling* t) {
  t->mask = dense;
  if (st.staged(i)) {
    t->mask_ss = m.shape[3];
    t->mask_sn = m.shape[1] == 1 ? 0 : m.shape[2] * m.shape[3];
    t->mask_sb = m.shape[0] == 1 ? 0 : m.shape[1] * m.shape[2] * m.shape[3];
    t->mask_span = static_cast<uint64_t>(m.NumElements());
  } else {
    t->mask_ss = m.strides[2];
    t->mask_sn = m.shape[1] == 1 ? 0 : m.strides[1];
    t->mask_sb = m.shape[0] == 1 ? 0 : m.strides[0];
    t->mask_span = SpanOf(m);
  }
}

// Enqueues filling view `t` with `value` (in its dtype) on `stream`; nothing when it is empty.
Status EnqueueFill(const void* stream, const TensorRef& t, float value) {
  if (t.NumElements() == 0) return Status();
  return rt::LaunchHostFunc(stream, [t, value] {
    TensorRef v = DenseRef(const_cast<float*>(&value), DType::kF32, t.shape);
    v.strides.assign(t.shape.size(), 0);
    CopyView(t, v);
  });
}

// The forward kernel for inputs of dtype `dt`.
template <class Hooks>
std::function<void()> ForwardBody(DType dt, const FlashAttentionTiling& t) {
  if (dt == DType::kF16) return [t] { patterns::FlashAttentionForwardKernel<Hooks, half>(t); };
  if (dt == DType::kBF16) {
    return [t] { patterns::FlashAttentionForwardKernel<Hooks, bfloat16_t>(t); };
  }
  return [t] { patterns::FlashAttentionForwardKernel<Hooks, float>(t); };
}

Status LaunchMix(const void* stream, const char* name, uint32_t groups, const arch::Chip& chip,
                 std::function<void()> body) {
  LaunchOptions options;
  options.mode = KernelMode::kMix;
  options.chip = &chip;
  return rt::LaunchKernelAsync(stream, name, groups, options, std::move(body));
}

}  // namespace

OpCheck CanImplement(const FlashAttentionArgs& args, const arch::Chip& chip) {
  const char* op = args.op;
  Heads hq, hkv;
  int64_t dv = 0;
  OpCheck c = CheckAttention(op, "key", args.query, args.key, args.value, args.has_mask,
                             args.atten_mask,
                             args.has_pse ? "realShiftOptional" : nullptr, args.has_prefix,
                             args.attrs, chip, &hq, &hkv, &dv);
  if (!c.ok()) return c;
  std::vector<int64_t> out_shape = args.query.shape;  // with value's D
  out_shape.back() = LayoutRank(args.attrs.layout) == 3 ? hq.n * dv : dv;
  if (!(c = CheckOutput(op, "softmaxMaxOut", args.softmax_max, DType::kF32, StatShape(hq))).ok() ||
      !(c = CheckOutput(op, "softmaxSumOut", args.softmax_sum, DType::kF32, StatShape(hq))).ok() ||
      !(c = CheckOutput(op, "attentionOutOut", args.attention_out, args.query.dtype, out_shape))
           .ok()) {
    return c;
  }
  const TensorRef* mask = args.has_mask ? &args.atten_mask : nullptr;
  return CheckApart(op,
                    {{"softmaxMaxOut", &args.softmax_max},
                     {"softmaxSumOut", &args.softmax_sum},
                     {"attentionOutOut", &args.attention_out}},
                    {{"query", &args.query},
                     {"key", &args.key},
                     {"value", &args.value},
                     {"attenMaskOptional", mask}});
}

FlashAttentionPlan Plan(const FlashAttentionArgs& args, const arch::Chip& chip) {
  Heads hq, hkv;
  int64_t dv = 0;
  CheckAttention(args.op, "key", args.query, args.key, args.value, args.has_mask,
                 args.atten_mask,
                 args.has_pse ? "realShiftOptional" : nullptr, args.has_prefix,
                 args.attrs, chip, &hq, &hkv, &dv);
  FlashAttentionPlan p = PlanCommon(hq, hkv, dv, args.has_mask, args.query.dtype, args.attrs,
                                    false, chip, args.op);
  p.block_dim_dkdv = 0;
  // Three slot sets: the AIC's score products run two blocks ahead of the AIVs' softmax, which
  // covers the AIC's latency from a block's P to its P V and the next scores (Note [Forward
  // slots]).
  p.slot_buffers = patterns::kFaForwardMaxSlots;
  if (p.block_dim == 0) return p;
  const int64_t dvp = (dv + 7) / 8 * 8;
  p.slots_bytes = Align512(static_cast<uint64_t>(
                               p.block_dim * patterns::FaForwardGroupFloats(
                                                 p.tq, p.tk, dvp, p.slot_buffers,
                                                 DTypeSize(args.query.dtype))) *
                           4);
  Staging st;
  StageForward(ViewsOf(args, hkv.n), p.explicit_mask, &st);
  p.workspace_bytes = p.slots_bytes + st.WorkspaceBytes();
  return p;
}

Status Launch(const FlashAttentionArgs& args, const FlashAttentionPlan& plan, void* workspace,
              const void* stream) {
  if (plan.block_dim == 0) {
    // Skv = 0 (or an empty q): every row is fully masked (Note [Masked scores]).
    Status s = EnqueueFill(stream, args.attention_out, 0.0f);
    if (s.ok()) s = EnqueueFill(stream, args.softmax_max, -std::numeric_limits<float>::infinity());
    if (s.ok()) s = EnqueueFill(stream, args.softmax_sum, 0.0f);
    return s;
  }
  if (plan.slot_buffers < 1 || plan.slot_buffers > patterns::kFaForwardMaxSlots) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(args.op, ": FlashAttentionPlan::slot_buffers is ", plan.slot_buffers,
                         "; allowed: 1, 2, 3"));
  }
  const DType dt = args.query.dtype;
  const uint64_t slots_need =
      static_cast<uint64_t>(plan.block_dim * patterns::FaForwardGroupFloats(
                                                 plan.tq, plan.tk, (plan.dv + 7) / 8 * 8,
                                                 plan.slot_buffers, DTypeSize(dt))) *
      4;
  if (slots_need > plan.slots_bytes) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(args.op, ": FlashAttentionPlan::slot_buffers ", plan.slot_buffers,
                         " needs ", slots_need, " slot bytes but the plan reserved ",
                         plan.slots_bytes, " (raise slot_buffers before Plan computes the "
                         "workspace, not after)"));
  }
  const ForwardViews w = ViewsOf(args, plan.nkv);
  Staging st;
  StageForward(w, plan.explicit_mask, &st);
  uint8_t* const ws = static_cast<uint8_t*>(workspace);
  return st.Enqueue(ws + plan.slots_bytes, stream, [&](const std::vector<uint8_t*>& dense) {
    FlashAttentionTiling t = TilingOf(plan, static_cast<float>(args.attrs.scale), ws);
    t.slots = plan.slot_buffers;
    t.ws_group_floats = patterns::FaForwardGroupFloats(plan.tq, plan.tk, t.DvPad(),
                                                       plan.slot_buffers, DTypeSize(dt));
    int i = 0;
    t.q = OperandOf(st, i, w.q, dense[i]);
    ++i;
    t.k = OperandOf(st, i, w.k, dense[i]);
    ++i;
    t.v = OperandOf(st, i, w.v, dense[i]);
    ++i;
    if (plan.explicit_mask) {
      SetMask(st, i, w.mask, dense[i], &t);
      ++i;
    }
    t.o = OperandOf(st, i, w.out, dense[i]);
    ++i;
    t.softmax_max = reinterpret_cast<float*>(dense[i++]);
    t.softmax_sum = reinterpret_cast<float*>(dense[i++]);
    std::function<void()> body;
    if (plan.explicit_mask) {
      body = ForwardBody<MaskedScores>(dt, t);
    } else {
      body = ForwardBody<PlainScores>(dt, t);
    }
    return LaunchMix(stream, "ops_flash_attention", plan.block_dim, *plan.chip, std::move(body));
  });
}

namespace {

// The operands of the backward in staging order: q, k, v, dy, o, [mask], max, sum, dq, dk, dv.
struct BackwardViews {
  TensorRef q, k, v, dy, o, mask, smax, ssum, dq, dk, dv;
};

BackwardViews ViewsOf(const FlashAttentionGradArgs& args, int64_t nkv) {
  BackwardViews w;
  const std::string& l = args.attrs.layout;
  const int64_t n = args.attrs.head_num;
  w.q = HeadView(args.query, l, n);
  w.k = HeadView(args.key, l, nkv);
  w.v = HeadView(args.value, l, nkv);
  w.dy = HeadView(args.dy, l, n);
  w.o = HeadView(args.attention_in, l, n);
  if (args.has_mask) w.mask = MaskView(args.atten_mask);
  w.smax = args.softmax_max;
  w.ssum = args.softmax_sum;
  w.dq = HeadView(args.dq, l, n);
  w.dk = HeadView(args.dk, l, nkv);
  w.dv = HeadView(args.dv, l, nkv);
  return w;
}

// The 16-bit operands are staged only for their layout: the kernel reads their dtype.
void StageBackward(const BackwardViews& w, bool explicit_mask, Staging* st) {
  const DType dt = w.q.dtype;
  for (const TensorRef* t : {&w.q, &w.k, &w.v, &w.dy, &w.o}) st->AddInput(*t, dt, InPlace(*t, dt));
  if (explicit_mask)
    st->AddInput(w.mask, DType::kU8, w.mask.strides[3] == 1 || w.mask.shape[3] == 1);
  st->AddInput(w.smax, DType::kF32, w.smax.IsDense());
  st->AddInput(w.ssum, DType::kF32, w.ssum.IsDense());
  for (const TensorRef* t : {&w.dq, &w.dk, &w.dv}) st->AddOutput(*t, dt, InPlace(*t, dt));
}

// The (B, N, S, 8) rowsum(dO * O) the dQ pass leaves for the dK/dV pass, after the slots.
uint64_t DsumBytes(const FlashAttentionPlan& p) {
  return Align512(static_cast<uint64_t>(p.batch * p.nq * p.sq * patterns::kFaStatWidth) * 4);
}

// The backward's two kernels (the dQ pass, then the dK/dV pass) for inputs of dtype `dt`.
template <class Hooks, class T>
std::pair<std::function<void()>, std::function<void()>> BackwardBodiesOf(
    const FlashAttentionTiling& t, float* dsum) {
  return {[t, dsum] { patterns::FlashAttentionBackwardDqKernel<Hooks, T>(t, dsum); },
          [t, dsum] { patterns::FlashAttentionBackwardDkvKernel<Hooks, T>(t, dsum); }};
}
template <class Hooks>
std::pair<std::function<void()>, std::function<void()>> BackwardBodies(
    DType dt, const FlashAttentionTiling& t, float* dsum) {
  if (dt == DType::kF16) return BackwardBodiesOf<Hooks, half>(t, dsum);
  if (dt == DType::kBF16) return BackwardBodiesOf<Hooks, bfloat16_t>(t, dsum);
  return BackwardBodiesOf<Hooks, float>(t, dsum);
}

// The rows a backward product chunk spans at most along its K (Note [Backward chunks]): the
// Fixpipe writes one product per chunk, the workspace holds `slots` chunks of P and dS per group.
constexpr int64_t kBwdChunkRows = 512;

// The backward's product chunks of plan `p` for inputs of dtype `dt` (Note [Backward chunks]):
// the most q tiles (dK/dV pass), resp. kv blocks (dQ pass), one chunk covers; no longer than a
// run can be. Only the dK/dV pass of 16-bit inputs chunks: modeled on ascend910b1 (B1 N16 S2048
// D128) its two fp32 products per pair made the Fixpipe bind (fp16 dK/dV 724 -> 666 us with
// chunks), while elsewhere a chunk's burst of products on the AIC costs more than the Fixpipe
// saves (fp32 dK/dV 1137 -> 1224 us, dQ fp16 619 -> 638 us, fp32 872 -> 910 us).
struct BackwardChunks {
  int32_t q = 1, k = 1;
  int32_t Max() const { return std::max(q, k); }
};
BackwardChunks BackwardChunksOf(const FlashAttentionPlan& p, DType dt) {
  BackwardChunks c;
  if (p.tq <= 0 || p.tk <= 0 || DTypeSize(dt) != 2) return c;
  c.q = static_cast<int32_t>(
      std::clamp<int64_t>(kBwdChunkRows / p.tq, 1, std::max<int64_t>(1, (p.sq + p.tq - 1) / p.tq)));
  return c;
}

// The backward's slot bytes for `slots` sets per group (Note [Backward slots], [Backward
// chunks]).
uint64_t BackwardSlotBytes(const FlashAttentionPlan& p, int32_t slots, DType dt) {
  const int64_t groups = std::max(p.block_dim, p.block_dim_dkdv);
  return static_cast<uint64_t>(
             groups * patterns::FaBackwardGroupFloats(p.tq, p.tk, (p.d + 7) / 8 * 8,
                                                      (p.dv + 7) / 8 * 8, slots, DTypeSize(dt),
                                                      BackwardChunksOf(p, dt).Max())) *
         4;
}

}  // namespace

OpCheck CanImplement(const FlashAttentionGradArgs& args, const arch::Chip& chip) {
  const char* op = args.op;
  Heads hq, hkv;
  int64_t dv = 0;
  OpCheck c = CheckAttention(op, "keyIn", args.query, args.key, args.value, args.has_mask,
                             args.atten_mask,
                             args.has_pse ? "pseShiftOptional" : nullptr, args.has_prefix,
                             args.attrs, chip, &hq, &hkv, &dv);
  if (!c.ok()) return c;
  std::vector<int64_t> out_shape = args.query.shape;  // with value's D
  out_shape.back() = LayoutRank(args.attrs.layout) == 3 ? hq.n * dv : dv;
  const DType dt = args.query.dtype;
  if (!(c = CheckOutput(op, "dy", args.dy, dt, out_shape)).ok() ||
      !(c = CheckOutput(op, "attentionInOptional", args.attention_in, dt, out_shape)).ok() ||
      !(c = CheckOutput(op, "softmaxMaxOptional", args.softmax_max, DType::kF32, StatShape(hq)))
           .ok() ||
      !(c = CheckOutput(op, "softmaxSumOptional", args.softmax_sum, DType::kF32, StatShape(hq)))
           .ok() ||
      !(c = CheckOutput(op, "dqOut", args.dq, dt, args.query.shape)).ok() ||
      !(c = CheckOutput(op, "dkOut", args.dk, dt, args.key.shape)).ok() ||
      !(c = CheckOutput(op, "dvOut", args.dv, dt, args.value.shape)).ok()) {
    return c;
  }
  const TensorRef* mask = args.has_mask ? &args.atten_mask : nullptr;
  return CheckApart(op, {{"dqOut", &args.dq}, {"dkOut", &args.dk}, {"dvOut", &args.dv}},
                    {{"query", &args.query},
                     {"keyIn", &args.key},
                     {"value", &args.value},
                     {"dy", &args.dy},
                     {"attenMaskOptional", mask},
                     {"softmaxMaxOptional", &args.softmax_max},
                     {"softmaxSumOptional", &args.softmax_sum},
                     {"attentionInOptional", &args.attention_in}});
}

FlashAttentionPlan Plan(const FlashAttentionGradArgs& args, const arch::Chip& chip) {
  Heads hq, hkv;
  int64_t dv = 0;
  CheckAttention(args.op, "keyIn", args.query, args.key, args.value, args.has_mask,
                 args.atten_mask,
                 args.has_pse ? "pseShiftOptional" : nullptr, args.has_prefix,
                 args.attrs, chip, &hq, &hkv, &dv);
  FlashAttentionPlan p = PlanCommon(hq, hkv, dv, args.has_mask, args.query.dtype, args.attrs,
                                    true, chip, args.op);
  if (p.block_dim == 0) return p;
  // The products' K spans a whole chunk (Note [Backward chunks]), and so do the slots.
  const BackwardChunks chunks = BackwardChunksOf(p, args.query.dtype);
  const int64_t dp = (p.d + 7) / 8 * 8, dvp = (dv + 7) / 8 * 8;
  p.mm = CubeTiling(chip, args.query.dtype, std::max<int64_t>(p.tq, p.tk),
                    std::max<int64_t>({p.tk, dp, dvp}),
                    std::max<int64_t>({p.tq, p.tk, dp, dvp, int64_t{chunks.q} * p.tq,
                                       int64_t{chunks.k} * p.tk}),
                    args.op);
  p.slots_bytes = Align512(BackwardSlotBytes(p, p.slot_buffers, args.query.dtype));
  Staging st;
  StageBackward(ViewsOf(args, hkv.n), p.explicit_mask, &st);
  p.workspace_bytes = p.slots_bytes + DsumBytes(p) + st.WorkspaceBytes();
  return p;
}

Status Launch(const FlashAttentionGradArgs& args, const FlashAttentionPlan& plan, void* workspace,
              const void* stream) {
  if (plan.block_dim == 0) {
    // Sq = 0 or Skv = 0: the gradients that exist are zeros.
    for (const TensorRef* t : {&args.dq, &args.dk, &args.dv}) {
      const Status s = EnqueueFill(stream, *t, 0.0f);
      if (!s.ok()) return s;
    }
    return Status();
  }
  if (plan.slot_buffers != 1 && plan.slot_buffers != 2) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(args.op, ": FlashAttentionPlan::slot_buffers is ", plan.slot_buffers,
                         "; allowed: 1, 2"));
  }
  const DType dt = args.query.dtype;
  const uint64_t slots_need = BackwardSlotBytes(plan, plan.slot_buffers, dt);
  if (slots_need > plan.slots_bytes) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(args.op, ": FlashAttentionPlan::slot_buffers ", plan.slot_buffers,
                         " needs ", slots_need, " slot bytes but the plan reserved ",
                         plan.slots_bytes, " (raise slot_buffers before Plan computes the "
                         "workspace, not after)"));
  }
  const BackwardViews w = ViewsOf(args, plan.nkv);
  Staging st;
  StageBackward(w, plan.explicit_mask, &st);
  uint8_t* const ws = static_cast<uint8_t*>(workspace);
  float* const dsum = reinterpret_cast<float*>(ws + plan.slots_bytes);
  return st.Enqueue(
      ws + plan.slots_bytes + DsumBytes(plan), stream, [&](const std::vector<uint8_t*>& dense) {
        FlashAttentionTiling t = TilingOf(plan, static_cast<float>(args.attrs.scale), ws);
        t.slots = plan.slot_buffers;
        const BackwardChunks chunks = BackwardChunksOf(plan, dt);
        t.chunk_q = chunks.q;
        t.chunk_k = chunks.k;
        t.ws_group_floats = patterns::FaBackwardGroupFloats(plan.tq, plan.tk, t.DPad(), t.DvPad(),
                                                            plan.slot_buffers, DTypeSize(dt),
                                                            chunks.Max());
        int i = 0;
        t.q = OperandOf(st, i, w.q, dense[i]);
        ++i;
        t.k = OperandOf(st, i, w.k, dense[i]);
        ++i;
        t.v = OperandOf(st, i, w.v, dense[i]);
        ++i;
        t.dout = OperandOf(st, i, w.dy, dense[i]);
        ++i;
        t.o = OperandOf(st, i, w.o, dense[i]);
        ++i;
        if (plan.explicit_mask) {
          SetMask(st, i, w.mask, dense[i], &t);
          ++i;
        }
        t.softmax_max = reinterpret_cast<float*>(dense[i++]);
        t.softmax_sum = reinterpret_cast<float*>(dense[i++]);
        t.grad_q = OperandOf(st, i, w.dq, dense[i]);
        ++i;
        t.grad_k = OperandOf(st, i, w.dk, dense[i]);
        ++i;
        t.grad_v = OperandOf(st, i, w.dv, dense[i]);
        auto [dq_body, dkv_body] = plan.explicit_mask ? BackwardBodies<MaskedScores>(dt, t, dsum)
                                                      : BackwardBodies<PlainScores>(dt, t, dsum);
        Status s = LaunchMix(stream, "ops_flash_attention_grad_dq", plan.block_dim, *plan.chip,
                             std::move(dq_body));
        if (!s.ok()) return s;
        return LaunchMix(stream, "ops_flash_attention_grad_dkv", plan.block_dim_dkdv, *plan.chip,
                         std::move(dkv_body));
      });
}


Status FlashAttentionForward(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                             const TensorRef* atten_mask, const FlashAttentionAttrs& attrs,
                             const TensorRef& softmax_max, const TensorRef& softmax_sum,
                             const TensorRef& attention_out, const void* stream) {
  FlashAttentionArgs a;
  a.op = "aicore::ops::FlashAttentionForward";
  a.query = query;
  a.key = key;
  a.value = value;
  a.has_mask = atten_mask != nullptr;
  if (atten_mask) a.atten_mask = *atten_mask;
  a.attrs = attrs;
  a.softmax_max = softmax_max;
  a.softmax_sum = softmax_sum;
  a.attention_out = attention_out;
  return RunOp(a, stream);
}

Status FlashAttentionBackward(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                              const TensorRef& dy, const TensorRef* atten_mask,
                              const TensorRef& softmax_max, const TensorRef& softmax_sum,
                              const TensorRef& attention_in, const FlashAttentionAttrs& attrs,
                              const TensorRef& dq, const TensorRef& dk, const TensorRef& dv,
                              const void* stream) {
  FlashAttentionGradArgs a;
  a.op = "aicore::ops::FlashAttentionBackward";
  a.query = query;
  a.key = key;
  a.value = value;
  a.dy = dy;
  a.has_mask = atten_mask != nullptr;
  if (atten_mask) a.atten_mask = *atten_mask;
  a.softmax_max = softmax_max;
  a.softmax_sum = softmax_sum;
  a.attention_in = attention_in;
  a.attrs = attrs;
  a.dq = dq;
  a.dk = dk;
  a.dv = dv;
  return RunOp(a, stream);
}

Status UnfusedAttentionForward(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                               const TensorRef* mask_bias, double scale,
                               const TensorRef& attention_out, const void* stream) {
  if (query.Rank() != 4 || key.Rank() != 4 || value.Rank() != 4 || key.shape[1] != query.shape[1] ||
      query.dtype != DType::kF32 || key.dtype != DType::kF32 || value.dtype != DType::kF32) {
    return Status(StatusCode::kInvalidArgument,
                  "UnfusedAttentionForward: takes FLOAT BNSD query/key/value with equal head "
                  "counts");
  }
  const int64_t b = query.shape[0], n = query.shape[1], sq = query.shape[2], skv = key.shape[2];
  std::shared_ptr<rt::Stream> s;
  Status st = rt::ResolveStream(stream, "UnfusedAttentionForward", &s);
  if (!st.ok()) return st;
  const uint64_t bytes = static_cast<uint64_t>(b * n * sq * skv) * 4;
  void* scores_mem = nullptr;
  try {
    scores_mem = rt::DeviceMalloc(std::max<uint64_t>(bytes, 4), s.get());
  } catch (const Error& e) {
    return e.status();
  }
  const TensorRef scores = DenseRef(scores_mem, DType::kF32, {b, n, sq, skv});
  TensorRef kt = key;  // (B, N, D, Skv): a transposed view
  kt.strides = key.Strides();
  std::swap(kt.shape[2], kt.shape[3]);
  std::swap(kt.strides[2], kt.strides[3]);
  if (st.ok()) st = Matmul(query, kt, scores, kKeepDtype, stream);
  if (st.ok()) st = Muls(scores, scale, scores, stream);
  if (st.ok() && mask_bias != nullptr) st = Add(scores, *mask_bias, 1.0, scores, stream);
  if (st.ok()) st = Softmax(scores, -1, scores, stream);
  if (st.ok()) st = Matmul(scores, value, attention_out, kKeepDtype, stream);
  const Status sync = rt::StreamSynchronize(stream, "UnfusedAttentionForward");
  rt::DeviceFree(scores_mem);
  return st.ok() ? sync : st;
}

}  // namespace aicore::ops
