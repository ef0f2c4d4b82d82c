// libFuzzer target: the aclnn entry points of the fused and matrix operators,
// aclnnFlashAttentionScore(Grad), aclnnAicoreMatmulEpilogue and aclnn(Inplace)Addmm, with a
// structured generator that reaches past the first check: the input picks an operator and a small
// valid problem (layouts, GQA heads, masks and sparse modes, padded, permuted or offset views,
// broadcasting batch dims, bias and residual forms, scalar dtypes), then up to two defects from
// issue 12's list (layout against rank, headNum, K/V heads, mask shape or dtype, scale, keepProb,
// D over 768, null tensors or storage, zero and huge dims, aliasing outputs, mismatched dtypes,
// bad attributes). Invariants: nothing crashes, overflows or touches memory outside a buffer
// (ASan, UBSan); phase 1 returns a documented status, an executor exactly on success and a
// message "<api>: ..." on failure; a defect that must be refused is refused with its documented
// status and a message naming the argument; a problem without such a defect is accepted, and
// when small phase 2 computes what tests/reference computes, leaving no output element unwritten.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aclnnop/aclnn_matmul_epilogue.h"
#include "aicore/core/dtype.h"
#include "aicore/runtime/launch.h"
#include "tests/reference/attention_ref.h"
#include "tests/reference/matmul_epilogue_ref.h"

namespace {

using aicore::bfloat16;
using aicore::half;

// The case being run, printed when an invariant fails.
std::string g_case;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "aclnn_ops_fuzzer: %s\n  case: %s\n  aclGetRecentErrMsg: %s\n",
                 what.c_str(), g_case.c_str(), aclGetRecentErrMsg());
    __builtin_trap();
  }
}

// ACLNN_OPS_FUZZER_VERBOSE=1 prints each case before phase 1 (to see what a timeout was doing).
bool Verbose() {
  static const bool v = std::getenv("ACLNN_OPS_FUZZER_VERBOSE") != nullptr;
  return v;
}

std::string Dims(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// splitmix64: the tensor values, from one seed the input gives.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // A value k/8, |k| <= 8: exact in every float dtype, products exact in fp32.
  double Value() { return static_cast<double>(static_cast<int>(Next() % 17) - 8) / 8; }
};

size_t ItemSize(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT:
    case ACL_INT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
      return 2;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_COMPLEX64:
      return 8;
    default:
      return 1;
  }
}

// A tensor argument: its view, its storage buffer (exactly sized, so ASan sees any stray access)
// or another tensor's (an alias), and the aclTensor passed (nullptr when `pass_null`).
struct Tensor {
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  int64_t storage_elems = 0;
  std::shared_ptr<uint8_t[]> buf;  // null: no storage (null data pointer)
  bool pass_null = false;
  aclTensor* t = nullptr;

  Tensor() = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() { aclDestroyTensor(t); }

  int64_t Numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n = __builtin_mul_overflow(n, d, &n) ? INT64_MAX : n;
    return n;
  }
  int64_t At(const std::vector<int64_t>& idx) const {
    int64_t e = offset;
    for (size_t i = 0; i < idx.size(); ++i) e += idx[i] * strides[i];
    return e;
  }
  double Get(const std::vector<int64_t>& idx) const {
    const uint8_t* p = buf.get() + At(idx) * ItemSize(dtype);
    switch (dtype) {
      case ACL_FLOAT16: {
        half h;
        std::memcpy(&h, p, 2);
        return static_cast<float>(h);
      }
      case ACL_BF16: {
        bfloat16 h;
        std::memcpy(&h, p, 2);
        return static_cast<float>(h);
      }
      case ACL_FLOAT: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      }
      default:
        return p[0];
    }
  }
  void Set(const std::vector<int64_t>& idx, double v) {
    uint8_t* p = buf.get() + At(idx) * ItemSize(dtype);
    switch (dtype) {
      case ACL_FLOAT16: {
        const half h(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case ACL_BF16: {
        const bfloat16 h(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case ACL_FLOAT: {
        const float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
        break;
      }
      default:  // integer dtypes: the low byte of the value
        p[0] = static_cast<uint8_t>(static_cast<int>(v) & 0xff);
    }
  }
  const aclTensor* arg() const { return pass_null ? nullptr : t; }
};

// Calls f(idx) for every index of `shape` in row-major order.
template <class F>
void ForEach(const std::vector<int64_t>& shape, F f) {
  for (int64_t d : shape)
    if (d <= 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    f(idx);
    size_t d = shape.size();
    while (d > 0 && ++idx[d - 1] == shape[d - 1]) idx[--d] = 0;
    if (d == 0) return;
  }
}

// How a tensor's storage is laid out around its view.
struct Layout {
  bool pad = false;      // each dim's storage pitch one larger
  bool permute = false;  // the last two dims swapped in storage (a transposed view)
  int64_t offset = 0;
};

Layout PickLayout(FuzzedDataProvider& in) {
  Layout l;
  if (in.ConsumeIntegralInRange<int>(0, 3) != 0) return l;  // mostly dense
  l.pad = in.ConsumeBool();
  l.permute = in.ConsumeBool();
  l.offset = in.ConsumeIntegralInRange<int64_t>(0, 3);
  return l;
}

// Makes `t` a view of `shape` over fresh storage (none when too large for a buffer).
void Make(Tensor* t, std::vector<int64_t> shape, aclDataType dt, const Layout& l) {
  t->shape = std::move(shape);
  t->dtype = dt;
  const size_t r = t->shape.size();
  std::vector<int64_t> pitch = t->shape;
  if (l.pad)
    for (int64_t& p : pitch) ++p;
  std::vector<size_t> order(r);  // storage dims, outermost first
  for (size_t i = 0; i < r; ++i) order[i] = i;
  if (l.permute && r >= 2) std::swap(order[r - 1], order[r - 2]);
  t->strides.assign(r, 0);
  __int128 s = 1;
  for (size_t k = r; k-- > 0;) {
    t->strides[order[k]] = static_cast<int64_t>(std::min<__int128>(s, INT64_MAX / 4));
    s *= std::max<int64_t>(pitch[order[k]], 1);
    s = std::min<__int128>(s, INT64_MAX / 4);
  }
  t->offset = l.offset;
  __int128 elems = t->offset + 1;
  for (size_t i = 0; i < r; ++i) {
    elems += static_cast<__int128>(std::max<int64_t>(t->shape[i] - 1, 0)) * t->strides[i];
  }
  t->storage_elems = static_cast<int64_t>(std::min<__int128>(elems, INT64_MAX / 16));
  if (t->storage_elems * static_cast<int64_t>(ItemSize(dt)) <= (int64_t{1} << 23)) {
    const size_t bytes = t->storage_elems * ItemSize(dt);
    t->buf = std::shared_ptr<uint8_t[]>(new uint8_t[bytes]);
    std::memset(t->buf.get(), 0xff, bytes);  // NaN in every float dtype: unwritten outputs show
  }
}

void Create(Tensor* t) {
  const int64_t storage = t->storage_elems;
  t->t = aclCreateTensor(t->shape.data(), t->shape.size(), t->dtype, t->strides.data(), t->offset,
                         ACL_FORMAT_ND, &storage, 1, t->buf.get());
  Check(t->t != nullptr, "aclCreateTensor refused a generated view " + Dims(t->shape));
}

// The most elements the fuzzer itself fills or reads in one tensor (a huge view of stride-0 dims
// is left as it is).
constexpr int64_t kMaxTouched = int64_t{1} << 16;

void Fill(Tensor* t, Rng& rng) {
  if (t->buf == nullptr || t->Numel() > kMaxTouched) return;
  ForEach(t->shape, [&](const std::vector<int64_t>& idx) { t->Set(idx, rng.Value()); });
}

// What the defects demand of phase 1.
struct Expect {
  // The defects the contract refuses: their status (0: 161001 or 161002) and a word the message
  // must contain (the argument). With several, phase 1 may report any one of them.
  std::vector<std::pair<aclnnStatus, std::string>> refusals;
  bool compare = true;   // no defect that makes the reference inapplicable
  std::string what;      // the defects, for the report
  bool neutral = false;  // a defect that may be accepted, or refused for its own reason
  // A refusing defect next to a neutral one need not be reported (the neutral one may empty
  // the tensor it spoils, or be refused first with its own message).
  bool must_fail() const { return !refusals.empty() && !neutral; }
  void Refuse(aclnnStatus c, const std::string& arg, const std::string& defect) {
    refusals.emplace_back(c, arg);
    compare = false;
    what += defect + "; ";
  }
  void Neutral(const std::string& defect, bool comparable) {
    neutral = true;
    compare = compare && comparable;
    what += defect + "; ";
  }
};

// Phase 1's out-pointers, one of which a defect may make null.
struct OutPointers {
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  bool null_ws = false, null_exec = false;
  uint64_t* ws_arg() { return null_ws ? nullptr : &ws; }
  aclOpExecutor** exec_arg() { return null_exec ? nullptr : &exec; }
  void PickNull(FuzzedDataProvider& in, Expect* e) {
    (in.ConsumeBool() ? null_ws : null_exec) = true;
    const char* what = null_ws ? "workspaceSize" : "executor";
    e->Refuse(ACLNN_ERR_PARAM_NULLPTR, what, std::string("null ") + what);
  }
};

bool Documented(aclnnStatus s) {
  return s == ACLNN_SUCCESS || s == ACLNN_ERR_PARAM_NULLPTR || s == ACLNN_ERR_PARAM_INVALID ||
         s == ACLNN_ERR_RUNTIME_ERROR || (s >= ACLNN_ERR_INNER && s <= 561119);
}

// Checks phase 1's outcome against `e`; true when it succeeded.
bool CheckPhase1(const char* api, aclnnStatus s, aclOpExecutor* exec, const Expect& e) {
  g_case += " -> status " + std::to_string(s);
  Check(Documented(s), "phase 1 returned an undocumented status");
  Check((s == ACLNN_SUCCESS) == (exec != nullptr), "an executor without success, or none with");
  if (s != ACLNN_SUCCESS) {
    const std::string msg = aclGetRecentErrMsg();
    Check(msg.rfind(std::string(api) + ": ", 0) == 0, "the message does not start with the api");
    Check(msg.find("[aclnnStatus " + std::to_string(s) + "]") != std::string::npos,
          "the message does not carry its status");
  }
  if (e.must_fail()) {
    Check(s != ACLNN_SUCCESS, "a defect that must be refused was accepted");
    Check(s == ACLNN_ERR_PARAM_NULLPTR || s == ACLNN_ERR_PARAM_INVALID,
          "an argument defect was refused with a status other than 161001/161002");
    const std::string msg = aclGetRecentErrMsg();
    bool matched = false;
    std::string wanted;
    for (const auto& [code, names] : e.refusals) {
      matched |= (code == 0 || code == s) && msg.find(names) != std::string::npos;
      wanted += std::to_string(code) + " naming \"" + names + "\", ";
    }
    Check(matched, "the refusal is none of " + wanted);
  } else if (e.what.empty()) {
    Check(s == ACLNN_SUCCESS, "a valid problem was refused");
  }
  return s == ACLNN_SUCCESS;
}

// Runs phase 2 when `run`, else destroys the executor; true when it ran and succeeded.
bool Phase2(bool run, uint64_t ws, aclOpExecutor* exec,
            aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  if (!run || ws > (uint64_t{1} << 26)) {
    Check(aclDestroyAclOpExecutor(exec) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor failed");
    return false;
  }
  std::unique_ptr<uint8_t[]> workspace(ws ? new uint8_t[ws] : nullptr);
  const aclnnStatus s = phase2(workspace.get(), ws, exec, nullptr);
  Check(Documented(s), "phase 2 returned an undocumented status");
  const bool synced = aclrtSynchronizeStream(nullptr) == ACL_SUCCESS;
  Check(s == ACLNN_SUCCESS && synced, "phase 2 of an accepted problem failed");
  return true;
}

void Near(double got, double want, double tol, const std::string& what) {
  const bool ok = std::isinf(want) ? got == want : std::fabs(got - want) <= tol;
  Check(ok, what + ": got " + std::to_string(got) + ", want " + std::to_string(want) +
                " (tolerance " + std::to_string(tol) + ")");
}

double Rtol(aclDataType dt) { return dt == ACL_FLOAT ? 1e-4 : dt == ACL_FLOAT16 ? 4e-3 : 3.2e-2; }

aclDataType FloatType(FuzzedDataProvider& in) {
  static constexpr aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[in.ConsumeIntegralInRange<int>(0, 2)];
}

aclDataType BadType(FuzzedDataProvider& in) {
  static constexpr aclDataType kTypes[] = {ACL_DOUBLE, ACL_INT32, ACL_INT8,  ACL_BOOL,
                                           ACL_INT64,  ACL_UINT8, ACL_INT16, ACL_COMPLEX64};
  return kTypes[in.ConsumeIntegralInRange<int>(0, 7)];
}

// A huge dim: past every documented limit and into the range where products overflow.
int64_t HugeDim(FuzzedDataProvider& in) {
  return int64_t{1} << in.ConsumeIntegralInRange<int>(21, 40);
}

// Gives non-empty `t` a stride-0 dim of size > 1 (its elements at one memory location), if it
// has one.
bool MakeSelfOverlapping(Tensor* t) {
  if (t->Numel() == 0) return false;  // an empty output writes nothing
  for (size_t i = 0; i < t->shape.size(); ++i) {
    if (t->shape[i] > 1) {
      t->strides[i] = 0;
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Flash attention.

const char* const kLayouts[] = {"BNSD", "BSND", "BSH", "SBH"};

// The view shape of a (b, n, s, d) operand in layout `l` (0..3).
std::vector<int64_t> LayoutShape(int l, int64_t b, int64_t n, int64_t s, int64_t d) {
  switch (l) {
    case 0:
      return {b, n, s, d};
    case 1:
      return {b, s, n, d};
    case 2:
      return {b, s, n * d};
    default:
      return {s, b, n * d};
  }
}
std::vector<int64_t> LayoutIndex(int l, int64_t b, int64_t n, int64_t s, int64_t x, int64_t d) {
  switch (l) {
    case 0:
      return {b, n, s, x};
    case 1:
      return {b, s, n, x};
    case 2:
      return {b, s, n * d + x};
    default:
      return {s, b, n * d + x};
  }
}

// The compressed 2048 x 2048 mask of sparse modes 2..4 (1 above the diagonal), made once.
std::shared_ptr<uint8_t[]> CompressedMask() {
  static std::shared_ptr<uint8_t[]> m = [] {
    std::shared_ptr<uint8_t[]> p(new uint8_t[2048 * 2048]);
    for (int64_t i = 0; i < 2048; ++i) {
      for (int64_t j = 0; j < 2048; ++j) p[i * 2048 + j] = j > i;
    }
    return p;
  }();
  return m;
}

struct FaProblem {
  int64_t b = 1, nq = 1, nkv = 1, sq = 1, skv = 1, d = 1, dv = 1;
  int layout = 0;
  aclDataType dt = ACL_FLOAT;
  int mask_form =
      0;  // 0 none, 1 [Sq,Skv], 2 [B,1,Sq,Skv], 3 [1,1,Sq,Skv], 4 [B,N,Sq,Skv], 5 2048^2
  aclDataType mask_dt = ACL_BOOL;
  int64_t sparse = 0, pre = 2147483647, next = 2147483647, inner = 0, head_num = 1;
  double scale = 1, keep = 1;
  std::string layout_text;
  bool null_layout = false;
};

FaProblem PickFa(FuzzedDataProvider& in) {
  FaProblem p;
  p.b = in.ConsumeIntegralInRange<int64_t>(1, 2);
  p.nkv = in.ConsumeIntegralInRange<int64_t>(1, 2);
  p.nq = p.nkv * in.ConsumeIntegralInRange<int64_t>(1, 3);
  p.sq =
      in.ConsumeIntegralInRange<int64_t>(0, 7) == 0 ? 0 : in.ConsumeIntegralInRange<int64_t>(1, 9);
  p.skv =
      in.ConsumeIntegralInRange<int64_t>(0, 7) == 0 ? 0 : in.ConsumeIntegralInRange<int64_t>(1, 9);
  p.d = in.ConsumeIntegralInRange<int64_t>(1, 16);
  p.dv = in.ConsumeBool() ? p.d : in.ConsumeIntegralInRange<int64_t>(1, p.d);
  p.layout = in.ConsumeIntegralInRange<int>(0, 3);
  p.dt = FloatType(in);
  p.mask_form = in.ConsumeIntegralInRange<int>(0, 5);
  p.mask_dt = in.ConsumeBool() ? ACL_BOOL : ACL_UINT8;
  if (p.mask_form == 5) {
    p.sparse = in.ConsumeIntegralInRange<int64_t>(2, 4);
  } else if (p.mask_form > 0) {
    p.sparse = in.ConsumeIntegralInRange<int64_t>(0, 1);
  } else {
    p.sparse = in.ConsumeIntegralInRange<int64_t>(0, 4);  // ignored without a mask
  }
  if (in.ConsumeBool()) {
    p.pre = in.ConsumeIntegralInRange<int64_t>(-4, 10);
    p.next = in.ConsumeIntegralInRange<int64_t>(-p.pre, 10);
  }
  p.inner = in.ConsumeIntegralInRange<int64_t>(0, 2);
  p.scale = in.ConsumeBool() ? 1 / std::sqrt(static_cast<double>(p.d))
                             : in.PickValueInArray({0.5, 1.0, 2.0, -1.0, 0.0});
  p.head_num = p.nq;
  p.layout_text = kLayouts[p.layout];
  return p;
}

std::vector<int64_t> MaskShape(const FaProblem& p) {
  switch (p.mask_form) {
    case 1:
      return {p.sq, p.skv};
    case 2:
      return {p.b, 1, p.sq, p.skv};
    case 3:
      return {1, 1, p.sq, p.skv};
    case 4:
      return {p.b, p.nq, p.sq, p.skv};
    default:
      return {2048, 2048};
  }
}

// The operands of either pass. Forward: q k v [mask] -> max sum out; backward: q k v dy [mask]
// max sum attn_in -> dq dk dv.
struct FaTensors {
  Tensor q, k, v, mask, smax, ssum, out, dy, dq, dk, dv;
};

void Attn(FuzzedDataProvider& in, bool backward) {
  FaProblem p = PickFa(in);
  Expect e;
  FaTensors t;
  // Defects that change the problem before the tensors are made.
  const int defects =
      in.ConsumeIntegralInRange<int>(0, 3) == 0 ? 0 : in.ConsumeIntegralInRange<int>(1, 2);
  std::vector<int> kinds;
  for (int i = 0; i < defects; ++i) {
    const int k = in.ConsumeIntegralInRange<int>(0, 27);
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);  // once each
  }
  auto has = [&](int k) { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); };
  if (has(0)) {  // D over the documented limit
    p.d = in.ConsumeIntegralInRange<int64_t>(769, 800);
    p.dv = in.ConsumeBool() ? p.d : 1;
    p.b = p.nq = p.nkv = 1;
    p.sq = p.skv = 1;
    p.mask_form = p.mask_form == 5 ? 5 : 0;
    p.head_num = 1;
    e.Refuse(ACLNN_ERR_PARAM_INVALID, "D = ", "D > 768");
  }
  if (has(1) && p.nq > 1) {  // K/V heads not dividing Q's
    p.nkv = p.nq + 1;
    e.Refuse(ACLNN_ERR_PARAM_INVALID, "key", "Nkv does not divide Nq");
  }
  const Layout lq = PickLayout(in), lk = PickLayout(in), lv = PickLayout(in);
  Make(&t.q, LayoutShape(p.layout, p.b, p.nq, p.sq, p.d), p.dt, lq);
  Make(&t.k, LayoutShape(p.layout, p.b, p.nkv, p.skv, p.d), p.dt, lk);
  Make(&t.v, LayoutShape(p.layout, p.b, p.nkv, p.skv, p.dv), p.dt, lv);
  if (p.mask_form > 0) {
    if (p.mask_form == 5) {
      t.mask.shape = {2048, 2048};
      t.mask.strides = {2048, 1};
      t.mask.dtype = p.mask_dt;
      t.mask.storage_elems = 2048 * 2048;
      t.mask.buf = CompressedMask();
    } else {
      Make(&t.mask, MaskShape(p), p.mask_dt, PickLayout(in));
    }
  }
  const std::vector<int64_t> stat = {p.b, p.nq, p.sq, 8};
  const std::vector<int64_t> oshape = LayoutShape(p.layout, p.b, p.nq, p.sq, p.dv);
  Make(&t.smax, stat, ACL_FLOAT, PickLayout(in));
  Make(&t.ssum, stat, ACL_FLOAT, PickLayout(in));
  if (!backward) {
    Make(&t.out, oshape, p.dt, PickLayout(in));
  } else {
    Make(&t.out, oshape, p.dt, PickLayout(in));  // attentionIn
    Make(&t.dy, oshape, p.dt, PickLayout(in));
    Make(&t.dq, t.q.shape, p.dt, PickLayout(in));
    Make(&t.dk, t.k.shape, p.dt, PickLayout(in));
    Make(&t.dv, t.v.shape, p.dt, PickLayout(in));
  }
  Tensor* outs_fwd[] = {&t.smax, &t.ssum, &t.out};
  Tensor* outs_bwd[] = {&t.dq, &t.dk, &t.dv};
  const char* out_names_fwd[] = {"softmaxMaxOut", "softmaxSumOut", "attentionOutOut"};
  const char* out_names_bwd[] = {"dqOut", "dkOut", "dvOut"};
  Tensor** outs = backward ? outs_bwd : outs_fwd;
  const char* const* out_names = backward ? out_names_bwd : out_names_fwd;
  Tensor* ins[] = {&t.q, &t.k, &t.v};
  const char* in_names[] = {"query", backward ? "keyIn" : "key", "value"};
  bool pse = false, drop = false, padding = false, prefix = false;
  OutPointers outp;
  for (int k : kinds) {
    switch (k) {
      case 2: {  // a layout of the other rank
        const int other = (p.layout + 2) % 4;
        p.layout_text = kLayouts[other];
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "inputLayout", "layout of the other rank");
        break;
      }
      case 3: {  // a layout that is none
        const int which = in.ConsumeIntegralInRange<int>(0, 5);
        if (which == 5) {
          p.null_layout = true;
          e.Refuse(ACLNN_ERR_PARAM_NULLPTR, "inputLayout", "null inputLayout");
        } else {
          p.layout_text = std::vector<std::string>{"", "bsh", "TND", "BSHX", "BNS"}[which];
          e.Refuse(ACLNN_ERR_PARAM_INVALID, "inputLayout", "bad inputLayout");
        }
        break;
      }
      case 4: {  // headNum wrong
        const int64_t h = in.PickValueInArray<int64_t>(
            {0, -1, 257, INT64_MAX, INT64_MIN, p.nq + 1, p.nq * 2 + 1});
        if (h == p.head_num) break;
        // BSH/SBH with H divisible by the new count and K/V heads consistent is another
        // valid reading of the same tensors only when D changes: still refused or reshaped.
        p.head_num = h;
        if (h > 0 && h <= 256 && p.layout >= 2 && (p.nq * p.d) % h == 0) {
          e.Neutral("headNum reinterpreting H", false);
        } else {
          e.Refuse(ACLNN_ERR_PARAM_INVALID, "headNum", "bad headNum");
        }
        break;
      }
      case 5: {  // mask of a wrong shape
        if (p.mask_form == 0) break;
        std::vector<int64_t> s = t.mask.shape;
        const int how = in.ConsumeIntegralInRange<int>(0, 2);
        if (how == 0) s.back() += 1;
        if (how == 1) s.insert(s.begin(), 1);
        if (how == 2) s[0] += 2;
        if (s.size() == 5) s = {s[0], s[1], s[2]};
        Make(&t.mask, s, t.mask.dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "attenMaskOptional", "mask shape");
        break;
      }
      case 6: {  // mask of a wrong dtype
        if (p.mask_form == 0) break;
        const aclDataType dt = in.PickValueInArray({ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32});
        std::vector<int64_t> s = t.mask.shape;
        Make(&t.mask, s, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "attenMaskOptional", "mask dtype");
        break;
      }
      case 7:
        p.scale = in.PickValueInArray({std::nan(""), HUGE_VAL, -HUGE_VAL});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "scaleValue", "scale not finite");
        break;
      case 8:
        p.keep = in.PickValueInArray({0.0, -1.0, 1.5, std::nan(""), 0.5, 1e-300});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "keepProb", "keepProb");
        break;
      case 9: {  // a required tensor null
        const int i = in.ConsumeIntegralInRange<int>(0, 5);
        Tensor* x = i < 3 ? ins[i] : outs[i - 3];
        x->pass_null = true;
        e.Refuse(ACLNN_ERR_PARAM_NULLPTR, i < 3 ? in_names[i] : out_names[i - 3], "null tensor");
        break;
      }
      case 10: {  // null storage
        const int i = in.ConsumeIntegralInRange<int>(0, 5);
        Tensor* x = i < 3 ? ins[i] : outs[i - 3];
        if (x->Numel() == 0) break;
        x->buf.reset();
        e.Refuse(ACLNN_ERR_PARAM_NULLPTR, i < 3 ? in_names[i] : out_names[i - 3], "null storage");
        break;
      }
      case 11: {  // a huge dim (stride 0 keeps the storage small)
        Tensor* x = in.ConsumeBool() ? &t.q : &t.k;
        const size_t dim = in.ConsumeIntegralInRange<size_t>(0, x->shape.size() - 1);
        x->shape[dim] = HugeDim(in);
        x->strides[dim] = 0;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "", "huge dim");
        break;
      }
      case 12: {  // an output aliasing an input
        const int i = in.ConsumeIntegralInRange<int>(0, 2);
        Tensor* o = outs[i];
        Tensor* src = ins[in.ConsumeIntegralInRange<int>(0, 2)];
        if (o->Numel() == 0 || src->Numel() == 0 || o->dtype != src->dtype || src->buf == nullptr ||
            o->storage_elems > src->storage_elems) {
          break;
        }
        o->buf = src->buf;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, out_names[i], "output aliases an input");
        break;
      }
      case 13: {  // two outputs at one address (interleaved outputs are allowed)
        Tensor* a = outs[0];
        Tensor* b = outs[1];
        if (a->Numel() == 0 || b->Numel() == 0 || a->dtype != b->dtype || a->buf == nullptr ||
            a->offset + (b->storage_elems - b->offset) > a->storage_elems) {
          break;
        }
        b->buf = a->buf;
        b->storage_elems = a->storage_elems;
        b->offset = a->offset;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, out_names[1], "outputs at one address");
        break;
      }
      case 14: {  // an output writing one location twice
        const int i = in.ConsumeIntegralInRange<int>(0, 2);
        if (MakeSelfOverlapping(outs[i])) {
          e.Refuse(ACLNN_ERR_PARAM_INVALID, out_names[i], "self-overlapping output");
        }
        break;
      }
      case 15: {  // key or value of another dtype
        Tensor* x = in.ConsumeBool() ? &t.k : &t.v;
        const aclDataType dt = p.dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT;
        std::vector<int64_t> s = x->shape;
        Make(x, s, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "dtype", "mixed dtypes");
        break;
      }
      case 16: {  // an output of another dtype
        const int i = in.ConsumeIntegralInRange<int>(0, 2);
        const aclDataType want = !backward && i < 2 ? ACL_FLOAT : p.dt;
        const aclDataType dt = want == ACL_FLOAT ? ACL_BF16 : ACL_FLOAT;
        std::vector<int64_t> s = outs[i]->shape;
        Make(outs[i], s, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, out_names[i], "output dtype");
        break;
      }
      case 17: {  // an output or statistic of another shape
        Tensor* x = backward ? (in.ConsumeBool() ? &t.smax : &t.dq)
                             : outs[in.ConsumeIntegralInRange<int>(0, 2)];
        std::vector<int64_t> s = x->shape;
        s[in.ConsumeIntegralInRange<size_t>(0, s.size() - 1)] += 1;
        Make(x, s, x->dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "shape", "output shape");
        break;
      }
      case 18:
        p.sparse = in.PickValueInArray<int64_t>({5, 6, 7, 8, -1, INT64_MAX, INT64_MIN});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "sparseMode", "sparseMode");
        break;
      case 19:
        p.inner = in.PickValueInArray<int64_t>({3, -1, INT64_MAX, INT64_MIN});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "innerPrecise", "innerPrecise");
        break;
      case 20: {  // pre/next tokens at the extremes
        p.pre = in.PickValueInArray<int64_t>({INT64_MAX, INT64_MIN, -5, 0, 2147483647});
        p.next = in.PickValueInArray<int64_t>({INT64_MAX, INT64_MIN, -5, 0, 2147483647});
        const __int128 sum = static_cast<__int128>(p.pre) + p.next;
        if (p.mask_form > 0 && (p.sparse == 0 || p.sparse == 4) && sum < 0) {
          e.Refuse(ACLNN_ERR_PARAM_INVALID, "preTokens", "pre + next < 0");
        } else {
          e.Neutral("pre/next extremes", true);
        }
        break;
      }
      case 21:
        pse = true;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, backward ? "pseShiftOptional" : "realShiftOptional",
                 "pse given");
        break;
      case 22:
        prefix = true;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "prefixOptional", "prefix given");
        break;
      case 23:
        drop = in.ConsumeBool();
        padding = !drop;
        e.Neutral("dropMask/paddingMask given", true);
        break;
      case 24:
        outp.PickNull(in, &e);
        break;
      case 25: {  // a query dtype without a float
        const aclDataType dt = BadType(in);
        std::vector<int64_t> s = t.q.shape;
        Make(&t.q, s, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "query", "query dtype");
        break;
      }
      case 26: {  // more dims than any layout
        std::vector<int64_t> s = t.q.shape;
        s.insert(s.begin(), in.ConsumeIntegralInRange<size_t>(1, 6), 1);
        Make(&t.q, s, t.q.dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "query", "query rank");
        break;
      }
      case 27: {  // a zero dim somewhere in q/k/v (consistently where it can be)
        const int which = in.ConsumeIntegralInRange<int>(0, 2);
        if (which == 0) {  // B = 0 everywhere
          for (Tensor* x : {&t.q, &t.k, &t.v, &t.out, &t.dy, &t.dq, &t.dk, &t.dv}) {
            if (!x->shape.empty()) x->shape[p.layout == 3 ? 1 : 0] = 0;
          }
          t.smax.shape[0] = t.ssum.shape[0] = 0;
          p.b = 0;
          if (p.mask_form == 2 || p.mask_form == 4) t.mask.shape[0] = 0;
          e.Neutral("B = 0", true);
        } else {
          Tensor* x = which == 1 ? &t.k : &t.q;
          x->shape.back() = 0;
          e.Neutral("a zero D/H", false);
        }
        break;
      }
      default:
        break;
    }
  }
  g_case = std::string(backward ? "FAGrad" : "FA") + " layout " +
           (p.null_layout ? "(null)" : p.layout_text) + " b" + std::to_string(p.b) + " nq" +
           std::to_string(p.nq) + " nkv" + std::to_string(p.nkv) + " sq" + std::to_string(p.sq) +
           " skv" + std::to_string(p.skv) + " d" + std::to_string(p.d) + " dv" +
           std::to_string(p.dv) + " dt" + std::to_string(p.dt) + " mask" +
           std::to_string(p.mask_form) + " sparse" + std::to_string(p.sparse) + " pre" +
           std::to_string(p.pre) + " next" + std::to_string(p.next) + " heads" +
           std::to_string(p.head_num) + " q" + Dims(t.q.shape) + Dims(t.q.strides) + " k" +
           Dims(t.k.shape) + " v" + Dims(t.v.shape) + " defects: " + e.what;

  Rng rng{in.ConsumeIntegral<uint64_t>()};
  for (Tensor* x : {&t.q, &t.k, &t.v, &t.dy}) {
    if (x == &t.dy && !backward) continue;
    Create(x);
    Fill(x, rng);
  }
  if (p.mask_form > 0) {
    Create(&t.mask);
    if (p.mask_form != 5 && t.mask.buf != nullptr && t.mask.Numel() <= kMaxTouched) {
      ForEach(t.mask.shape, [&](const std::vector<int64_t>& idx) {
        t.mask.Set(idx, rng.Next() % 4 == 0 ? 1 : 0);
      });
    }
  }
  Create(&t.smax);
  Create(&t.ssum);
  Create(&t.out);
  if (backward) {
    Create(&t.dq);
    Create(&t.dk);
    Create(&t.dv);
  }
  // The reference, on what the tensors hold (BNSD doubles).
  aicore::ref::AttentionProblem rp;
  rp.b = p.b;
  rp.nq = p.nq;
  rp.nkv = p.nkv;
  rp.sq = p.sq;
  rp.skv = p.skv;
  rp.d = p.d;
  rp.dv = p.dv;
  rp.scale = p.scale;
  rp.has_mask = p.mask_form > 0;
  rp.sparse_mode = static_cast<int>(p.sparse);
  rp.pre = std::clamp<int64_t>(p.pre, -(int64_t{1} << 40), int64_t{1} << 40);
  rp.next = std::clamp<int64_t>(p.next, -(int64_t{1} << 40), int64_t{1} << 40);
  const bool small = p.b * p.nq * std::max(p.sq, p.skv) * std::max<int64_t>(p.d, 1) <= 4096;
  bool have_all = true;
  for (Tensor* x : {&t.q, &t.k, &t.v, &t.smax, &t.ssum, &t.out}) have_all &= x->buf != nullptr;
  if (backward) {
    for (Tensor* x : {&t.dy, &t.dq, &t.dk, &t.dv}) have_all &= x->buf != nullptr;
  }
  const bool run = small && have_all && (p.mask_form == 0 || t.mask.buf != nullptr);
  const bool compare = run && e.compare && e.what.find("alias") == std::string::npos;
  auto bnsd = [&](const Tensor& x, int64_t n, int64_t s, int64_t d) {
    std::vector<double> v;
    v.reserve(p.b * n * s * d);
    for (int64_t bi = 0; bi < p.b; ++bi)
      for (int64_t ni = 0; ni < n; ++ni)
        for (int64_t si = 0; si < s; ++si)
          for (int64_t xi = 0; xi < d; ++xi)
            v.push_back(x.Get(LayoutIndex(p.layout, bi, ni, si, xi, d)));
    return v;
  };
  std::vector<double> qv, kv, vv, dyv;
  aicore::ref::AttentionForward fwd;
  if (compare) {
    qv = bnsd(t.q, p.nq, p.sq, p.d);
    kv = bnsd(t.k, p.nkv, p.skv, p.d);
    vv = bnsd(t.v, p.nkv, p.skv, p.dv);
    if (p.mask_form > 0 && p.mask_form < 5) {
      const std::vector<int64_t>& ms = t.mask.shape;
      rp.mb = ms.size() == 4 ? ms[0] : 1;
      rp.mn = ms.size() == 4 ? ms[1] : 1;
      for (int64_t bi = 0; bi < rp.mb; ++bi)
        for (int64_t ni = 0; ni < rp.mn; ++ni)
          for (int64_t i = 0; i < p.sq; ++i)
            for (int64_t j = 0; j < p.skv; ++j) {
              rp.mask.push_back(static_cast<uint8_t>(ms.size() == 4 ? t.mask.Get({bi, ni, i, j})
                                                                    : t.mask.Get({i, j})));
            }
    }
    fwd = aicore::ref::AttentionForwardRef(rp, qv, kv, vv);
    if (backward) {
      dyv = bnsd(t.dy, p.nq, p.sq, p.dv);
      // The forward's results as the backward's inputs.
      for (int64_t bi = 0; bi < p.b; ++bi)
        for (int64_t ni = 0; ni < p.nq; ++ni)
          for (int64_t si = 0; si < p.sq; ++si) {
            const int64_t row = (bi * p.nq + ni) * p.sq + si;
            for (int64_t x = 0; x < 8; ++x) {
              t.smax.Set({bi, ni, si, x}, fwd.max[row]);
              t.ssum.Set({bi, ni, si, x}, fwd.sum[row]);
            }
            for (int64_t x = 0; x < p.dv; ++x) {
              t.out.Set(LayoutIndex(p.layout, bi, ni, si, x, p.dv), fwd.out[row * p.dv + x]);
            }
          }
    }
  } else if (backward) {
    Fill(&t.smax, rng);
    Fill(&t.ssum, rng);
    Fill(&t.out, rng);
  }

  // Stand-ins for the optional inputs aicore refuses or ignores.
  Tensor extra;
  Make(&extra, {1}, ACL_UINT8, Layout{});
  Create(&extra);
  const int64_t prefix_values[] = {1};
  aclIntArray* prefix_array = prefix ? aclCreateIntArray(prefix_values, 1) : nullptr;
  std::string layout = p.layout_text;
  char* layout_arg = p.null_layout ? nullptr : layout.data();

  if (Verbose()) std::fprintf(stderr, "case: %s\n", g_case.c_str());
  aicore::detail::SetRecentErrMsg("");
  aclnnStatus s;
  const char* api;
  if (!backward) {
    api = "aclnnFlashAttentionScore";
    s = aclnnFlashAttentionScoreGetWorkspaceSize(
        t.q.arg(), t.k.arg(), t.v.arg(), pse ? extra.t : nullptr, drop ? extra.t : nullptr,
        padding ? extra.t : nullptr, p.mask_form > 0 ? t.mask.arg() : nullptr, prefix_array,
        p.scale, p.keep, p.pre, p.next, p.head_num, layout_arg, p.inner, p.sparse, t.smax.arg(),
        t.ssum.arg(), nullptr, t.out.arg(), outp.ws_arg(), outp.exec_arg());
  } else {
    api = "aclnnFlashAttentionScoreGrad";
    s = aclnnFlashAttentionScoreGradGetWorkspaceSize(
        t.q.arg(), t.k.arg(), t.v.arg(), t.dy.arg(), pse ? extra.t : nullptr,
        drop ? extra.t : nullptr, padding ? extra.t : nullptr,
        p.mask_form > 0 ? t.mask.arg() : nullptr, t.smax.arg(), t.ssum.arg(), nullptr, t.out.arg(),
        prefix_array, p.scale, p.keep, p.pre, p.next, p.head_num, layout_arg, p.inner, p.sparse,
        t.dq.arg(), t.dk.arg(), t.dv.arg(), nullptr, outp.ws_arg(), outp.exec_arg());
  }
  aclDestroyIntArray(prefix_array);
  if (!CheckPhase1(api, s, outp.exec, e)) return;
  if (!Phase2(run, outp.ws, outp.exec,
              backward ? aclnnFlashAttentionScoreGrad : aclnnFlashAttentionScore) ||
      !compare) {
    return;
  }
  const double rt = Rtol(p.dt);
  if (!backward) {
    for (int64_t bi = 0; bi < p.b; ++bi)
      for (int64_t ni = 0; ni < p.nq; ++ni)
        for (int64_t si = 0; si < p.sq; ++si) {
          const int64_t row = (bi * p.nq + ni) * p.sq + si;
          for (int64_t x = 0; x < p.dv; ++x) {
            const double want = fwd.out[row * p.dv + x];
            Near(t.out.Get(LayoutIndex(p.layout, bi, ni, si, x, p.dv)), want,
                 rt * (std::fabs(want) + 0.5), "attentionOut");
          }
          for (int64_t x = 0; x < 8; ++x) {
            Near(t.smax.Get({bi, ni, si, x}), fwd.max[row],
                 1e-3 * (std::fabs(fwd.max[row]) + 1) + rt * 8, "softmaxMax");
            Near(t.ssum.Get({bi, ni, si, x}), fwd.sum[row], 1e-3 * fwd.sum[row] + rt * 8 * p.skv,
                 "softmaxSum");
          }
        }
    return;
  }
  const aicore::ref::AttentionGrads g = aicore::ref::AttentionBackwardRef(rp, qv, kv, vv, dyv);
  auto cmp = [&](const Tensor& x, const std::vector<double>& want, int64_t n, int64_t s2, int64_t d,
                 const char* name) {
    double scale_of = 0;
    for (double w : want) scale_of = std::max(scale_of, std::fabs(w));
    size_t i = 0;
    for (int64_t bi = 0; bi < p.b; ++bi)
      for (int64_t ni = 0; ni < n; ++ni)
        for (int64_t si = 0; si < s2; ++si)
          for (int64_t xi = 0; xi < d; ++xi, ++i) {
            Near(x.Get(LayoutIndex(p.layout, bi, ni, si, xi, d)), want[i],
                 4 * rt * (std::fabs(want[i]) + scale_of + 0.5), name);
          }
  };
  cmp(t.dq, g.dq, p.nq, p.sq, p.d, "dq");
  cmp(t.dk, g.dk, p.nkv, p.skv, p.d, "dk");
  cmp(t.dv, g.dv, p.nkv, p.skv, p.dv, "dv");
}

// ---------------------------------------------------------------------------------------------
// Matmul with epilogue, Addmm.

// A batch shape of rank 0..2 and a broadcast partner (1s where the input picks).
void PickBatch(FuzzedDataProvider& in, std::vector<int64_t>* a, std::vector<int64_t>* b) {
  const size_t r = in.ConsumeIntegralInRange<size_t>(0, 2);
  for (size_t i = 0; i < r; ++i) {
    const int64_t d = in.ConsumeIntegralInRange<int64_t>(1, 2);
    const int which = in.ConsumeIntegralInRange<int>(0, 2);
    a->push_back(which == 1 ? 1 : d);
    b->push_back(which == 2 ? 1 : d);
  }
  if (in.ConsumeBool() && !b->empty()) b->erase(b->begin());  // fewer batch dims broadcast too
}

// A shape broadcasting to (batch.., m, n): a suffix of it with some dims 1.
std::vector<int64_t> AddendShape(FuzzedDataProvider& in, const std::vector<int64_t>& out) {
  const size_t keep = in.ConsumeIntegralInRange<size_t>(1, out.size());
  std::vector<int64_t> s(out.end() - keep, out.end());
  for (int64_t& d : s)
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) d = 1;
  return s;
}

// Reads `t` broadcast to `to` as dense row-major doubles.
std::vector<double> ReadBroadcast(const Tensor& t, const std::vector<int64_t>& to) {
  std::vector<double> v;
  const size_t lead = to.size() - t.shape.size();
  ForEach(to, [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> j(idx.begin() + lead, idx.end());
    for (size_t i = 0; i < j.size(); ++i)
      if (t.shape[i] == 1) j[i] = 0;
    v.push_back(t.Get(j));
  });
  return v;
}

void Epilogue(FuzzedDataProvider& in) {
  std::vector<int64_t> ba, bb;
  PickBatch(in, &ba, &bb);
  const int64_t m = in.ConsumeIntegralInRange<int64_t>(0, 9);
  const int64_t n = in.ConsumeIntegralInRange<int64_t>(0, 9);
  const int64_t k = in.ConsumeIntegralInRange<int64_t>(0, 9);
  const aclDataType dt = FloatType(in);
  const aclDataType out_dt = in.ConsumeBool() ? dt : ACL_FLOAT;
  std::vector<int64_t> as = ba, bs = bb, os;
  as.insert(as.end(), {m, k});
  bs.insert(bs.end(), {k, n});
  {
    std::vector<int64_t> x = ba, y = bb;
    if (x.size() < y.size()) std::swap(x, y);
    os = x;
    for (size_t i = 0; i < y.size(); ++i) {
      int64_t& d = os[x.size() - y.size() + i];
      d = std::max(d, y[i]);
    }
    os.insert(os.end(), {m, n});
  }
  const bool has_bias = in.ConsumeBool(), has_res = in.ConsumeBool();
  int64_t act = in.ConsumeIntegralInRange<int64_t>(0, 4);
  double alpha = in.PickValueInArray({1.0, 0.5, -2.0, 0.0});
  double beta = in.PickValueInArray({1.0, 0.5, -1.0, 0.0});
  Tensor a, b, bias, res, out;
  Make(&a, as, dt, PickLayout(in));
  Make(&b, bs, dt, PickLayout(in));
  if (has_bias) Make(&bias, AddendShape(in, os), FloatType(in), PickLayout(in));
  if (has_res) Make(&res, AddendShape(in, os), FloatType(in), PickLayout(in));
  Make(&out, os, out_dt, PickLayout(in));
  Expect e;
  bool res_is_out = false, bias_is_out = false;
  OutPointers outp;
  const int defects =
      in.ConsumeIntegralInRange<int>(0, 2) == 0 ? 0 : in.ConsumeIntegralInRange<int>(1, 2);
  int last_kind = -1;
  for (int i = 0; i < defects; ++i) {
    const int kind = in.ConsumeIntegralInRange<int>(0, 17);
    if (kind == last_kind) continue;  // once each
    last_kind = kind;
    switch (kind) {
      case 0: {  // K mismatch
        std::vector<int64_t> s = b.shape;
        s[s.size() - 2] += 1;
        Make(&b, s, b.dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "do not multiply", "K mismatch");
        break;
      }
      case 1: {  // batch dims that do not broadcast
        if (a.shape.size() < 2 || b.shape.size() < 2) break;
        const size_t ra = a.shape.size(), rb = b.shape.size();
        const std::vector<int64_t> s = {3, a.shape[ra - 2], a.shape[ra - 1]};
        const std::vector<int64_t> t2 = {2, b.shape[rb - 2], b.shape[rb - 1]};
        Make(&a, s, a.dtype, Layout{});
        Make(&b, t2, b.dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "broadcast", "batch mismatch");
        break;
      }
      case 2: {  // out of the wrong shape
        std::vector<int64_t> s = out.shape;
        s.back() += 1;
        Make(&out, s, out.dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "out", "out shape");
        break;
      }
      case 3: {  // bias or residual that does not broadcast
        Tensor* x = in.ConsumeBool() ? &bias : &res;
        if (x == &bias ? !has_bias : !has_res) break;
        std::vector<int64_t> s = x->shape;
        s.back() = os.back() + 2;
        Make(x, s, x->dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, x == &bias ? "biasOptional" : "residual", "addend shape");
        break;
      }
      case 4:
        act = in.PickValueInArray<int64_t>({-1, 5, INT64_MAX, INT64_MIN});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "activation", "activation");
        break;
      case 5: {  // a and b of different dtypes
        const aclDataType t2 = dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT;
        std::vector<int64_t> s = b.shape;
        Make(&b, s, t2, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "same dtype", "a/b dtypes");
        break;
      }
      case 6: {  // out in neither a's dtype nor FLOAT
        const aclDataType t2 = dt == ACL_FLOAT16 ? ACL_BF16 : ACL_FLOAT16;
        std::vector<int64_t> s = out.shape;
        Make(&out, s, t2, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "out", "out dtype");
        break;
      }
      case 7: {  // a of rank 1 or 7
        std::vector<int64_t> s =
            in.ConsumeBool() ? std::vector<int64_t>{k} : std::vector<int64_t>{1, 1, 1, 1, 1, m, k};
        Make(&a, s, a.dtype, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "a has", "a rank");
        break;
      }
      case 8: {  // a null tensor
        const int w = in.ConsumeIntegralInRange<int>(0, 2);
        (w == 0 ? a : w == 1 ? b : out).pass_null = true;
        e.Refuse(ACLNN_ERR_PARAM_NULLPTR, w == 0 ? "a" : w == 1 ? "b" : "out", "null tensor");
        break;
      }
      case 9: {  // null storage
        Tensor& x = in.ConsumeBool() ? a : out;
        if (x.Numel() == 0) break;
        x.buf.reset();
        e.Refuse(ACLNN_ERR_PARAM_NULLPTR, &x == &a ? "a" : "out", "null storage");
        break;
      }
      case 10: {  // out aliasing a or b
        Tensor& src = in.ConsumeBool() ? a : b;
        if (out.Numel() == 0 || src.Numel() == 0 || src.buf == nullptr || src.dtype != out.dtype ||
            out.storage_elems > src.storage_elems) {
          break;
        }
        out.buf = src.buf;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "out", "out aliases an input");
        break;
      }
      case 11:  // out writing one location twice
        if (MakeSelfOverlapping(&out)) {
          e.Refuse(ACLNN_ERR_PARAM_INVALID, "out", "self-overlapping out");
        }
        break;
      case 12: {  // residual (or bias) as out itself: an in-place epilogue
        Tensor* x = in.ConsumeBool() ? &res : &bias;
        if ((x == &res ? !has_res : !has_bias) || out.buf == nullptr) break;
        std::vector<int64_t> s = out.shape;
        Make(x, s, out.dtype, Layout{});
        x->strides = out.strides;
        x->offset = out.offset;
        x->storage_elems = out.storage_elems;
        x->buf = out.buf;
        (x == &res ? res_is_out : bias_is_out) = true;
        e.Neutral(x == &res ? "residual is out" : "bias is out", true);
        break;
      }
      case 13: {  // a huge dim
        std::vector<int64_t> s = a.shape;
        const size_t d = in.ConsumeIntegralInRange<size_t>(0, s.size() - 1);
        s[d] = HugeDim(in) << in.ConsumeIntegralInRange<int>(0, 20);
        a.shape = s;
        a.strides[d] = 0;
        e.Neutral("huge dim", false);
        break;
      }
      case 14:
        alpha = in.PickValueInArray({std::nan(""), HUGE_VAL, 1e300});
        e.Neutral("alpha extreme", false);
        break;
      case 15:
        outp.PickNull(in, &e);
        break;
      case 16: {  // a dtype without a float
        std::vector<int64_t> s = a.shape;
        Make(&a, s, BadType(in), Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "a has dtype", "a dtype");
        break;
      }
      default: {  // a zero dim in the batch
        if (ba.empty()) break;
        a.shape[0] = 0;
        e.Neutral("zero batch", false);
        break;
      }
    }
  }
  g_case = "Epilogue a" + Dims(a.shape) + Dims(a.strides) + " dt" + std::to_string(a.dtype) + " b" +
           Dims(b.shape) + Dims(b.strides) + " dt" + std::to_string(b.dtype) + " out" +
           Dims(out.shape) + Dims(out.strides) + " dt" + std::to_string(out.dtype) + " bias" +
           (has_bias ? Dims(bias.shape) + Dims(bias.strides) : "-") + " res" +
           (has_res ? Dims(res.shape) + Dims(res.strides) : "-") + " act" + std::to_string(act) +
           " alpha" + std::to_string(alpha) + " beta" + std::to_string(beta) +
           " defects: " + e.what;
  Rng rng{in.ConsumeIntegral<uint64_t>()};
  Create(&a);
  Create(&b);
  Create(&out);
  Fill(&a, rng);
  Fill(&b, rng);
  if (has_bias) {
    Create(&bias);
    Fill(&bias, rng);
  }
  if (has_res) {
    Create(&res);
    Fill(&res, rng);
  }
  bool run = a.buf && b.buf && out.buf && (!has_bias || bias.buf) && (!has_res || res.buf) &&
             a.Numel() <= 4096 && b.Numel() <= 4096 && out.Numel() <= 4096;
  const bool compare = run && e.compare && out.shape == os;
  std::vector<double> av, bv, biasv, resv;
  if (compare) {
    ForEach(a.shape, [&](const std::vector<int64_t>& i) { av.push_back(a.Get(i)); });
    ForEach(b.shape, [&](const std::vector<int64_t>& i) { bv.push_back(b.Get(i)); });
    if (has_bias) biasv = ReadBroadcast(bias, os);
    if (has_res) resv = ReadBroadcast(res, os);
  }
  if (Verbose()) std::fprintf(stderr, "case: %s\n", g_case.c_str());
  aicore::detail::SetRecentErrMsg("");
  const aclnnStatus s =
      aclnnAicoreMatmulEpilogueGetWorkspaceSize(a.arg(), b.arg(), has_bias ? bias.arg() : nullptr,
                                                has_res ? res.arg() : nullptr, alpha, beta, act,
                                                out.t == nullptr ? nullptr
                                                : out.pass_null  ? nullptr
                                                                 : out.t,
                                                outp.ws_arg(), outp.exec_arg());
  if (!CheckPhase1("aclnnAicoreMatmulEpilogue", s, outp.exec, e)) return;
  if (!Phase2(run, outp.ws, outp.exec, aclnnAicoreMatmulEpilogue) || !compare) return;
  const auto r = aicore::ref::MatmulEpilogueRef(av, a.shape, bv, b.shape, biasv, resv, alpha, beta,
                                                static_cast<aicore::ref::EpilogueAct>(act));
  Check(r.shape == os, "the reference's shape");
  size_t i = 0;
  const double rt =
      out_dt == ACL_FLOAT && dt == ACL_FLOAT ? 0 : Rtol(out_dt == ACL_FLOAT ? dt : out_dt);
  ForEach(os, [&](const std::vector<int64_t>& idx) {
    const double want = r.out[i];
    Near(out.Get(idx), want, 2 * r.tol[i] + rt * (std::fabs(want) + 1e-2), "out");
    ++i;
  });
  (void)res_is_out;
  (void)bias_is_out;
}

// A scalar argument of Addmm.
struct Scalar {
  aclScalar* s = nullptr;
  double value = 1;
  ~Scalar() { aclDestroyScalar(s); }
};

void MakeScalar(FuzzedDataProvider& in, Scalar* sc) {
  sc->value = in.PickValueInArray({1.0, 0.5, -1.0, 0.0, 2.0});
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      float f = static_cast<float>(sc->value);
      sc->s = aclCreateScalar(&f, ACL_FLOAT);
      break;
    }
    case 1: {
      double d = sc->value;
      sc->s = aclCreateScalar(&d, ACL_DOUBLE);
      break;
    }
    case 2: {
      half h(static_cast<float>(sc->value));
      sc->s = aclCreateScalar(&h, ACL_FLOAT16);
      break;
    }
    default: {
      sc->value = std::trunc(sc->value);
      int32_t v = static_cast<int32_t>(sc->value);
      sc->s = aclCreateScalar(&v, ACL_INT32);
      break;
    }
  }
}

void Addmm(FuzzedDataProvider& in) {
  const int64_t m = in.ConsumeIntegralInRange<int64_t>(0, 9);
  const int64_t n = in.ConsumeIntegralInRange<int64_t>(0, 9);
  const int64_t k = in.ConsumeIntegralInRange<int64_t>(0, 9);
  const aclDataType dt = FloatType(in);
  const bool inplace = in.ConsumeIntegralInRange<int>(0, 3) == 0;
  std::vector<int64_t> self_shape;
  if (inplace) {
    self_shape = {m, n};
  } else {
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
      case 0:
        self_shape = {n};
        break;
      case 1:
        self_shape = {1, n};
        break;
      case 2:
        self_shape = {m, 1};
        break;
      case 3:
        self_shape = {1};
        break;
      default:
        self_shape = {m, n};
        break;
    }
  }
  int64_t cmt = dt == ACL_FLOAT ? in.PickValueInArray<int64_t>({0, 4})
                                : in.PickValueInArray<int64_t>({0, 1, 4});
  Tensor self, mat1, mat2, out;
  Make(&self, self_shape, dt, PickLayout(in));
  Make(&mat1, {m, k}, dt, PickLayout(in));
  Make(&mat2, {k, n}, dt, PickLayout(in));
  if (!inplace) Make(&out, {m, n}, dt, PickLayout(in));
  Scalar beta, alpha;
  MakeScalar(in, &beta);
  MakeScalar(in, &alpha);
  Expect e;
  bool null_beta = false;
  OutPointers outp;
  const int defects = in.ConsumeIntegralInRange<int>(0, 2) == 0 ? 0 : 1;
  for (int i = 0; i < defects; ++i) {
    switch (in.ConsumeIntegralInRange<int>(0, 11)) {
      case 0: {
        Make(&mat2, {k + 1, n}, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "do not multiply", "K mismatch");
        break;
      }
      case 1: {
        std::vector<int64_t> s = self.shape;
        s.back() = n + 2;  // neither n nor 1
        Make(&self, s, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "self", "self shape");
        break;
      }
      case 2:
        if (inplace) break;
        Make(&out, {m + 1, n}, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "out", "out shape");
        break;
      case 3:
        Make(&mat1, {1, m, k}, dt, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "mat1", "mat1 rank");
        break;
      case 4: {
        uint16_t bits = 0x3f80;
        aclDestroyScalar(beta.s);
        beta.s = aclCreateScalar(&bits, in.ConsumeBool() ? ACL_BF16 : ACL_BOOL);
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "beta", "beta dtype");
        break;
      }
      case 5:
        null_beta = true;
        e.Refuse(ACLNN_ERR_PARAM_NULLPTR, "beta", "null beta");
        break;
      case 6:
        cmt = in.PickValueInArray<int64_t>({-2, 5, 127, -128});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "cubeMathType", "cubeMathType");
        break;
      case 7: {
        if (inplace || out.Numel() == 0 || mat1.Numel() == 0 || mat1.buf == nullptr ||
            out.storage_elems > mat1.storage_elems) {
          break;
        }
        out.buf = mat1.buf;
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "out", "out aliases mat1");
        break;
      }
      case 8: {
        Tensor& o = inplace ? self : out;
        if (MakeSelfOverlapping(&o)) {
          e.Refuse(ACLNN_ERR_PARAM_INVALID, inplace ? "self" : "out", "self-overlapping out");
        }
        break;
      }
      case 9: {
        const int w = in.ConsumeIntegralInRange<int>(0, 2);
        (w == 0 ? self : w == 1 ? mat1 : mat2).pass_null = true;
        e.Refuse(ACLNN_ERR_PARAM_NULLPTR,
                 w == 0   ? "self"
                 : w == 1 ? "mat1"
                          : "mat2",
                 "null tensor");
        break;
      }
      case 10:
        outp.PickNull(in, &e);
        break;
      default: {  // mat2 BFLOAT16 against FLOAT16 (or FLOAT)
        const aclDataType t2 = dt == ACL_BF16 ? ACL_FLOAT16 : ACL_BF16;
        Make(&mat2, {k, n}, t2, Layout{});
        e.Refuse(ACLNN_ERR_PARAM_INVALID, "BFLOAT16", "bf16 mix");
        break;
      }
    }
  }
  g_case = std::string(inplace ? "InplaceAddmm" : "Addmm") + " self" + Dims(self.shape) +
           Dims(self.strides) + " mat1" + Dims(mat1.shape) + Dims(mat1.strides) + " mat2" +
           Dims(mat2.shape) + Dims(mat2.strides) + " dt" + std::to_string(dt) + " cmt" +
           std::to_string(cmt) + " beta" + std::to_string(beta.value) + " alpha" +
           std::to_string(alpha.value) + " defects: " + e.what;
  Rng rng{in.ConsumeIntegral<uint64_t>()};
  Create(&self);
  Create(&mat1);
  Create(&mat2);
  Fill(&self, rng);
  Fill(&mat1, rng);
  Fill(&mat2, rng);
  if (!inplace) Create(&out);
  Tensor& o = inplace ? self : out;
  const bool run = self.buf && mat1.buf && mat2.buf && o.buf && o.Numel() <= 4096;
  const bool compare = run && e.compare;
  std::vector<double> sv, want;
  if (compare) {
    sv = ReadBroadcast(self, {m, n});
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t x = 0; x < k; ++x) acc += mat1.Get({i, x}) * mat2.Get({x, j});
        want.push_back(beta.value * sv[i * n + j] + alpha.value * acc);
      }
  }
  if (Verbose()) std::fprintf(stderr, "case: %s\n", g_case.c_str());
  aicore::detail::SetRecentErrMsg("");
  aclnnStatus s;
  const char* api = inplace ? "aclnnInplaceAddmm" : "aclnnAddmm";
  if (inplace) {
    s = aclnnInplaceAddmmGetWorkspaceSize(self.arg(), mat1.arg(), mat2.arg(),
                                          null_beta ? nullptr : beta.s, alpha.s,
                                          static_cast<int8_t>(cmt), outp.ws_arg(), outp.exec_arg());
  } else {
    s = aclnnAddmmGetWorkspaceSize(self.arg(), mat1.arg(), mat2.arg(), null_beta ? nullptr : beta.s,
                                   alpha.s, out.t, static_cast<int8_t>(cmt), outp.ws_arg(),
                                   outp.exec_arg());
  }
  if (!CheckPhase1(api, s, outp.exec, e)) return;
  if (!Phase2(run, outp.ws, outp.exec, inplace ? aclnnInplaceAddmm : aclnnAddmm) || !compare)
    return;
  const double rt = Rtol(dt);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double w = want[i * n + j];
      Near(o.Get({i, j}), w, rt * (std::fabs(w) + 1.0 + static_cast<double>(k) / 8), "out");
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Two worker threads and errors only, unless the environment says otherwise.
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"AICORE_THREADS", "2"},
                                    {"AICORE_LOG_LEVEL", "error"}}) {
    setenv(name, value, 0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      Attn(in, false);
      break;
    case 1:
      Attn(in, true);
      break;
    case 2:
      Epilogue(in);
      break;
    default:
      Addmm(in);
      break;
  }
  return 0;
}
