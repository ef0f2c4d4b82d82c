// Run-time choice of the Mmad kernels (portable, AVX2, AVX-512), fixed at the first call.
#include "aicore/kernel/cube/mmad.h"

#include "aicore/core/cpu.h"
#include "aicore/kernel/cube/mmad_kernels.h"

namespace aicore::kernel::cube {

namespace {

using MmadFn = void (*)(const MmadJob&);
using NameFn = const char* (*)(const MmadJob&);

struct Table {
  MmadFn mmad;
  NameFn name;
};

Table PickTable() {
#if defined(__x86_64__)
  switch (ActiveIsa()) {
    case Isa::kAvx512:
      return {isa_avx512::Mmad, isa_avx512::MmadKernelName};
    case Isa::kAvx2:
      return {isa_avx2::Mmad, isa_avx2::MmadKernelName};
    case Isa::kPortable:
      break;
  }
#endif
  return {isa_portable::Mmad, isa_portable::MmadKernelName};
}

const Table& Active() {
  static const Table table = PickTable();
  return table;
}

}  // namespace

void RunMmad(const MmadJob& job) { Active().mmad(job); }

const char* MmadKernelName(MmadType type) {
  MmadJob job;
  job.type = type;
  return Active().name(job);
}

}  // namespace aicore::kernel::cube

namespace AscendC::detail {

aicore::sim::Instr MmadInstr(aicore::sim::Core& core, aicore::DType src_dtype,
                             const aicore::kernel::cube::MmadJob& job, uint64_t c_bytes,
                             uint64_t a_bytes, uint64_t b_bytes, const SrcLoc& loc) {
  aicore::sim::Instr in;
  in.kind = aicore::sim::InstrKind::kCompute;
  in.pipe = aicore::sim::Pipe::kM;
  in.api = "Mmad";
  in.dtype = src_dtype;
  in.dst = core.Locate(job.c, c_bytes);
  in.src[0] = core.Locate(job.a, a_bytes);
  in.src[1] = core.Locate(job.b, b_bytes);
  in.src_count = 2;
  in.elements = uint64_t{job.m} * job.n;
  in.flops = 2 * uint64_t{job.m} * job.n * job.k;
  in.loc = loc;
  return in;
}

}  // namespace AscendC::detail
