// `aicore tune <op> <shape> [--dtype D] [--chip C] [--mode M]`: runs strategy selection for one
// operator and shape, printing every candidate plan with its modeled time on the chip and, for
// the best few, its measured host time, which won and why. The decision is stored in the tune
// cache (docs/ops.md, "Strategy selection"), so later runs of programs with the same AICORE_TUNE
// mode reuse it.
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/ops/ops.h"
#include "aicore/ops/tune/cache.h"
#include "aicore/ops/tune/tune.h"
#include "tools/cli.h"

namespace aicore::cli {

namespace {

const std::vector<std::string>& TunableOps() {
  static const std::vector<std::string> ops = {
      "softmax", "log_softmax", "layer_norm", "rms_norm", "add",      "mul",
      "adds",    "muls",        "silu",       "gelu",     "gelu_erf",
  };
  return ops;
}

// Parses "4096x4096" (or "4096,4096"): dims >= 1, at most 8.
bool ParseShape(const std::string& text, std::vector<int64_t>* shape) {
  shape->clear();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of("x,", start);
    if (end == std::string::npos) end = text.size();
    const std::string dim = text.substr(start, end - start);
    if (dim.empty() || dim.find_first_not_of("0123456789") != std::string::npos ||
        dim.size() > 12) {
      return false;
    }
    const int64_t d = std::stoll(dim);
    if (d < 1) return false;
    shape->push_back(d);
    start = end + 1;
  }
  return !shape->empty() && shape->size() <= 8;
}

bool ParseDType(const std::string& text, DType* dt) {
  if (text == "fp32" || text == "float32" || text == "float") {
    *dt = DType::kF32;
  } else if (text == "fp16" || text == "float16" || text == "half") {
    *dt = DType::kF16;
  } else if (text == "bf16" || text == "bfloat16") {
    *dt = DType::kBF16;
  } else {
    return false;
  }
  return true;
}

// Plan() reads shapes and dtypes only, and the candidates run on scratch memory of the tuner's
// own, so the views are never dereferenced. CanImplement does compare their address ranges (an
// output must not overlap an input), so each view gets a range of its own: address space
// reserved without access or backing memory, released at exit.
ops::TensorRef View(DType dt, const std::vector<int64_t>& shape) {
  size_t bytes = DTypeSize(dt);
  for (int64_t d : shape) bytes *= static_cast<size_t>(d);
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "aicore tune: cannot reserve %zu bytes of address space for a view\n",
                 bytes);
    std::exit(1);
  }
  return ops::DenseRef(p, dt, shape);
}

// Runs the selection for `op`; returns false with `error` set when the operator rejects it.
bool Tune(const std::string& op, const std::vector<int64_t>& shape, DType dt,
          const arch::Chip& chip, const ops::tune::Request& request, ops::tune::Decision* d,
          std::string* error) {
  const std::vector<int64_t> last = {shape.back()};
  std::vector<int64_t> stat = shape;
  stat.back() = 1;
  auto check = [&](const ops::OpCheck& c) {
    if (!c.ok()) *error = c.message;
    return c.ok();
  };
  if (op == "softmax" || op == "log_softmax") {
    ops::SoftmaxArgs a;
    a.log = op == "log_softmax";
    a.self = View(dt, shape);
    a.out = View(dt, shape);
    if (!check(CanImplement(a, chip))) return false;
    ops::Plan(a, chip, request, d);
  } else if (op == "layer_norm") {
    ops::LayerNormArgs a;
    a.input = View(dt, shape);
    a.normalized_shape = last;
    a.weight = View(dt, last);
    a.bias = View(dt, last);
    a.out = View(dt, shape);
    a.mean = View(DType::kF32, stat);
    a.rstd = View(DType::kF32, stat);
    if (!check(CanImplement(a, chip))) return false;
    ops::Plan(a, chip, request, d);
  } else if (op == "rms_norm") {
    ops::RmsNormArgs a;
    a.x = View(dt, shape);
    a.gamma = View(dt, last);
    a.y = View(dt, shape);
    a.rstd = View(DType::kF32, stat);
    if (!check(CanImplement(a, chip))) return false;
    ops::Plan(a, chip, request, d);
  } else {
    ops::ElementwiseArgs a;
    a.self = View(dt, shape);
    a.other = View(dt, shape);
    a.out = View(dt, shape);
    a.scalar = 2;
    if (op == "add") a.kind = ops::ElementwiseKind::kAdd;
    if (op == "mul") a.kind = ops::ElementwiseKind::kMul;
    if (op == "adds") a.kind = ops::ElementwiseKind::kAdds;
    if (op == "muls") a.kind = ops::ElementwiseKind::kMuls;
    if (op == "silu") a.kind = ops::ElementwiseKind::kSilu;
    if (op == "gelu") a.kind = ops::ElementwiseKind::kGeluTanh;
    if (op == "gelu_erf") a.kind = ops::ElementwiseKind::kGeluErf;
    if (!check(CanImplement(a, chip))) return false;
    ops::Plan(a, chip, request, d);
  }
  return true;
}

}  // namespace

int CmdTune(int argc, char** argv) {
  std::string chip_name, dtype_text = "fp32", mode_text;
  std::vector<std::string> positional;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    std::string* value = nullptr;
    std::string name = a;
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) name = a.substr(0, eq);
    if (name == "--chip") value = &chip_name;
    if (name == "--dtype") value = &dtype_text;
    if (name == "--mode") value = &mode_text;
    if (IsHelpFlag(a)) {
      PrintCommandHelp(*FindCommand("tune"), stdout);
      return 0;
    } else if (value != nullptr && eq != std::string::npos) {
      *value = a.substr(eq + 1);
    } else if (value != nullptr && i + 1 < argc) {
      *value = argv[++i];
    } else if (value != nullptr) {
      return UsageError("tune", a + " needs a value");
    } else if (a.size() > 1 && a[0] == '-') {
      return UnknownOption("tune", a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) {
    return UsageError("tune",
                      "expected an operator and a shape, e.g. 'aicore tune softmax "
                      "4096x4096'");
  }
  const std::string& op = positional[0];
  bool known = false;
  for (const std::string& o : TunableOps()) known = known || o == op;
  if (!known) {
    std::string list;
    for (const std::string& o : TunableOps()) list += (list.empty() ? "" : ", ") + o;
    const std::string near = ClosestMatch(op, TunableOps());
    return UsageError("tune", "unknown operator '" + op + "'" +
                                  (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                  " (operators: " + list + ")");
  }
  std::vector<int64_t> shape;
  if (!ParseShape(positional[1], &shape)) {
    return UsageError("tune", "shape '" + positional[1] +
                                  "' is not 1 to 8 positive dims joined by 'x' (e.g. 4096x4096)");
  }
  DType dt = DType::kF32;
  if (!ParseDType(dtype_text, &dt)) {
    return UsageError("tune", "--dtype " + dtype_text + ": allowed: fp32, fp16, bf16");
  }
  ops::tune::Request request;
  request.explain = true;
  request.mode = ops::tune::Mode::kModel;
  try {
    if (!mode_text.empty()) {
      const Status s = ops::tune::ParseMode(mode_text, "--mode", &request.mode);
      if (!s.ok()) return UsageError("tune", s.message());
    } else if (std::getenv("AICORE_TUNE") != nullptr && std::getenv("AICORE_TUNE")[0] != '\0') {
      request.mode = ops::tune::ModeFromEnv();
    }
    static std::unique_ptr<arch::Chip> chip;
    chip = std::make_unique<arch::Chip>(chip_name.empty() ? arch::DefaultChip()
                                                          : arch::LoadChip(chip_name));
    ops::tune::Decision d;
    std::string error;
    if (!Tune(op, shape, dt, *chip, request, &d, &error)) {
      std::fprintf(stderr, "aicore tune: %s\n", error.c_str());
      return 1;
    }
    std::printf("%s", ops::tune::FormatDecision(d).c_str());
    const std::string path = ops::tune::Cache::Process().path();
    if (request.mode == ops::tune::Mode::kOff) {
      std::printf("cache: not written (AICORE_TUNE=off runs the heuristic plan)\n");
    } else {
      std::printf("cache: %s, key %s\n", path.empty() ? "(memory only)" : path.c_str(),
                  d.key.ToString().c_str());
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "aicore tune: %s\n", e.status().message().c_str());
    return e.status().code() == StatusCode::kInvalidArgument ? kUsageExitCode : 1;
  }
}

}  // namespace aicore::cli
