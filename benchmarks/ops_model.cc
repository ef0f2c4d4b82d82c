// ops_model: the modeled time of every operator of the library on a chip (default ascend910b1;
// AICORE_CHIP or argv[1] names another) and its fraction of the HBM limit, printed as the
// Markdown table of docs/performance.md ("Operators"). Each operator runs once through the C++
// API (aicore::ops) under a perf::Profiler at the bench shapes; planning and the replay both use
// the chip. HBM limit = the operator's own bytes (each input read once, the output written once)
// / the chip's HBM bandwidth; "of limit" = that limit / the modeled kernel time (1.0 = the
// kernel runs at the HBM's rate). "GM MB" is the traffic the kernel actually issues (an online
// softmax reads its input twice; the model serves part of that from L2), "bound" the busiest pipe
// and its busy ratio.
//
//   build/benchmarks/ops_model [chip]
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aicore/arch/chip.h"
#include "aicore/ops/ops.h"
#include "aicore/perf/profiler.h"

namespace {

namespace ops = aicore::ops;
using aicore::DType;

struct Case {
  std::string name;
  DType dt;
  int64_t rows, cols;  // rows 0: a 1-D tensor of `cols` elements
  int inputs;          // per-element inputs
  std::function<aicore::Status(const ops::TensorRef& x, const ops::TensorRef& x2,
                               const ops::TensorRef& y, const ops::TensorRef& gamma,
                               const ops::TensorRef& beta, const ops::TensorRef& mean,
                               const ops::TensorRef& rstd)>
      run;
};

const char* DtName(DType d) {
  return d == DType::kF32 ? "fp32" : d == DType::kF16 ? "fp16" : "bf16";
}

}  // namespace

int main(int argc, char** argv) {
  const char* chip_name = argc > 1 ? argv[1] : std::getenv("AICORE_CHIP");
  if (chip_name == nullptr) chip_name = "ascend910b1";
  setenv("AICORE_CHIP", chip_name, 1);  // the operators plan for the default chip
  const aicore::arch::Chip& chip = aicore::arch::DefaultChip();

  auto softmax = [](const ops::TensorRef& x, const ops::TensorRef&, const ops::TensorRef& y,
                    const ops::TensorRef&, const ops::TensorRef&, const ops::TensorRef&,
                    const ops::TensorRef&) { return ops::Softmax(x, -1, y); };
  auto log_softmax = [](const ops::TensorRef& x, const ops::TensorRef&, const ops::TensorRef& y,
                        const ops::TensorRef&, const ops::TensorRef&, const ops::TensorRef&,
                        const ops::TensorRef&) { return ops::LogSoftmax(x, -1, y); };
  auto layer_norm = [](const ops::TensorRef& x, const ops::TensorRef&, const ops::TensorRef& y,
                       const ops::TensorRef& g, const ops::TensorRef& b, const ops::TensorRef& m,
                       const ops::TensorRef& r) {
    return ops::LayerNorm(x, {x.shape.back()}, &g, &b, 1e-5, y, &m, &r);
  };
  auto rms_norm = [](const ops::TensorRef& x, const ops::TensorRef&, const ops::TensorRef& y,
                     const ops::TensorRef& g, const ops::TensorRef&, const ops::TensorRef&,
                     const ops::TensorRef& r) { return ops::RmsNorm(x, g, 1e-6, y, r); };
  auto gelu = [](const ops::TensorRef& x, const ops::TensorRef&, const ops::TensorRef& y,
                 const ops::TensorRef&, const ops::TensorRef&, const ops::TensorRef&,
                 const ops::TensorRef&) { return ops::Gelu(x, y); };
  auto silu = [](const ops::TensorRef& x, const ops::TensorRef&, const ops::TensorRef& y,
                 const ops::TensorRef&, const ops::TensorRef&, const ops::TensorRef&,
                 const ops::TensorRef&) { return ops::Silu(x, y); };
  auto add = [](const ops::TensorRef& x, const ops::TensorRef& x2, const ops::TensorRef& y,
                const ops::TensorRef&, const ops::TensorRef&, const ops::TensorRef&,
                const ops::TensorRef&) { return ops::Add(x, x2, 1.0, y); };
  auto mul = [](const ops::TensorRef& x, const ops::TensorRef& x2, const ops::TensorRef& y,
                const ops::TensorRef&, const ops::TensorRef&, const ops::TensorRef&,
                const ops::TensorRef&) { return ops::Mul(x, x2, y); };
  const std::vector<Case> cases = {
      {"softmax", DType::kF32, 4096, 4096, 1, softmax},
      {"softmax", DType::kF32, 65536, 1024, 1, softmax},
      {"softmax", DType::kF32, 1024, 32768, 1, softmax},
      {"softmax", DType::kF16, 4096, 4096, 1, softmax},
      {"softmax", DType::kBF16, 4096, 4096, 1, softmax},
      {"log_softmax", DType::kF32, 4096, 4096, 1, log_softmax},
      {"log_softmax", DType::kF16, 4096, 4096, 1, log_softmax},
      {"log_softmax", DType::kBF16, 4096, 4096, 1, log_softmax},
      {"layer_norm", DType::kF32, 8192, 4096, 1, layer_norm},
      {"layer_norm", DType::kF16, 8192, 4096, 1, layer_norm},
      {"layer_norm", DType::kBF16, 8192, 4096, 1, layer_norm},
      {"rms_norm", DType::kF32, 8192, 4096, 1, rms_norm},
      {"rms_norm", DType::kF16, 8192, 4096, 1, rms_norm},
      {"rms_norm", DType::kBF16, 8192, 4096, 1, rms_norm},
      {"gelu", DType::kF32, 0, 67108864, 1, gelu},
      {"silu", DType::kF32, 0, 67108864, 1, silu},
      {"add", DType::kF32, 0, 67108864, 2, add},
      {"mul", DType::kF32, 0, 67108864, 2, mul},
  };
  const uint64_t max_bytes = uint64_t{67108864} * 4;
  void *x = nullptr, *x2 = nullptr, *y = nullptr, *g = nullptr, *b = nullptr, *m = nullptr,
       *r = nullptr;
  for (void** p : {&x, &x2, &y}) aclrtMalloc(p, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  for (void** p : {&g, &b}) aclrtMalloc(p, 32768 * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  for (void** p : {&m, &r}) aclrtMalloc(p, 65536 * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  for (uint64_t i = 0; i < max_bytes / 4; ++i) {
    static_cast<float*>(x)[i] = 0.25f * static_cast<float>(i % 17) - 2.0f;  // fp32 view; any
    static_cast<float*>(x2)[i] = 1.0f;                                     // bits are fine
  }
  for (int i = 0; i < 32768; ++i) static_cast<float*>(g)[i] = 1.0f;

  std::printf("| operator | dtype | shape | blocks | modeled us | GM MB | bound | HBM limit us | "
              "of limit |\n|---|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  double hbm = 0;
  for (const Case& c : cases) {
    const std::vector<int64_t> shape =
        c.rows > 0 ? std::vector<int64_t>{c.rows, c.cols} : std::vector<int64_t>{c.cols};
    const int64_t rows = c.rows > 0 ? c.rows : 1;
    const ops::TensorRef tx = ops::DenseRef(x, c.dt, shape), tx2 = ops::DenseRef(x2, c.dt, shape);
    const ops::TensorRef ty = ops::DenseRef(y, c.dt, shape);
    const ops::TensorRef tg = ops::DenseRef(g, DType::kF32, {c.cols});
    const ops::TensorRef tb = ops::DenseRef(b, DType::kF32, {c.cols});
    const ops::TensorRef tm = ops::DenseRef(m, DType::kF32, {rows, 1});
    const ops::TensorRef tr = ops::DenseRef(r, DType::kF32, {rows, 1});
    aicore::perf::Profiler prof(chip);
    prof.Attach();
    aicore::Status s = c.run(tx, tx2, ty, tg, tb, tm, tr);
    if (s.ok() && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      s = aicore::Status(aicore::StatusCode::kInternal, "aclrtSynchronizeStream failed");
    }
    prof.Detach();
    const std::string shape_text =
        c.rows > 0 ? std::to_string(c.rows) + "x" + std::to_string(c.cols) : std::to_string(c.cols);
    if (!s.ok() || prof.Results().empty()) {
      std::printf("| %s | %s | %s | failed: %s |\n", c.name.c_str(), DtName(c.dt),
                  shape_text.c_str(), s.ToString().c_str());
      ++failures;
      continue;
    }
    const aicore::perf::LaunchResult& res = prof.Results().back();
    const double gm = static_cast<double>(res.gm_read_bytes + res.gm_write_bytes);
    const double own = static_cast<double>(rows * c.cols) * aicore::DTypeSize(c.dt) *
                       (c.inputs + 1);
    hbm = res.roofline.peak_bytes_per_s;
    const double limit_us = own / hbm * 1e6;
    std::printf("| %s | %s | %s | %u | %.1f | %.1f | %s %.2f | %.1f | %.2f |\n", c.name.c_str(),
                DtName(c.dt), shape_text.c_str(), res.block_dim, res.kernel_us, gm / 1e6,
                res.triangle.binding_pipe.c_str(), res.triangle.binding_ratio, limit_us,
                limit_us / res.kernel_us);
    std::fflush(stdout);
  }
  std::printf("\nchip %s, HBM %.0f GB/s\n", chip_name, hbm / 1e9);
  return failures == 0 ? 0 : 1;
}
