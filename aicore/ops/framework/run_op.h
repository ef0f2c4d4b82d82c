// Runs an operator end to end for the C++ API: CanImplement, Plan, a workspace from the device
// allocator on the op's stream, Launch, and the workspace handed back once the stream has run the
// launch (FreeWorkspaceAfter). Shared by aicore/ops/ops.cc and the operators that define their
// C++ entry points in their own folder (attention/).
#ifndef AICORE_OPS_FRAMEWORK_RUN_OP_H_
#define AICORE_OPS_FRAMEWORK_RUN_OP_H_

#include <memory>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"
#include "aicore/ops/framework/operator.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

// CanImplement, Plan and Launch are found by argument-dependent lookup on Args; a plan the chip
// cannot hold (no Matmul tiling) throws from Plan and is returned as its status.
template <class Args>
Status RunOp(const Args& args, const void* stream) {
  const arch::Chip& chip = arch::DefaultChip();
  const OpCheck c = CanImplement(args, chip);
  if (!c.ok()) return c.ToStatus();
  decltype(Plan(args, chip)) plan;
  try {
    plan = Plan(args, chip);
  } catch (const Error& e) {
    return e.status();
  }
  if (plan.workspace_bytes == 0) return Launch(args, plan, nullptr, stream);
  std::shared_ptr<rt::Stream> s;
  Status st = rt::ResolveStream(stream, args.op, &s);
  if (!st.ok()) return st;
  void* ws = nullptr;
  try {
    ws = rt::DeviceMalloc(plan.workspace_bytes, s.get());
  } catch (const Error& e) {
    return e.status();
  }
  st = Launch(args, plan, ws, stream);
  FreeWorkspaceAfter(stream, ws);
  return st;
}

}  // namespace aicore::ops

#endif  // AICORE_OPS_FRAMEWORK_RUN_OP_H_
