// The aclnn descriptor objects behind acl_meta.h's opaque types, and the helpers the ops layer's
// entry points share: status reporting (the message aclGetRecentErrMsg returns), tensor checks
// and phase 2.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aicore/core/status.h"

struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storage_dims;
  void* data = nullptr;  // the storage base

  int64_t NumElements() const;
  bool IsContiguous() const;
};

struct aclScalar {
  aclDataType dtype = ACL_FLOAT;
  uint8_t value[16] = {};
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};
struct aclTensorList {
  std::vector<const aclTensor*> tensors;
};
struct aclScalarList {
  std::vector<const aclScalar*> scalars;
};

// What phase 1 leaves for phase 2.
struct aclOpExecutor {
  std::string api;              // "aclnnAddCustom"
  uint64_t workspace_size = 0;  // bytes phase 2 needs
  bool repeatable = false;
  // The storage bases phase 2 uses for the inputs and outputs (aclSet*TensorAddr replace them)
  // and each view's first element as a byte offset from its base.
  std::vector<void*> input_bases, output_bases;
  std::vector<int64_t> input_byte_offsets, output_byte_offsets;
  // Phase 2: enqueue the work on `stream` with workspace `ws`.
  std::function<aicore::Status(aclOpExecutor& self, void* ws, aclrtStream stream)> run;
  // True when an aclSet*TensorAddr changed an address since phase 1's checks (or the last run's).
  bool rebound = false;
  // Runs phase 1's checks again on the current addresses; returns the status it reported.
  std::function<aclnnStatus(aclOpExecutor& self)> recheck;
};

namespace aicore::ops {

// Returns the bytes of one element of `dt` (0 when unknown or sub-byte).
size_t AclDataTypeSize(aclDataType dt);
// Returns "ACL_FLOAT", ... ("aclDataType <n>" when unnamed).
std::string AclDataTypeName(aclDataType dt);

// Records "<api>: <message> [aclnnStatus <code>]" for aclGetRecentErrMsg and returns `code`.
aclnnStatus Report(const char* api, aclnnStatus code, const std::string& message);

// Checks a tensor argument of an op: not null (161001), rank <= 8 (161002). `what` names the
// argument in messages ("x").
aclnnStatus CheckTensorArg(const char* api, const char* what, const aclTensor* t);

// Registers a new executor as live (RunExecutor, aclSet*TensorAddr and aclDestroyAclOpExecutor
// accept only live ones) and returns it.
aclOpExecutor* AdoptExecutor(aclOpExecutor* executor);

// Phase 2 for every executor: checks the executor (561103 when null, 161002 when already run or
// destroyed), the workspace (161002 when smaller than asked, 161001 when null), after an
// aclSet*TensorAddr phase 1's checks again (their status: an output rebound over an input, a null
// address), enqueues it on `stream`, and destroys it unless repeatable. A failed check leaves the
// executor for another try; a launch error gives 361001. A destroyed executor's memory is held
// back for a while (Note [Executor quarantine]), so a stale handle is refused rather than taken
// for the next executor that gets its address.
aclnnStatus RunExecutor(const char* api, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream);

}  // namespace aicore::ops
