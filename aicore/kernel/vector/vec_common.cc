// Funnel records and shared errors of vector instructions.
#include "aicore/kernel/vector/vec_common.h"

namespace AscendC::detail {

aicore::sim::Instr VecInstr(aicore::sim::Core& core, const char* api, aicore::DType dt,
                            const void* dst, uint64_t dst_bytes, const void* src0,
                            uint64_t src0_bytes, const void* src1, uint64_t src1_bytes,
                            uint64_t elements, uint32_t repeat, const SrcLoc& loc) {
  aicore::sim::Instr in;
  in.kind = aicore::sim::InstrKind::kCompute;
  in.pipe = aicore::sim::Pipe::kV;
  in.api = api;
  in.dtype = dt;
  in.dst = core.Locate(dst, dst_bytes);
  in.src_count = 0;
  if (src0) in.src[in.src_count++] = core.Locate(src0, src0_bytes);
  if (src1) in.src[in.src_count++] = core.Locate(src1, src1_bytes);
  in.elements = elements;
  in.repeat = repeat;
  in.flops = elements;
  in.loc = loc;
  return in;
}

void FailCount(const char* api, int32_t count, uint32_t limit, uint32_t dst_size,
               int64_t src0_size, int64_t src1_size, const SrcLoc& loc) {
  std::string sizes = aicore::StrCat("dst holds ", dst_size);
  if (src0_size >= 0) sizes += aicore::StrCat(", src0 ", src0_size);
  if (src1_size >= 0) sizes += aicore::StrCat(", src1 ", src1_size);
  Fail(StatusCode::kOutOfRange, api, loc, "count ", count, " is outside [0, ", limit, "] (",
       sizes, " elements)");
}

}  // namespace AscendC::detail
