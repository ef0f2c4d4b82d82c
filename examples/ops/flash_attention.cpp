// flash_attention: a host program written for CANN's single-operator API, built unchanged
// against aicore. It runs causal grouped-query attention (8 query heads sharing 2 key/value
// heads, layout BSH, fp16) with aclnnFlashAttentionScore, then its gradients with
// aclnnFlashAttentionScoreGrad from the saved softmaxMax/softmaxSum, and checks the output and
// dV against double precision. The same forward is then called through aicore's C++ API
// (aicore::ops::FlashAttentionForward) on the same memory.
// Usage: flash_attention [batch seq head_dim] (default 2 200 64).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aicore/ops/ops.h"

#define CHECK_ACL(expr)                                                                         \
  do {                                                                                          \
    const auto _ret = (expr);                                                                   \
    if (_ret != 0) {                                                                            \
      std::printf("%s failed: %d (%s)\n", #expr, static_cast<int>(_ret), aclGetRecentErrMsg()); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

namespace {

constexpr int64_t kHeads = 8, kKvHeads = 2;

// A contiguous ND tensor over `device` holding `elems` elements of `dt`.
aclTensor* Tensor(const std::vector<int64_t>& shape, aclDataType dt, int64_t elems, void* device) {
  return aclCreateTensor(shape.data(), shape.size(), dt, nullptr, 0, ACL_FORMAT_ND, &elems, 1,
                         device);
}

// Device memory of `n` fp16 values from `host`.
void* Upload(const std::vector<float>& host) {
  void* d = nullptr;
  aclrtMalloc(&d, host.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST);
  std::vector<aclFloat16> h(host.size());
  for (size_t i = 0; i < host.size(); ++i) h[i] = aclFloatToFloat16(host[i]);
  aclrtMemcpy(d, h.size() * 2, h.data(), h.size() * 2, ACL_MEMCPY_HOST_TO_DEVICE);
  return d;
}

std::vector<float> Download(void* d, size_t n) {
  std::vector<aclFloat16> h(n);
  aclrtMemcpy(h.data(), n * 2, d, n * 2, ACL_MEMCPY_DEVICE_TO_HOST);
  std::vector<float> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = aclFloat16ToFloat(h[i]);
  return r;
}

// Phases 1 and 2 of an aclnn op bound into `prepare` / `run`, then a synchronize.
template <typename Prepare, typename Run>
int RunOp(Prepare prepare, Run run, aclrtStream stream) {
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(prepare(&ws_size, &executor));
  void* ws = nullptr;
  if (ws_size > 0) CHECK_ACL(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(run(ws, ws_size, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  if (ws != nullptr) aclrtFree(ws);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t b = argc > 3 ? std::atoll(argv[1]) : 2;
  const int64_t s = argc > 3 ? std::atoll(argv[2]) : 200;
  const int64_t d = argc > 3 ? std::atoll(argv[3]) : 64;
  const int64_t h = kHeads * d, hkv = kKvHeads * d;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  std::vector<float> q(b * s * h), k(b * s * hkv), v(b * s * hkv), dy(b * s * h);
  for (size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.37 * i) * 0.8f;
  for (size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.53 * i) * 0.8f;
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.11 * i + 1) * 0.5f;
  for (size_t i = 0; i < dy.size(); ++i) dy[i] = std::cos(0.07 * i) * 0.5f;
  void *dq_in = Upload(q), *dk_in = Upload(k), *dv_in = Upload(v), *ddy = Upload(dy);
  void *dout = nullptr, *dmax = nullptr, *dsum = nullptr, *dgq = nullptr, *dgk = nullptr,
       *dgv = nullptr, *dmask = nullptr;
  const int64_t stats = b * kHeads * s * 8;
  CHECK_ACL(aclrtMalloc(&dout, q.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dmax, stats * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dsum, stats * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dgq, q.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dgk, k.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dgv, v.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  // sparseMode 3 (causal, aligned bottom-right) takes the compressed 2048 x 2048 mask.
  std::vector<uint8_t> mask(2048 * 2048);
  for (int64_t i = 0; i < 2048; ++i)
    for (int64_t j = 0; j < 2048; ++j) mask[i * 2048 + j] = j > i;
  CHECK_ACL(aclrtMalloc(&dmask, mask.size(), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(dmask, mask.size(), mask.data(), mask.size(), ACL_MEMCPY_HOST_TO_DEVICE));

  aclTensor* tq = Tensor({b, s, h}, ACL_FLOAT16, q.size(), dq_in);
  aclTensor* tk = Tensor({b, s, hkv}, ACL_FLOAT16, k.size(), dk_in);
  aclTensor* tv = Tensor({b, s, hkv}, ACL_FLOAT16, v.size(), dv_in);
  aclTensor* tdy = Tensor({b, s, h}, ACL_FLOAT16, dy.size(), ddy);
  aclTensor* tout = Tensor({b, s, h}, ACL_FLOAT16, q.size(), dout);
  aclTensor* tmax = Tensor({b, kHeads, s, 8}, ACL_FLOAT, stats, dmax);
  aclTensor* tsum = Tensor({b, kHeads, s, 8}, ACL_FLOAT, stats, dsum);
  aclTensor* tmask = Tensor({2048, 2048}, ACL_BOOL, mask.size(), dmask);
  aclTensor* tgq = Tensor({b, s, h}, ACL_FLOAT16, q.size(), dgq);
  aclTensor* tgk = Tensor({b, s, hkv}, ACL_FLOAT16, k.size(), dgk);
  aclTensor* tgv = Tensor({b, s, hkv}, ACL_FLOAT16, v.size(), dgv);
  char layout[] = "BSH";
  if (RunOp(
          [&](uint64_t* ws, aclOpExecutor** e) {
            return aclnnFlashAttentionScoreGetWorkspaceSize(
                tq, tk, tv, nullptr, nullptr, nullptr, tmask, nullptr, scale, 1.0, 2147483647, 0,
                kHeads, layout, 0, 3, tmax, tsum, nullptr, tout, ws, e);
          },
          aclnnFlashAttentionScore, stream) != 0 ||
      RunOp(
          [&](uint64_t* ws, aclOpExecutor** e) {
            return aclnnFlashAttentionScoreGradGetWorkspaceSize(
                tq, tk, tv, tdy, nullptr, nullptr, nullptr, tmask, tmax, tsum, nullptr, tout,
                nullptr, scale, 1.0, 2147483647, 0, kHeads, layout, 0, 3, tgq, tgk, tgv, nullptr,
                ws, e);
          },
          aclnnFlashAttentionScoreGrad, stream) != 0) {
    return 1;
  }
  const std::vector<float> out = Download(dout, q.size()), gv = Download(dgv, v.size());

  // The double reference of out and dV (dV = sum over query heads and rows of P^T dy).
  std::vector<double> want_gv(v.size(), 0.0);
  double out_err = 0, gv_err = 0;
  std::vector<double> p(s);
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t n = 0; n < kHeads; ++n) {
      const int64_t nk = n / (kHeads / kKvHeads);
      for (int64_t i = 0; i < s; ++i) {
        const auto qv = [&](int64_t x) {
          return double(aclFloat16ToFloat(aclFloatToFloat16(q[(bi * s + i) * h + n * d + x])));
        };
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double acc = 0;
          for (int64_t x = 0; x < d; ++x) {
            acc += qv(x) * aclFloat16ToFloat(aclFloatToFloat16(k[(bi * s + j) * hkv + nk * d + x]));
          }
          p[j] = acc * scale;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - mx));
        for (int64_t x = 0; x < d; ++x) {
          double o = 0;
          for (int64_t j = 0; j <= i; ++j) {
            const double vj =
                aclFloat16ToFloat(aclFloatToFloat16(v[(bi * s + j) * hkv + nk * d + x]));
            o += p[j] / sum * vj;
            want_gv[(bi * s + j) * hkv + nk * d + x] +=
                p[j] / sum * aclFloat16ToFloat(aclFloatToFloat16(dy[(bi * s + i) * h + n * d + x]));
          }
          out_err = std::max(out_err, std::fabs(o - out[(bi * s + i) * h + n * d + x]));
        }
      }
    }
  }
  for (size_t i = 0; i < gv.size(); ++i) {
    gv_err = std::max(gv_err, std::fabs(want_gv[i] - gv[i]) / (1 + std::fabs(want_gv[i])));
  }

  // The same forward through the C++ API, written over the aclnn result's memory.
  using aicore::ops::DenseRef;
  aicore::ops::FlashAttentionAttrs attrs;
  attrs.scale = scale;
  attrs.head_num = kHeads;
  attrs.layout = "BSH";
  attrs.sparse_mode = 3;
  attrs.next_tokens = 0;
  const aicore::ops::TensorRef mask_ref = DenseRef(dmask, aicore::DType::kU8, {2048, 2048});
  const aicore::Status st = aicore::ops::FlashAttentionForward(
      DenseRef(dq_in, aicore::DType::kF16, {b, s, h}),
      DenseRef(dk_in, aicore::DType::kF16, {b, s, hkv}),
      DenseRef(dv_in, aicore::DType::kF16, {b, s, hkv}), &mask_ref, attrs,
      DenseRef(dmax, aicore::DType::kF32, {b, kHeads, s, 8}),
      DenseRef(dsum, aicore::DType::kF32, {b, kHeads, s, 8}),
      DenseRef(dout, aicore::DType::kF16, {b, s, h}), stream);
  CHECK_ACL(aclrtSynchronizeStream(stream));
  const std::vector<float> out2 = Download(dout, q.size());
  const bool same = st.ok() && out2 == out;

  const bool pass = out_err < 2e-3 && gv_err < 1e-2 && same;
  std::printf(
      "flash_attention: B=%lld S=%lld D=%lld heads=%lld/%lld causal fp16 max|out-ref|=%.2e "
      "max rel dV err=%.2e C++ API %s check=%s\n",
      static_cast<long long>(b), static_cast<long long>(s), static_cast<long long>(d),
      static_cast<long long>(kHeads), static_cast<long long>(kKvHeads), out_err, gv_err,
      same ? "identical" : (st.ok() ? "differs" : st.ToString().c_str()), pass ? "pass" : "FAIL");
  for (aclTensor* t : {tq, tk, tv, tdy, tout, tmax, tsum, tmask, tgq, tgk, tgv}) {
    aclDestroyTensor(t);
  }
  for (void* m : {dq_in, dk_in, dv_in, ddy, dout, dmax, dsum, dgq, dgk, dgv, dmask}) aclrtFree(m);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return pass ? 0 : 1;
}
