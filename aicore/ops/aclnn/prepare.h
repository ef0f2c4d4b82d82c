// Phase 1 of an aclnn entry point, shared by every operator's entry points (aclnn_ops.cc,
// aclnn_attention.cc): after the descriptors are converted to an operator's Args, run its
// CanImplement and Plan on the default chip and leave an executor whose run re-reads the tensor
// addresses (aclSet*TensorAddr index the inputs and outputs in the signature's order, absent
// optionals included) and calls the operator's Launch. No exception crosses the C boundary.
#ifndef AICORE_OPS_ACLNN_PREPARE_H_
#define AICORE_OPS_ACLNN_PREPARE_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"
#include "aicore/ops/aclnn/descriptors.h"
#include "aicore/ops/framework/operator.h"

namespace aicore::ops {

// The TensorRefs of an Args an executor rebinds at run time (nullptr: an absent optional).
template <class Args>
using Binder = std::function<std::vector<TensorRef*>(Args&)>;

// Reports a failed OpCheck under `api` (its code and message; the operator's messages start with
// its name, which Report adds again) and returns its code.
inline aclnnStatus ReportCheck(const char* api, const OpCheck& c) {
  const std::string prefix = StrCat(api, ": ");
  const bool named = c.message.rfind(prefix, 0) == 0;
  return Report(api, c.code, named ? c.message.substr(prefix.size()) : c.message);
}

// Checks the out-pointers, then CanImplement(args, chip) (its status code and message, reported
// under `api`), Plan(args, chip), and hands out the executor; the workspace size is the plan's.
// CanImplement, Plan and Launch are found by argument-dependent lookup on Args.
template <class Args>
aclnnStatus Prepare(const char* api, Args args, Binder<Args> inputs, Binder<Args> outputs,
                    uint64_t* workspace_size, aclOpExecutor** executor) {
  if (workspace_size == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize is null");
  }
  if (executor == nullptr) return Report(api, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  try {
    args.op = api;
    const arch::Chip& chip = arch::DefaultChip();
    const OpCheck c = CanImplement(args, chip);
    if (!c.ok()) return ReportCheck(api, c);
    auto plan = Plan(args, chip);
    auto* e = new aclOpExecutor();
    e->api = api;
    e->workspace_size = plan.workspace_bytes;
    for (TensorRef* t : inputs(args)) {
      e->input_bases.push_back(t ? t->data : nullptr);
      e->input_byte_offsets.push_back(0);
    }
    for (TensorRef* t : outputs(args)) {
      e->output_bases.push_back(t ? t->data : nullptr);
      e->output_byte_offsets.push_back(0);
    }
    // Returns `args` on the executor's current addresses.
    auto bind = [args, inputs, outputs](const aclOpExecutor& self) {
      Args a = args;
      std::vector<TensorRef*> in = inputs(a), out = outputs(a);
      for (size_t i = 0; i < in.size(); ++i) {
        if (in[i]) in[i]->data = self.input_bases[i];
      }
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i]) out[i]->data = self.output_bases[i];
      }
      // An in-place op's output is input 0's storage (Launch writes through it).
      if constexpr (requires { a.in_place; a.self; a.out; }) {
        if (a.in_place) a.out.data = a.self.data;
      }
      return a;
    };
    e->run = [bind, plan](aclOpExecutor& self, void* ws, aclrtStream stream) -> Status {
      return Launch(bind(self), plan, ws, stream);
    };
    e->recheck = [bind, api](aclOpExecutor& self) -> aclnnStatus {
      const OpCheck c = CanImplement(bind(self), arch::DefaultChip());
      return c.ok() ? ACLNN_SUCCESS : ReportCheck(api, c);
    };
    *workspace_size = plan.workspace_bytes;
    *executor = AdoptExecutor(e);
    return ACLNN_SUCCESS;
  } catch (const Error& e) {
    return Report(api, ACLNN_ERR_INNER, e.status().ToString());
  } catch (const std::exception& e) {
    return Report(api, ACLNN_ERR_INNER, e.what());
  }
}

}  // namespace aicore::ops

#endif  // AICORE_OPS_ACLNN_PREPARE_H_
