// Non-template parts of the Matmul API: the tiling check run by Init and the per-core system
// workspace pointer.

#include "aicore/kernel/lib/matmul/matmul.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "aicore/core/env.h"

namespace AscendC {
namespace {

std::mutex workspace_mu;
std::unordered_map<const aicore::sim::Core*, GM_ADDR> workspaces;

}  // namespace

void SetSysWorkspace(GM_ADDR workspace) {
  std::lock_guard<std::mutex> lock(workspace_mu);
  workspaces[&detail::Core()] = workspace;
}

GM_ADDR GetSysWorkSpacePtr() {
  std::lock_guard<std::mutex> lock(workspace_mu);
  auto it = workspaces.find(&detail::Core());
  return it == workspaces.end() ? nullptr : it->second;
}

namespace detail {

namespace {

std::atomic<bool>& FusedPathSwitch() {
  static std::atomic<bool> on{[] {
    return aicore::env::Bool("AICORE_MATMUL_FUSED", true);
  }()};
  return on;
}

}  // namespace

bool MatmulFusedPathEnabled() {
  return FusedPathSwitch().load(std::memory_order_relaxed) &&
         aicore::kernel::cube::PackedGemmAvailable();
}

void SetMatmulFusedPath(bool enabled) { FusedPathSwitch().store(enabled); }

void CheckMatmulTiling(const TCubeTiling& t, uint32_t in_bytes, uint32_t l0c_bytes, bool with_bias,
                       const SrcLoc& loc) {
  constexpr const char* kApi = "Matmul::Init";
  const int32_t mn_align = in_bytes == 1 ? 32 : 16;
  const int32_t k_align = in_bytes == 1 ? 32 : 16;
  if (t.baseM <= 0 || t.baseN <= 0 || t.baseK <= 0 || t.baseM % mn_align != 0 ||
      t.baseN % mn_align != 0 || t.baseK % k_align != 0) {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "tiling baseM=", t.baseM, " baseN=", t.baseN,
         " baseK=", t.baseK, ": baseM and baseN must be positive multiples of ", mn_align,
         " and baseK of ", k_align, " for ", in_bytes, "-byte inputs");
  }
  if (t.stepM <= 0 || t.stepN <= 0 || t.stepKa <= 0 || t.stepKb <= 0 || t.depthA1 <= 0 ||
      t.depthB1 <= 0) {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "tiling stepM=", t.stepM, " stepN=", t.stepN,
         " stepKa=", t.stepKa, " stepKb=", t.stepKb, " depthA1=", t.depthA1, " depthB1=", t.depthB1,
         ": each must be > 0 (was the tiling filled by GetTiling?)");
  }
  if (t.depthA1 < t.stepM * t.stepKa || t.depthB1 < t.stepN * t.stepKb) {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "tiling depthA1=", t.depthA1,
         " < stepM*stepKa=", t.stepM * t.stepKa, " or depthB1=", t.depthB1,
         " < stepN*stepKb=", t.stepN * t.stepKb, ": L1 must hold at least one panel");
  }
  if (t.singleCoreM <= 0 || t.singleCoreN <= 0 || t.singleCoreK <= 0 || t.M < t.singleCoreM ||
      t.N < t.singleCoreN || t.Ka < t.singleCoreK || t.Kb < t.singleCoreK) {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "tiling single core ", t.singleCoreM, " x ",
         t.singleCoreN, " x ", t.singleCoreK, " does not fit the problem M=", t.M, " N=", t.N,
         " Ka=", t.Ka, " Kb=", t.Kb);
  }
  const auto& chip = Core().chip();
  if (chip.npu_arch == 1001 || chip.npu_arch == 2002) {
    Fail(StatusCode::kUnimplemented, kApi, loc,
         "the Matmul API is implemented for chips whose "
         "L0C results leave through Fixpipe (arch 2201, 3002, 3510); ",
         chip.name, " (arch ", chip.npu_arch,
         ") moves them through UB, which this Matmul does not do yet");
  }
  using aicore::arch::Buffer;
  const uint64_t a = uint64_t(t.baseM) * t.baseK * in_bytes * (t.dbL0A > 1 ? 2 : 1);
  const uint64_t b = uint64_t(t.baseK) * t.baseN * in_bytes * (t.dbL0B > 1 ? 2 : 1);
  const uint64_t c = uint64_t(t.baseM) * t.baseN * l0c_bytes * (t.dbL0C > 1 ? 2 : 1);
  const struct {
    const char* name;
    uint64_t need;
    Buffer buf;
  } checks[] = {{"L0A", a, Buffer::kL0A}, {"L0B", b, Buffer::kL0B}, {"L0C", c, Buffer::kL0C}};
  for (const auto& ck : checks) {
    const uint64_t have = chip.spec(ck.buf).bytes;
    if (ck.need > have) {
      Fail(StatusCode::kResourceExhausted, kApi, loc, "tiling base blocks need ", ck.need, " B of ",
           ck.name, " (baseM=", t.baseM, " baseN=", t.baseN, " baseK=", t.baseK,
           ", double buffer A/B/C ", t.dbL0A, "/", t.dbL0B, "/", t.dbL0C, "), ", chip.name, " has ",
           have, " B");
    }
  }
  if (with_bias) {
    const uint64_t bt = chip.spec(Buffer::kBt).bytes;
    const uint64_t need = uint64_t(t.baseN) * l0c_bytes;
    if (bt == 0) {
      Fail(StatusCode::kUnimplemented, kApi, loc, "a Matmul with bias uses the bias table, which ",
           chip.name, " does not have");
    }
    if (need > bt) {
      Fail(StatusCode::kResourceExhausted, kApi, loc, "tiling baseN=", t.baseN, " needs ", need,
           " B of bias table, ", chip.name, " has ", bt, " B");
    }
  }
}

}  // namespace detail
}  // namespace AscendC
