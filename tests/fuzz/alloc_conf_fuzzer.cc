// libFuzzer target: AICORE_ALLOC_CONF. Any text must parse to a config or an InvalidArgument
// status naming AICORE_ALLOC_CONF; an accepted config must round every request size up to a
// multiple of 512 bytes without overflow or division by zero (UBSan traps on either).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/memory/config.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "alloc_conf_fuzzer: %s\n", what);
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace aicore::memory;
  FuzzedDataProvider in(data, size);
  const int sizes = in.ConsumeIntegralInRange<int>(0, 8);
  std::vector<uint64_t> requests;
  for (int i = 0; i < sizes; ++i) requests.push_back(in.ConsumeIntegral<uint64_t>() >> in.ConsumeIntegralInRange<int>(0, 63));
  const std::string text = in.ConsumeRemainingBytesAsString();
  AllocatorConfig config;
  const aicore::Status st = ParseAllocatorConfig(text, &config);
  if (!st.ok()) {
    Check(st.code() == aicore::StatusCode::kInvalidArgument, "an error that is not InvalidArgument");
    Check(st.message().rfind("AICORE_ALLOC_CONF", 0) == 0, "an error not naming AICORE_ALLOC_CONF");
    return 0;
  }
  for (size_t d : config.roundup_power2_divisions) {
    Check(d == 0 || ((d & (d - 1)) == 0 && d <= 2048), "accepted divisions out of range");
  }
  // Round-trips: the printed form parses to the same settings.
  AllocatorConfig again;
  Check(ParseAllocatorConfig(config.ToString(), &again).ok(), "ToString() does not parse");
  Check(again.roundup_power2_divisions == config.roundup_power2_divisions, "divisions round-trip");
  for (uint64_t r : requests) {
    if (r > (uint64_t{1} << 62)) continue;  // beyond any device; RoundUp's own limit
    const size_t rounded = RoundSize(r, config);
    Check(rounded >= r, "RoundSize shrank a request");
    Check(rounded % kMinBlockSize == 0, "RoundSize is not a multiple of 512");
  }
  return 0;
}
