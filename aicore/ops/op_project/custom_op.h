// Running a custom operator project (msOpGen layout) on aicore: phase 1 of the op's aclnn entry
// point checks the call against the op's OpDef, builds a gert::TilingContext from the tensors and
// attributes and runs the op's tiling function; phase 2 copies the tiling data to GM and launches
// the kernel with the tiling function's block dim, tiling key and workspace. The generated
// aclnn_<op>.cpp of aicore_add_op_project calls these; GenerateAclnnSources is the generator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aicore/ops/register/op_def.h"
#include "aicore/runtime/launch.h"

namespace aicore::ops {

// Calls the kernel with its arguments: inputs, outputs, workspace, tiling (a generated
// trampoline knows the arity).
using KernelEntry = void (*)(uint8_t* const* args);

struct CustomOpKernel {
  const char* name = "";     // the kernel function ("add_custom")
  KernelEntry entry = nullptr;
  KernelMode mode = KernelMode::kAiv;  // from the kernel's KERNEL_TASK_TYPE_DEFAULT
};

// The bytes GetRawTilingData() offers the tiling function.
constexpr size_t kCustomOpTilingCapacity = 64 * 1024;

// Phase 1 of op `op_type` as aclnn entry point `api`. `inputs` and `outputs` follow the OpDef's
// order (nullptr for an absent OPTIONAL input); `attrs` one per OpDef attribute (nullopt: not
// given, the default applies). Codes: 161001 null tensor / out-pointer, 161002 a dtype, format,
// rank, contiguity or attribute the OpDef does not allow or an InferShape/InferDataType mismatch,
// 561003 no OpDef or tiling function, 561002 the tiling function failed or left a bad block dim
// or tiling size.
aclnnStatus CustomOpGetWorkspaceSize(const char* api, const char* op_type,
                                     const CustomOpKernel& kernel,
                                     const std::vector<const aclTensor*>& inputs,
                                     const std::vector<const aclTensor*>& outputs,
                                     std::vector<std::optional<gert::AttrValue>> attrs,
                                     uint64_t* workspace_size, aclOpExecutor** executor);

// Phase 2 (the same for every op): see RunExecutor in aclnn/descriptors.h.
aclnnStatus CustomOpRun(const char* api, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream);

// Returns the file name of an OpType by CANN's rule (AddCustom -> add_custom, GRUCell -> gru_cell,
// Conv2DCustom -> conv2_d_custom).
std::string OpTypeToFileName(const std::string& op_type);
// Returns the aclnn parameter name of an OpDef name (snake_case -> lowerCamel).
std::string ParamNameToCamel(const std::string& name);

// The generator's main: `<gen> <out_dir> [--kernel <file_stem>=<KERNEL_TYPE_x>]...` writes, for
// every registered OpDef, <out_dir>/include/aclnn_<file>.h and <out_dir>/src/aclnn_<file>.cpp, and
// for every --kernel stem <out_dir>/kernel/<stem>_tiling_defs.h (the kernel-side structs of the
// op's registered tiling-data classes). Returns 0, or 1 with a message on stderr.
int GenerateAclnnSources(int argc, char** argv);

}  // namespace aicore::ops
