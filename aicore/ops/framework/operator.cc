// The operator framework: tensor views, checks, chip budgets, staging copies and pattern launches.
//
// Note [Staging]
// - The pattern kernels read and write dense, row-major operands. An operand that is dense and of
//   the kernel's dtype is used where it is; anything else (a transposed or sliced view, a
//   broadcast input, a softmax dim that is not the last, an fp16 mean output the kernel writes as
//   fp32) gets a 512-byte-aligned slot in the op's workspace, as CANN's executors add Contiguous
//   and ViewCopy steps whose scratch phase 1 reports.
// - Gathers and scatters run on the host in stream order (rt::LaunchHostFunc), so they see the
//   results of earlier work on the stream and later work sees theirs. They are not kernels: the
//   sanitizer and the profiler see only the pattern kernel between them.
#include "aicore/ops/framework/operator.h"

#include <cstring>

#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

int64_t TensorRef::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> TensorRef::Strides() const {
  if (!strides.empty()) return strides;
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

bool TensorRef::IsDense() const {
  if (strides.empty()) return true;
  int64_t expect = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expect) return false;
    expect *= shape[i];
  }
  return true;
}

uint8_t* TensorRef::First() const {
  return static_cast<uint8_t*>(data) + offset * static_cast<int64_t>(DTypeSize(dtype));
}

TensorRef DenseRef(void* data, DType dtype, std::vector<int64_t> shape) {
  TensorRef t;
  t.data = data;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

Status OpCheck::ToStatus() const {
  if (ok()) return Status();
  return Status(StatusCode::kInvalidArgument, message);
}

OpCheck Invalid(std::string message) { return OpCheck{161002, std::move(message)}; }
OpCheck NullArg(std::string message) { return OpCheck{161001, std::move(message)}; }

const char* OpDTypeName(DType dt) {
  switch (dt) {
    case DType::kF32:
      return "FLOAT";
    case DType::kF16:
      return "FLOAT16";
    case DType::kBF16:
      return "BFLOAT16";
    case DType::kI8:
      return "INT8";
    case DType::kU8:
      return "UINT8";
    case DType::kI16:
      return "INT16";
    case DType::kU16:
      return "UINT16";
    case DType::kI32:
      return "INT32";
    case DType::kU32:
      return "UINT32";
    case DType::kI64:
      return "INT64";
    case DType::kU64:
      return "UINT64";
    default:
      return "UNKNOWN";
  }
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

ChipBudget BudgetOf(const arch::Chip& chip) {
  ChipBudget b;
  // 1 KiB stays free: the queues' event bookkeeping and the reductions' 32-byte result tiles.
  const uint64_t ub = chip.spec(arch::Buffer::kUb).bytes;
  b.ub_bytes = ub > 2048 ? ub - 1024 : ub;
  const int cores = chip.split() ? chip.aiv_count : chip.aic_count;
  b.cores = cores > 0 ? static_cast<uint32_t>(cores) : 1;
  return b;
}

int Staging::Add(const TensorRef& view, bool output, DType kernel_dtype, bool in_place_ok) {
  Operand op;
  op.view = view;
  op.output = output;
  op.kernel_dtype = kernel_dtype;
  op.staged = !in_place_ok || kernel_dtype != view.dtype;
  if (op.staged && view.NumElements() > 0) {
    op.ws_offset = ws_bytes_;
    const uint64_t bytes = static_cast<uint64_t>(view.NumElements()) * DTypeSize(kernel_dtype);
    ws_bytes_ += (bytes + 511) / 512 * 512;
  }
  operands_.push_back(std::move(op));
  return static_cast<int>(operands_.size()) - 1;
}

int Staging::AddInput(const TensorRef& view) {
  return Add(view, false, view.dtype, view.IsDense());
}
int Staging::AddOutput(const TensorRef& view, DType kernel_dtype) {
  return Add(view, true, kernel_dtype, view.IsDense());
}
int Staging::AddInput(const TensorRef& view, DType kernel_dtype, bool in_place_ok) {
  return Add(view, false, kernel_dtype, in_place_ok);
}
int Staging::AddOutput(const TensorRef& view, DType kernel_dtype, bool in_place_ok) {
  return Add(view, true, kernel_dtype, in_place_ok);
}

Status Staging::Enqueue(
    void* workspace, const void* stream,
    const std::function<Status(const std::vector<uint8_t*>& dense)>& kernel) const {
  std::vector<uint8_t*> dense(operands_.size());
  std::vector<TensorRef> slots(operands_.size());
  for (size_t i = 0; i < operands_.size(); ++i) {
    const Operand& op = operands_[i];
    if (!op.staged) {
      dense[i] = op.view.First();
      continue;
    }
    dense[i] = static_cast<uint8_t*>(workspace) + op.ws_offset;
    slots[i] = DenseRef(dense[i], op.kernel_dtype, op.view.shape);
    if (!op.output && op.view.NumElements() > 0) {
      Status s =
          rt::LaunchHostFunc(stream, [dst = slots[i], src = op.view] { CopyView(dst, src); });
      if (!s.ok()) return s;
    }
  }
  Status s = kernel(dense);
  if (!s.ok()) return s;
  for (size_t i = 0; i < operands_.size(); ++i) {
    const Operand& op = operands_[i];
    if (!op.output || !op.staged || op.view.NumElements() == 0) continue;
    s = rt::LaunchHostFunc(stream, [dst = op.view, src = slots[i]] { CopyView(dst, src); });
    if (!s.ok()) return s;
  }
  return Status();
}

namespace {

float LoadFloat(const uint8_t* p, DType dt) {
  switch (dt) {
    case DType::kF16: {
      half h;
      std::memcpy(&h, p, 2);
      return static_cast<float>(h);
    }
    case DType::kBF16: {
      bfloat16 b;
      std::memcpy(&b, p, 2);
      return static_cast<float>(b);
    }
    default: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
  }
}

void StoreFloat(uint8_t* p, DType dt, float v) {
  switch (dt) {
    case DType::kF16: {
      const half h(v);
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::kBF16: {
      const bfloat16 b(v);
      std::memcpy(p, &b, 2);
      break;
    }
    default:
      std::memcpy(p, &v, 4);
  }
}

bool IsFloatType(DType dt) { return dt == DType::kF32 || dt == DType::kF16 || dt == DType::kBF16; }

}  // namespace

void CopyView(const TensorRef& dst, const TensorRef& src) {
  const int64_t n = src.NumElements();
  if (n == 0) return;
  const std::vector<int64_t> ds = dst.Strides(), ss = src.Strides();
  const size_t rank = src.shape.size();
  const size_t de = DTypeSize(dst.dtype), se = DTypeSize(src.dtype);
  const bool convert = dst.dtype != src.dtype && IsFloatType(dst.dtype) && IsFloatType(src.dtype);
  uint8_t* const d0 = dst.First();
  const uint8_t* const s0 = src.First();
  std::vector<int64_t> idx(rank, 0);
  int64_t doff = 0, soff = 0;  // elements
  for (int64_t k = 0; k < n; ++k) {
    uint8_t* d = d0 + doff * static_cast<int64_t>(de);
    const uint8_t* s = s0 + soff * static_cast<int64_t>(se);
    if (convert) {
      StoreFloat(d, dst.dtype, LoadFloat(s, src.dtype));
    } else {
      std::memcpy(d, s, de);
    }
    for (size_t j = rank; j-- > 0;) {
      if (++idx[j] < src.shape[j]) {
        doff += ds[j];
        soff += ss[j];
        break;
      }
      doff -= (src.shape[j] - 1) * ds[j];
      soff -= (src.shape[j] - 1) * ss[j];
      idx[j] = 0;
    }
  }
}

TensorRef BroadcastTo(const TensorRef& view, const std::vector<int64_t>& shape) {
  TensorRef t = view;
  const std::vector<int64_t> s = view.Strides();
  const size_t lead = shape.size() - view.shape.size();
  t.shape = shape;
  t.strides.assign(shape.size(), 0);
  for (size_t i = 0; i < view.shape.size(); ++i) {
    t.strides[lead + i] = view.shape[i] == 1 && shape[lead + i] != 1 ? 0 : s[i];
  }
  return t;
}

TensorRef MoveDimToEnd(const TensorRef& view, int64_t dim) {
  TensorRef t = view;
  std::vector<int64_t> s = view.Strides();
  t.shape.erase(t.shape.begin() + dim);
  t.shape.push_back(view.shape[dim]);
  s.erase(s.begin() + dim);
  s.push_back(view.Strides()[dim]);
  t.strides = s;
  return t;
}

Status LaunchPattern(const void* stream, const std::string& name, uint32_t block_dim,
                     const arch::Chip& chip, std::function<void()> body) {
  LaunchOptions options;
  options.mode = KernelMode::kAiv;
  options.chip = &chip;
  return rt::LaunchKernelAsync(stream, name, block_dim, options, std::move(body));
}

void FreeWorkspaceAfter(const void* stream, void* workspace) {
  if (workspace == nullptr) return;
  if (!rt::LaunchHostFunc(stream, [workspace] { rt::DeviceFree(workspace); }).ok()) {
    rt::DeviceFree(workspace);
  }
}

}  // namespace aicore::ops
