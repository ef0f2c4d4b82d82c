// Funnel records shared by the tensor classes.
#include "aicore/kernel/detail/check.h"

#include "aicore/kernel/tensor/global_tensor.h"

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

void FailForeignTensor(const char* api, const SrcLoc& loc) {
  Fail(StatusCode::kFailedPrecondition, api, loc,
       "LocalTensor belongs to another block or to an earlier launch: local memory is private to "
       "one core for one launch, so a LocalTensor kept in a global or static, or shared between "
       "blocks, points at memory this core does not own (allocate it in this block's kernel "
       "code)");
}

void FailAicUbTensor(const char* api, const char* role, const SrcLoc& loc) {
  Fail(StatusCode::kFailedPrecondition, api, loc, role, " is a UB tensor on ", Core().Name(),
       ", which has no UB: on ", Core().chip().name,
       " the AIC's UB tensors address its AIV's UB, and only Fixpipe (L0C -> UB) may write them "
       "from the AIC (use the tensor in AIV code)");
}

std::string DescribeGmExtent(const void* p, uint64_t extent_bytes, bool sized, uint64_t size,
                             uint32_t elem, GmExtent state) {
  const aicore::sim::GmBlock b = aicore::sim::FindGmBlock(p);
  const std::string block =
      b.state == aicore::sim::GmBlockState::kUnknown
          ? std::string("its allocation")
          : aicore::StrCat("its ", b.kind, " block of ", b.bytes, " B at ",
                           static_cast<const void*>(b.base));
  if (state == GmExtent::kFreed) {
    return aicore::StrCat("its buffer ", p, " lies in ", block,
                          ", which was freed before the tensor was set up (use after free)");
  }
  if (!sized) {
    return aicore::StrCat("the tensor was set up without a size and ", block, " holds only ",
                          extent_bytes, " B from its start (", extent_bytes / elem,
                          " elements)");
  }
  if (uint64_t{size} * elem > extent_bytes) {
    return aicore::StrCat("the tensor's ", size, " elements (", uint64_t{size} * elem,
                          " B) run past the end of ", block, ": ", extent_bytes,
                          " B are left from its start");
  }
  return aicore::StrCat("the tensor holds ", size, " elements (", extent_bytes, " bytes)");
}

}  // namespace AscendC::detail
