// Operand layouts, spans, batch offsets and the memoised Matmul tiling of the matmul operators.
#include "aicore/ops/matmul/matmul_layout.h"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "aicore/core/status.h"
#include "aicore/runtime/tiling/matmul_tiling.h"

namespace aicore::ops::matmul_detail {

namespace {

// Note [Matmul tiling cache]: tilings are memoised per (chip, cores, M, N, K, dtypes,
// orientations) for the process (the chip presets live as long); the table starts over when it
// reaches this many entries.
constexpr size_t kTilingCacheEntries = 4096;

}  // namespace

std::optional<SliceLayout> LayoutOf(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  if (cols == 1 || sc == 1) {
    const int64_t pitch = rows == 1 ? cols : sr;
    if (pitch >= cols && pitch <= kMaxPitch) return SliceLayout{false, pitch};
  }
  if (rows == 1 || sr == 1) {
    const int64_t pitch = cols == 1 ? rows : sc;
    if (pitch >= rows && pitch <= kMaxPitch) return SliceLayout{true, pitch};
  }
  return std::nullopt;
}

std::optional<SliceLayout> LayoutOf(const TensorRef& t) {
  const std::vector<int64_t> s = t.Strides();
  const size_t r = t.shape.size();
  return LayoutOf(t.shape[r - 2], t.shape[r - 1], s[r - 2], s[r - 1]);
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t d : v) n *= d;
  return n;
}

uint64_t SpanOf(const TensorRef& t) {
  const std::vector<int64_t> s = t.Strides();
  int64_t last = 0;
  for (size_t i = 0; i < t.shape.size(); ++i) last += (t.shape[i] - 1) * s[i];
  return static_cast<uint64_t>(last + 1);
}

std::shared_ptr<const std::vector<int64_t>> BatchOffsets(const TensorRef& t,
                                                         const std::vector<int64_t>& batch_shape) {
  std::vector<int64_t> full_shape = batch_shape;
  full_shape.push_back(t.shape[t.shape.size() - 2]);
  full_shape.push_back(t.shape.back());
  const TensorRef full = BroadcastTo(t, full_shape);
  auto offsets = std::make_shared<std::vector<int64_t>>();
  const int64_t batch = Product(batch_shape);
  offsets->reserve(batch);
  std::vector<int64_t> idx(batch_shape.size(), 0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * full.strides[d];
    offsets->push_back(off);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < batch_shape[d]) break;
      idx[d] = 0;
    }
  }
  return offsets;
}

TensorRef SwapLast2(const TensorRef& t) {
  TensorRef r = t;
  r.strides = t.Strides();
  const size_t n = t.shape.size();
  std::swap(r.shape[n - 2], r.shape[n - 1]);
  std::swap(r.strides[n - 2], r.strides[n - 1]);
  return r;
}

bool StagedColumnMajor(const TensorRef& t) { return t.shape.back() > kMaxPitch; }

AscendC::tiling::TCubeTiling CubeTiling(const arch::Chip& chip, int32_t dim, int64_t m, int64_t n,
                                        int64_t k, DType in, DType c, bool a_trans, bool b_trans,
                                        const char* op) {
  using Key = std::tuple<const arch::Chip*, std::string, int32_t, int64_t, int64_t, int64_t, DType,
                         DType, bool, bool>;
  static std::mutex mu;
  static std::map<Key, AscendC::tiling::TCubeTiling> cache;
  const Key key{&chip, chip.name, dim, m, n, k, in, c, a_trans, b_trans};
  {
    std::lock_guard<std::mutex> lock(mu);
    const auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  const auto to_dt = [](DType d) {
    return d == DType::kF16    ? matmul_tiling::DataType::DT_FLOAT16
           : d == DType::kBF16 ? matmul_tiling::DataType::DT_BF16
                               : matmul_tiling::DataType::DT_FLOAT;
  };
  const platform_ascendc::PlatformAscendC platform(chip);
  matmul_tiling::MultiCoreMatmulTiling api(platform);
  api.SetDim(dim);
  api.SetAType(AscendC::TPosition::GM, CubeFormat::ND, to_dt(in), a_trans);
  api.SetBType(AscendC::TPosition::GM, CubeFormat::ND, to_dt(in), b_trans);
  api.SetCType(AscendC::TPosition::GM, CubeFormat::ND, to_dt(c));
  const auto m32 = static_cast<int32_t>(m), n32 = static_cast<int32_t>(n),
             k32 = static_cast<int32_t>(k);
  api.SetShape(m32, n32, k32);
  api.SetOrgShape(m32, n32, k32);
  api.SetBias(false);
  api.SetBufferSpace(-1, -1, -1);
  AscendC::tiling::TCubeTiling t{};
  if (api.GetTiling(t) != 0) {
    throw Error(
        Status(StatusCode::kInternal, StrCat(op, ": no Matmul tiling for M=", m, " N=", n, " K=", k,
                                             " on ", chip.name, ": ", api.last_error())));
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= kTilingCacheEntries) cache.clear();
  cache.emplace(key, t);
  return t;
}

}  // namespace aicore::ops::matmul_detail
