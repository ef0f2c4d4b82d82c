// Funnel records shared by the tensor classes.
#include "aicore/kernel/detail/check.h"

namespace AscendC::detail {

aicore::sim::Instr ScalarInstr(aicore::sim::Core& core, const char* api, bool write,
                               const void* p, uint32_t bytes, aicore::DType dt, const SrcLoc& loc) {
  aicore::sim::Instr in;
  in.kind = aicore::sim::InstrKind::kScalar;
  in.pipe = aicore::sim::Pipe::kS;
  in.api = api;
  in.dtype = dt;
  if (write) {
    in.dst = core.Locate(p, bytes);
  } else {
    in.src[0] = core.Locate(p, bytes);
    in.src_count = 1;
  }
  in.elements = 1;
  in.loc = loc;
  return in;
}

}  // namespace AscendC::detail
