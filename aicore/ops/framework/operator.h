// The operator framework shared by every operator of the library: the tensor view operators take
// (TensorRef), the result of an operator's checks (OpCheck: the aclnn status code and the
// message), the chip facts plans are made from (UB budget, vector cores), and Staging, which
// turns strided, broadcast or permuted views into the dense operands the pattern kernels read.
//
// An operator is: an Arguments struct; CanImplement(args, chip) -> OpCheck naming the operator,
// the argument, the value and what is allowed; Plan(args, chip) -> the pattern's tiling plus the
// workspace bytes; Launch(args, plan, workspace, stream), which enqueues the staging copies and
// the pattern kernel on the stream. The aclnn entry points (phase 1 = CanImplement + Plan, phase
// 2 = Launch) and the C++ functions in aicore/ops/ops.h are thin layers over these.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/dtype.h"
#include "aicore/core/status.h"

namespace aicore::ops {

// A view of device memory: element (i0, .., ik) of `shape` lies at
// data + (offset + sum(i_j * strides[j])) * DTypeSize(dtype). Empty `strides`: contiguous.
// An empty `shape` is a 0-d tensor of one element.
struct TensorRef {
  void* data = nullptr;  // the storage base
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements

  int64_t NumElements() const;
  int64_t Rank() const { return static_cast<int64_t>(shape.size()); }
  // Returns the strides, the contiguous ones when `strides` is empty.
  std::vector<int64_t> Strides() const;
  // True when the view is row-major contiguous (size-1 dims may have any stride).
  bool IsDense() const;
  // Returns the address of element 0 (data + offset elements).
  uint8_t* First() const;
};

// Returns a contiguous TensorRef of `shape` over `data`.
TensorRef DenseRef(void* data, DType dtype, std::vector<int64_t> shape);

// The outcome of an operator's checks: `code` 0 (ACLNN_SUCCESS) or the documented aclnn status
// (161001 null, 161002 invalid, 561002 tiling/shape rule), and the message for aclGetRecentErrMsg.
struct OpCheck {
  int32_t code = 0;
  std::string message;
  bool ok() const { return code == 0; }
  // Returns the check as an aicore::Status (InvalidArgument with the message when not ok).
  Status ToStatus() const;
};
OpCheck Invalid(std::string message);  // 161002
OpCheck NullArg(std::string message);  // 161001

// Returns "ACL_FLOAT"-style names for the op messages: "FLOAT", "FLOAT16", "BFLOAT16", ...
const char* OpDTypeName(DType dt);
// Returns "[2, 3]".
std::string ShapeString(const std::vector<int64_t>& shape);

// The chip facts plans use.
struct ChipBudget {
  uint64_t ub_bytes = 0;  // UB bytes a kernel may allocate per block
  uint32_t cores = 1;     // vector cores (AIV on split chips, AI Cores on coupled ones)
};
// Returns `chip`'s budget: its UB less a reserve for the pipeline's own flags.
ChipBudget BudgetOf(const arch::Chip& chip);

// Dense operands for a pattern kernel. Each operand is a view; when it is not dense (strides,
// broadcast zero strides, a permutation) or its kernel dtype differs from the view's, it gets a
// slot in the workspace: an input is gathered into it before the kernel, an output scattered from
// it after, converting the dtype (fp32/fp16/bf16). Both copies run on the host in stream order
// (rt::LaunchHostFunc); dense operands of the right dtype are used in place. See Note [Staging].
class Staging {
 public:
  // Adds an input; returns its index.
  int AddInput(const TensorRef& view);
  // Adds an input the kernel reads as `kernel_dtype`; `in_place_ok` says the kernel can read the
  // view where it is (a strided layout it handles natively), so it is staged only for a dtype
  // change. Returns its index.
  int AddInput(const TensorRef& view, DType kernel_dtype, bool in_place_ok);
  // As AddOutput, with `in_place_ok` as for AddInput.
  int AddOutput(const TensorRef& view, DType kernel_dtype, bool in_place_ok);
  // True when operand `i` goes through a workspace slot (its dense address is the slot's).
  bool staged(int i) const { return operands_[i].staged; }
  // Adds an output the kernel writes as `kernel_dtype`; returns its index.
  int AddOutput(const TensorRef& view, DType kernel_dtype);
  // The workspace bytes the slots need (each 512-byte aligned).
  uint64_t WorkspaceBytes() const { return ws_bytes_; }
  // Enqueues the gathers, then `kernel(dense)` (dense[i]: operand i's dense address in add order,
  // inputs and outputs mixed), then the scatters, on `stream`. `workspace` holds WorkspaceBytes().
  Status Enqueue(void* workspace, const void* stream,
                 const std::function<Status(const std::vector<uint8_t*>& dense)>& kernel) const;

 private:
  struct Operand {
    TensorRef view;
    bool output = false;
    bool staged = false;
    DType kernel_dtype = DType::kF32;
    uint64_t ws_offset = 0;
  };
  int Add(const TensorRef& view, bool output, DType kernel_dtype, bool in_place_ok);
  std::vector<Operand> operands_;
  uint64_t ws_bytes_ = 0;
};

// Copies every element of view `src` to view `dst` (the same shape), converting between fp32,
// fp16 and bf16 (other dtypes must match and are copied bytewise).
void CopyView(const TensorRef& dst, const TensorRef& src);

// Returns `view` broadcast to `shape` (NumPy rules; the caller has checked they hold): leading
// dims added and size-1 dims given stride 0.
TensorRef BroadcastTo(const TensorRef& view, const std::vector<int64_t>& shape);
// Returns `view` with dim `dim` (in [0, rank)) moved to the end.
TensorRef MoveDimToEnd(const TensorRef& view, int64_t dim);

// Returns `workspace` (from rt::DeviceMalloc) to the device allocator once `stream` has run the
// work enqueued so far, so the kernels using it still find it live in the GM registry (Note [GM
// extents] marks a block freed at DeviceFree). Frees it at once if the stream cannot take it.
void FreeWorkspaceAfter(const void* stream, void* workspace);

// Enqueues `body` as AIV kernel `name` on `block_dim` blocks of `chip` (which must outlive the
// launch; presets from arch::DefaultChip() do) on `stream`.
Status LaunchPattern(const void* stream, const std::string& name, uint32_t block_dim,
                     const arch::Chip& chip, std::function<void()> body);

}  // namespace aicore::ops
