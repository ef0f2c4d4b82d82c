// libFuzzer target: chip descriptions. Half the inputs are raw JSON text; the other half take a
// preset and overwrite one field (chosen by the input) with a JSON value from the input, so the
// schema checks are reached past the parser. ParseChip must either throw aicore::Error
// (InvalidArgument) or return a chip whose every value the simulator relies on holds.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "aicore/arch/chip.h"

namespace {

using aicore::arch::Buffer;
using json = nlohmann::json;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "chip_json_fuzzer: accepted a chip with %s\n", what);
    __builtin_trap();
  }
}

void CheckChip(const aicore::arch::Chip& c) {
  Check(c.event_ids >= 1 && c.event_ids <= 32, "event_ids outside [1, 32]");
  Check(c.aic_count >= 1, "no AIC");
  Check(!c.split() || c.aiv_count >= 1, "a split chip without AIVs");
  Check(c.clock_mhz > 0, "a non-positive clock");
  for (int i = 1; i < aicore::arch::kBufferCount; ++i) {
    const auto& b = c.buffers[i];
    Check(b.align >= 1 && (b.align & (b.align - 1)) == 0, "an align that is not a power of two");
    Check(b.bytes % b.align == 0, "a size that is not a multiple of its align");
    Check(b.bytes <= (uint64_t{1} << 30), "a buffer above 1 GiB");
  }
  for (Buffer b : {Buffer::kUb, Buffer::kL1, Buffer::kL0A, Buffer::kL0B, Buffer::kL0C}) {
    Check(c.spec(b).bytes > 0, "a required buffer missing");
  }
  for (int p = 0; p < aicore::arch::kPositionCount; ++p) {
    const Buffer b = c.position_buffer[p];
    Check(b == Buffer::kNone || b == Buffer::kGm || c.spec(b).bytes > 0,
          "a position mapped to an undefined buffer");
  }
}

const char* const kPaths[] = {
    "/name", "/soc_version", "/npu_arch", "/core_mode", "/aic_count", "/aiv_count",
    "/clock_mhz", "/event_ids", "/buffers", "/buffers/UB", "/buffers/UB/bytes",
    "/buffers/UB/align", "/buffers/L0A/align", "/buffers/BT/bytes", "/buffers/GM",
    "/buffers/L2", "/positions", "/positions/VECIN", "/positions/C2", "/positions/X",
    "/memory", "/memory/hbm_bytes", "/memory/hbm_gbps", "/pipes", "/source", "/extra"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::string text;
  const int mode = in.ConsumeIntegralInRange<int>(0, 3);
  if (mode == 0) {
    text = in.ConsumeRemainingBytesAsString();
  } else {
    static const auto names = aicore::arch::PresetNames();
    json j = aicore::arch::LoadChip(names[in.ConsumeIntegralInRange<size_t>(0, names.size() - 1)]).raw;
    const int edits = in.ConsumeIntegralInRange<int>(1, 3);
    for (int e = 0; e < edits; ++e) {
      const char* path = kPaths[in.ConsumeIntegralInRange<size_t>(0, std::size(kPaths) - 1)];
      json value;
      switch (in.ConsumeIntegralInRange<int>(0, 4)) {
        case 0: value = in.ConsumeIntegral<int64_t>(); break;
        case 1: value = in.ConsumeIntegral<uint64_t>(); break;
        case 2: value = in.ConsumeFloatingPoint<double>(); break;
        case 3: value = in.ConsumeRandomLengthString(16); break;
        default:
          value = json::parse(in.ConsumeRandomLengthString(64), nullptr, /*allow_exceptions=*/false);
      }
      if (value.is_discarded()) continue;
      if (mode == 3) {
        j.erase(std::string(path + 1));  // a missing field (only top-level names match)
        continue;
      }
      try {
        j[json::json_pointer(path)] = value;
      } catch (const json::exception&) {
        // An earlier edit made a parent a non-object: the harness skips this edit.
      }
    }
    // Random strings may not be UTF-8; replace such bytes as a file on disk would not have them.
    text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  try {
    CheckChip(aicore::arch::ParseChip(text, "fuzz.json"));
  } catch (const aicore::Error& e) {
    Check(e.status().code() == aicore::StatusCode::kInvalidArgument, "an error that is not "
                                                                     "InvalidArgument");
  }
  // Any other exception escapes and libFuzzer reports it.
  return 0;
}
