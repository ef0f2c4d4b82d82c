// Kernel output: whole-line writes with the core prefix (Note [Kernel output lines]), and the
// text layouts of DumpTensor, PrintTimeStamp and KERNEL_LOG, and the address checks of the
// C-style asc_dump_* calls.
#include "aicore/kernel/debug/print.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "aicore/kernel/sys.h"
#include "aicore/sim/gm_registry.h"

namespace AscendC::detail {

std::string FormatV(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list copy;
  va_copy(copy, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), fmt, ap);
    out.resize(static_cast<size_t>(n));
  }
  va_end(ap);
  return out;
}

void KernelWrite(const std::string& text) {
  aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull();
  if (core == nullptr) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  const auto& id = core->id();
  const std::string prefix = aicore::StrCat("[", aicore::sim::CoreTypeName(id.type), " Block ",
                                            id.block_idx, "/", id.block_num, "] ");
  std::string& pending = core->print_pending;
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break;
    if (pending.empty()) {
      out += prefix;
    } else {
      out += pending;
      pending.clear();
    }
    out.append(text, start, nl + 1 - start);
    start = nl + 1;
  }
  if (start < text.size()) {
    if (pending.empty()) pending = prefix;
    pending.append(text, start, std::string::npos);
  }
  if (!out.empty()) std::fwrite(out.data(), 1, out.size(), stdout);
}

const void* ResolveLocalDump(aicore::arch::Buffer b, const void* p, uint64_t* bytes_left,
                             const char* api, const SrcLoc& loc) {
  aicore::sim::Core& core = Core();
  const char* name = aicore::arch::BufferName(b);
  if (!core.HasBuffer(b)) {
    Fail(aicore::StatusCode::kFailedPrecondition, api, loc, core.Name(), " has no ", name, " on ",
         core.chip().name, " (split chip: UB is on the AIV, L1/L0A/L0B/L0C on the AIC; guard the "
         "dump with ASCEND_IS_AIV / ASCEND_IS_AIC)");
  }
  const uint64_t size = core.LocalSize(b);
  const aicore::sim::MemRef ref = core.Locate(p, 0);
  uint64_t offset = 0;
  if (ref.buffer == b) {
    offset = ref.offset;
  } else if (reinterpret_cast<uintptr_t>(p) < size) {
    offset = reinterpret_cast<uintptr_t>(p);  // LocalTensor::GetPhyAddr(), cast to a pointer
  } else {
    Fail(aicore::StatusCode::kInvalidArgument, api, loc, "address ", p, " is neither inside ",
         core.Name(), "'s ", name, " nor a byte offset into it (below ", size, " B); pass the ",
         "tensor's GetPhyAddr() cast to a pointer");
  }
  *bytes_left = size - offset;
  return core.LocalBase(b) + offset;
}

uint64_t GmDumpAvailable(const void* p, uint64_t elem_bytes, uint64_t requested, const char* api,
                         const SrcLoc& loc) {
  if (p == nullptr) {
    Fail(aicore::StatusCode::kInvalidArgument, api, loc, "the GM address is nullptr");
  }
  const aicore::sim::GmBlock b = aicore::sim::FindGmBlock(p);
  switch (b.state) {
    case aicore::sim::GmBlockState::kLive:
      return std::min<uint64_t>(requested, b.BytesFrom(p) / elem_bytes);
    case aicore::sim::GmBlockState::kFreed:
      Fail(aicore::StatusCode::kFailedPrecondition, api, loc, "GM address ", p,
           " lies in an allocation that was freed");
    case aicore::sim::GmBlockState::kUnknown:
      break;
  }
  return requested;
}

void WriteTimeStamp(uint32_t desc_id, const SrcLoc& loc) {
  (void)Core();  // a kernel API: outside a kernel this fails (no current core)
  (void)loc;
  KernelWrite(FormatV("descId is %u, rsv is 0, timeStamp is %lld, pcPtr is 0, entry is 0.\n",
                      desc_id, static_cast<long long>(GetSystemCycle())));
}

const char* LocalPositionName(const void* p) {
  const aicore::sim::MemRef ref = Core().Locate(p, 0);
  return aicore::arch::BufferName(ref.buffer);
}

std::string DumpValue(double v, bool floating) {
  if (floating) return FormatV("%f", v);
  return FormatV("%lld", static_cast<long long>(v));
}

namespace {
// The data_type names of CANN's DumpTensor header.
const char* DumpTypeName(aicore::DType dt) {
  using aicore::DType;
  switch (dt) {
    case DType::kF16: return "float16";
    case DType::kBF16: return "bfloat16";
    case DType::kF32: return "float32";
    case DType::kI8: return "int8";
    case DType::kU8: return "uint8";
    case DType::kI16: return "int16";
    case DType::kU16: return "uint16";
    case DType::kI32: return "int32";
    case DType::kU32: return "uint32";
    case DType::kI64: return "int64";
    case DType::kU64: return "uint64";
    case DType::kUnknown: break;
  }
  return "unknown";
}
}  // namespace

void DumpBlock(uint32_t desc, uint64_t addr, aicore::DType dt, const char* position,
               uint32_t dump_size, const double* values, uint32_t available, bool floating,
               const ShapeInfo* shape) {
  const char* type_name = DumpTypeName(dt);
  std::string text = FormatV("DumpTensor: desc=%u, addr=%llu, data_type=%s, position=%s, "
                             "dump_size=%u\n",
                             desc, static_cast<unsigned long long>(addr), type_name, position,
                             dump_size);
  auto value = [&](uint64_t i) { return i < available ? DumpValue(values[i], floating) : "-"; };
  if (shape == nullptr || shape->shapeDim == 0) {
    text += "[";
    for (uint32_t i = 0; i < available; ++i) {
      if (i > 0) text += ", ";
      text += value(i);
    }
    text += "]\n";
    KernelWrite(text);
    return;
  }
  const uint64_t total = GetShapeSize(*shape);
  std::string dims;
  for (int d = 0; d < shape->shapeDim; ++d) {
    dims += (d ? ", " : "") + std::to_string(shape->shape[d]);
  }
  if (total > available) {
    text += FormatV("shape is [%s], dumpSize is %u, data is not enough.\n", dims.c_str(),
                    dump_size);
  } else if (total < dump_size) {
    text += FormatV("shape is [%s], dumpSize is %u, dumpSize is greater than shapeSize.\n",
                    dims.c_str(), dump_size);
  }
  // Nested brackets, one innermost row per line: [[a,b],\n[c,d]]. An element opens (closes) one
  // bracket for every trailing block of dimensions it starts (ends).
  const int rank = shape->shapeDim;
  auto brackets = [&](uint64_t index) {
    int n = 0;
    uint64_t block = 1;
    for (int d = rank - 1; d >= 0; --d) {
      block *= shape->shape[d];
      if (index % block != 0) break;
      ++n;
    }
    return n;
  };
  for (uint64_t i = 0; i < total; ++i) {
    text.append(brackets(i), '[');
    text += value(i);
    const int closing = brackets(i + 1);
    text.append(closing, ']');
    if (i + 1 < total) text += closing > 0 ? ",\n" : ",";
  }
  text += "\n";
  KernelWrite(text);
}

std::string KernelLogPrefix(KernelLogLevel level, const char* file, int line, const char* func) {
  static const char* const kLevels[] = {"DEBUG", "INFO", "WARN", "ERROR"};
  const char* base = std::strrchr(file, '/');
  std::string who = "[Block_-][-]";
  if (aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull()) {
    const auto& id = core->id();
    who = aicore::StrCat("[Block_", id.block_idx, "][", aicore::sim::CoreTypeName(id.type), "_",
                         id.sub_block_idx, "]");
  }
  return aicore::StrCat("[", kLevels[static_cast<int>(level)], "]", who, "[",
                        base ? base + 1 : file, ":", line, "][", func, "][", getpid(), "] ");
}

}  // namespace AscendC::detail
