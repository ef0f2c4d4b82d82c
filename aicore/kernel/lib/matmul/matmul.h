// The high-level Matmul object: C = A * B (+ bias) over one core's share of the matrices, built
// on the public cube primitives so the sanitizer and the timing model see every step: GM ->
// (DataCopy + Nd2NzParams, MTE2) L1 -> (LoadData / LoadDataWithTranspose, MTE1) L0A/L0B ->
// (Mmad, M) L0C -> (Fixpipe, FIX) GM. On a cube core (cube-only or coupled launches) the object
// runs the loop itself; on an AIV of a mix launch it is a client of its group's AIC, which serves
// it inside REGIST_MATMUL_OBJ (see matmul_server.h).
//
// Note [Matmul L1 layouts]
// A panel of A (M x K) or B (K x N) is copied to L1 with Nd2Nz so that every L0 fill is a
// LoadData of whole fractals:
// - A not transposed, B transposed (GM rows are m, resp. n; columns are k): Nz, rows of 16; the
//   fractals are already L0A Zz / L0B Zn fractals and load without transposing.
// - 16-bit types, the other orientation (GM rows are k): Nz; LoadData with ifTranspose.
// - float, GM rows are k: "Zz" (fractal (row block, C0 column) at rb * C1 + c, rows of 16,
//   columns padded to 16) so that two side-by-side 16 x 8 fractals form the 16 x 16 square
//   LoadDataWithTranspose takes.
// - int8, GM rows are k: Nz with rows padded to 32, so two stacked 16 x 32 fractals form the
//   32 x 32 square LoadDataWithTranspose takes.
// A square transpose writes two L0 fractals; when the tile's fractal count along that axis is
// odd, the second fractal of the last square falls past the tile: into the next row of fractals
// (rewritten by the following LoadData, after a PipeBarrier<PIPE_MTE1> since MTE1 does not order
// overlapping writes) or into the slack the buffer keeps past the tile (base sizes are multiples
// of 16, 32 for int8), never into data still needed.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "aicore/kernel/copy/atomic.h"
#include "aicore/kernel/copy/data_copy_pad.h"
#include "aicore/kernel/copy/gm_to_local.h"
#include "aicore/kernel/cube/cube_copy.h"
#include "aicore/kernel/cube/fixpipe.h"
#include "aicore/kernel/cube/load_data.h"
#include "aicore/kernel/lib/matmul/matmul_server.h"
#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/kernel/lib/matmul/matmul_type.h"
#include "aicore/kernel/cube/mmad.h"
#include "aicore/kernel/cube/nd2nz.h"
#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"
#include "aicore/kernel/cube/scratch.h"
#include "aicore/kernel/pipe/flags.h"
#include "aicore/kernel/pipe/tpipe.h"
#include "aicore/kernel/sys.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/sim/gm_copies.h"

namespace AscendC {

// Stores the system workspace pointer kernels pass to REGIST_MATMUL_OBJ (per core).
void SetSysWorkspace(GM_ADDR workspace);
// Returns what SetSysWorkspace stored on this core, or nullptr. The CPU Matmul keeps its
// AIV -> AIC messages in host memory, so it does not need the workspace.
GM_ADDR GetSysWorkSpacePtr();
inline void SetSysWorkSpace(GM_ADDR workspace) { SetSysWorkspace(workspace); }
// Returns the user part of a kernel's workspace argument: what follows the system workspace the
// framework reserves (RESERVED_WORKSPACE: 16 MiB on 2201/3002, 2 MiB elsewhere).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
  const int arch = detail::Core().chip().npu_arch;
  const uint64_t reserved = (arch == 2201 || arch == 3002) ? 16ull << 20 : 2ull << 20;
  return workspace == nullptr ? nullptr : workspace + reserved;
}

namespace detail {

constexpr int64_t MmCeil(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t MmRound(int64_t a, int64_t b) { return MmCeil(a, b) * b; }

// Note [Matmul fused path]
// On a CPU the fractal copies of the cube path (Nd2Nz into L1, LoadData into L0A/L0B, Fixpipe
// out of L0C) cost as much as the multiplications: they are what the Ascend hardware pipelines
// away. So IterateAll, when nothing observes the core, computes the core's whole C with the
// packed GEMM of Note [Packed GEMM] straight from the GM operands instead of walking the base
// blocks. The two paths are interchangeable, bit for bit: both evaluate every C(i, j) as one fma
// chain over k in increasing order from 0 or the bias (Note [Mmad accumulation order]), and the
// L1/L0 buffers the Matmul carves are its own (a kernel cannot see what is in them). It applies
// to fp32, fp16 and bf16 A/B in ND (either orientation) with a float, half or bfloat16 C written
// to GM without atomics (half/bfloat16 rounded from float as the Fixpipe's F322F16/F322BF16 does),
// on hosts with the AVX-512 kernel; everything else takes the cube path. bf16 on AMX hosts sums
// k-pairs as the cube's AMX kernel does, within the Note [Mmad accumulation order] tolerance
// rather than bit for bit (Note [Packed GEMM bf16]). Whenever an observer is
// attached (aicore check, the profiler, a trace) or in differential mode the cube path runs, so
// the sanitizer and the timing model see the instruction stream a real Matmul issues.
// The blocks of one launch share the packed A and B blocks their shares have in common (Note
// [Packed panel cache]). AICORE_MATMUL_FUSED=0 turns the fused path off.

// Returns whether IterateAll may use the fused path (Note [Matmul fused path]).
bool MatmulFusedPathEnabled();
// Turns the fused path on or off for the process (tests; AICORE_MATMUL_FUSED sets the default).
void SetMatmulFusedPath(bool enabled);

// Checks a TCubeTiling against the chip before a Matmul uses it; fails naming the field.
void CheckMatmulTiling(const TCubeTiling& t, uint32_t in_bytes, uint32_t l0c_bytes, bool with_bias,
                       const SrcLoc& loc);

// Note [Matmul L1 pipeline]
// An operand's L1 holds depthA1 / (stepM * stepKa) (resp. depthB1 / (stepN * stepKb)) panels, at
// most two. With two, the Matmul pipelines them as the depth/step parameters describe: when a
// panel is first used, the panel the iteration needs after it is copied into the other buffer at
// once (MTE2 runs ahead), so MTE2 fills panel p + 1 while MTE1 and the cube consume panel p. The
// buffer it overwrites held panel p - 1, whose last MTE1 load was issued before panel p's first,
// so its FreeTensor completes as soon as MTE1 is done with it. The prefetched panel's DeQue (MTE1
// waiting for its copy) is lazy: it happens at the panel's first use, not when the copy starts.
// Panels are chosen exactly as a least-recently-used cache of two would choose them (the buffer
// refilled early is the one the next miss would have evicted), so a panel that stays resident
// (all of K in one or two panels, or a B panel reused along M) is still reused. With one buffer
// (the Norm template's depth 1), MTE2 and MTE1 take turns per panel. The functional copy happens
// when the panel is loaded; the operands cannot change before it is used (SetTensorA/B end the
// computation and release the panels).

// One L1 panel buffer set of a Matmul operand: up to two resident panels, least recently used
// evicted, the next panel prefetched (Note [Matmul L1 pipeline]). Panels come from a TQue so
// MTE2 -> MTE1 and the reverse are synchronised as queues synchronise them.
template <TPosition kPos, typename T>
class PanelCache {
 public:
  void Init(TPipe* pipe, int buffers, uint32_t bytes, const SrcLoc& loc) {
    buffers_ = buffers;
    pipe->InitBuffer(que_, static_cast<uint8_t>(buffers), bytes, loc);
  }
  // Returns the panel with `key`, loading it with `load(key, tensor)` into a free or the least
  // recently used buffer when it is neither resident nor prefetched. Then, when `next` >= 0 is
  // not resident and a second buffer exists, starts loading `next` into the buffer `key` does
  // not use (a prefetch, dequeued at its first Get).
  template <typename Load>
  const LocalTensor<T>& Get(int64_t key, int64_t next, Load&& load, const SrcLoc& loc) {
    ++clock_;
    int cur = Find(key);
    if (cur >= 0) {
      if (!ready_[cur]) {
        tensor_[cur] = que_.template DeQue<T>(loc);
        ready_[cur] = true;
      }
    } else {
      cur = 0;
      for (int i = 0; i < buffers_; ++i) {
        if (key_[i] < 0) {
          cur = i;
          break;
        }
        if (used_[i] < used_[cur]) cur = i;
      }
      Evict(cur, loc);
      LocalTensor<T> t = que_.template AllocTensor<T>(loc);
      load(key, t);
      que_.EnQue(t, loc);
      tensor_[cur] = que_.template DeQue<T>(loc);
      key_[cur] = key;
      ready_[cur] = true;
    }
    used_[cur] = clock_;
    if (next >= 0 && buffers_ > 1 && Find(next) < 0) {
      const int other = 1 - cur;
      Evict(other, loc);
      LocalTensor<T> t = que_.template AllocTensor<T>(loc);
      load(next, t);
      que_.EnQue(t, loc);
      tensor_[other] = t;
      key_[other] = next;
      ready_[other] = false;
      used_[other] = clock_;
    }
    return tensor_[cur];
  }
  // Frees every resident panel (a prefetched one after its DeQue).
  void Release(const SrcLoc& loc) {
    for (int i = 0; i < buffers_; ++i) Evict(i, loc);
  }

 private:
  int Find(int64_t key) const {
    for (int i = 0; i < buffers_; ++i) {
      if (key_[i] == key) return i;
    }
    return -1;
  }
  void Evict(int i, const SrcLoc& loc) {
    if (key_[i] < 0) return;
    if (!ready_[i]) tensor_[i] = que_.template DeQue<T>(loc);
    que_.FreeTensor(tensor_[i], loc);
    key_[i] = -1;
    ready_[i] = false;
  }

  TQue<kPos, 1> que_;
  int buffers_ = 0;
  std::array<LocalTensor<T>, 2> tensor_{};
  std::array<int64_t, 2> key_{-1, -1};
  std::array<bool, 2> ready_{};  // dequeued (a prefetched panel is not until its first use)
  std::array<uint64_t, 2> used_{};
  uint64_t clock_ = 0;
};

}  // namespace detail

// Note [Matmul local operands]
// A or B may be a LocalTensor when its MatmulType says where it lives:
// - TPosition::TSCM (L1), CubeFormat::NZ: the kernel has copied this core's whole operand into L1
//   itself (DataCopy GM -> TSCM with Nd2NzParams, paying that MTE2), in the L1 layout of Note
//   [Matmul L1 layouts]: the operand in its stored orientation (A: singleCoreM x singleCoreK,
//   transposed singleCoreK x singleCoreM; B: singleCoreK x singleCoreN, transposed singleCoreN x
//   singleCoreK), fractal columns C0 wide and as tall as the rows rounded up to 16 (Nd2Nz's
//   dstNzC0Stride). The Matmul never loads it from GM: the L0 fills LoadData straight from the
//   tensor (MTE1), so the operand costs no MTE2 in the Matmul. Before its first L0 fill the
//   Matmul orders MTE2 -> MTE1 (the kernel's copy), and when the computation ends MTE1 -> MTE2,
//   so the kernel may refill the tensor afterwards. ND is refused (LoadData reads whole
//   fractals), as are the orientations whose L1 layout is not plain NZ (CheckGmOperand); the
//   fused path is not taken. On the AIV of a mix launch, where L1 belongs to the AIC, a TSCM
//   operand is refused.
// - TPosition::VECOUT / VECCALC / VECIN (UB), ND or NZ laid out as the same operand in GM: the
//   documented path for split cores is UB -> GM -> L1, so the Matmul copies the tensor into a GM
//   staging block of its own (DataCopyPad, MTE3, waited for before the AIC is told) and then
//   treats it as a GM operand.
// A tensor at another position than its MatmulType's, a GlobalTensor for a non-GM MatmulType and
// a TSCM tensor smaller than the NZ operand are errors.

// C = A * B (+ bias) over singleCoreM x singleCoreN x singleCoreK with the tiling of Init.
// Supported: A and B in GM, ND in either orientation (ISTRANS / the isTranspose argument) or NZ
// (see CheckGmOperand); A and/or B as a LocalTensor in L1 (TPosition::TSCM, NZ) or in UB
// (VECIN/VECOUT/VECCALC, ND or NZ), see Note [Matmul local operands];
// half/bfloat16_t/float inputs with float, half or bfloat16_t output (half/bfloat16 through the
// Fixpipe's F322F16 / F322BF16), int8_t inputs with int32_t output; bias float (int32_t for
// int8) in GM; C to GM.
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
          const MatmulConfig& MM_CFG = CFG_NORM>
class Matmul {
 public:
  using SrcT = typename A_TYPE::T;
  using SrcBT = typename B_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  using L0cT = std::conditional_t<std::is_same_v<SrcT, int8_t>, int32_t, float>;
  static_assert(std::is_same_v<SrcT, SrcBT>, "Matmul: A and B must have the same element type");
  static_assert(std::is_same_v<SrcT, half> || std::is_same_v<SrcT, bfloat16_t> ||
                    std::is_same_v<SrcT, float> || std::is_same_v<SrcT, int8_t>,
                "Matmul: A and B must be half, bfloat16_t, float or int8_t");
  static_assert(std::is_same_v<SrcT, int8_t>
                    ? std::is_same_v<DstT, int32_t>
                    : (std::is_same_v<DstT, float> || std::is_same_v<DstT, half> ||
                       std::is_same_v<DstT, bfloat16_t>),
                "Matmul: C must be float, half or bfloat16_t (int32_t for int8_t inputs)");

  Matmul() = default;
  ~Matmul() {
    if (client_.active()) client_.Quit();
    // The staging block's addresses may go to another block of this launch next.
    if (aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull()) {
      if (!workspace_.empty()) core->RetireGm(workspace_.data(), workspace_.size() * sizeof(DstT));
      for (const std::vector<SrcT>* st : {&a_stage_, &b_stage_}) {
        if (!st->empty()) core->RetireGm(st->data(), st->size() * sizeof(SrcT));
      }
    }
  }
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  // Takes the tiling (copied) and carves L1/L0A/L0B/L0C (and the bias buffers) from `tpipe`
  // (GetTPipePtr() when null). On an AIV of a mix launch, connects to the group's AIC instead.
  void Init(const TCubeTiling* cubeTiling, TPipe* tpipe = nullptr,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (cubeTiling == nullptr) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "Matmul::Init", loc,
                   "the tiling pointer is null");
    }
    if (served_) return;
    tiling_ = *cubeTiling;
    if (ClientMode()) {
      client_.Connect(loc);
      client_.Call(detail::MatmulRequest::kInit, loc,
                   [t = tiling_, loc](detail::MatmulServerApi& s) { s.Init(t, loc); });
      ResetShapes();
      initialized_ = true;
      return;
    }
    constexpr uint32_t in = sizeof(SrcT);
    detail::CheckMatmulTiling(tiling_, in, sizeof(L0cT), tiling_.isBias != 0, loc);
    if (tpipe == nullptr) tpipe = static_cast<TPipe*>(detail::Core().tpipe);
    if (tpipe == nullptr) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "Matmul::Init", loc,
                   "no TPipe: pass one (Init(&tiling, &pipe)) or construct a TPipe first");
    }
    const int a_bufs = std::max(1, tiling_.depthA1 / (tiling_.stepM * tiling_.stepKa));
    const int b_bufs = std::max(1, tiling_.depthB1 / (tiling_.stepN * tiling_.stepKb));
    a_rows_max_ = detail::MmRound(int64_t{tiling_.stepM} * tiling_.baseM, kMnAlign);
    a_cols_max_ = detail::MmRound(int64_t{tiling_.stepKa} * tiling_.baseK, kKAlign);
    b_rows_max_ = detail::MmRound(int64_t{tiling_.stepKb} * tiling_.baseK, kKAlign);
    b_cols_max_ = detail::MmRound(int64_t{tiling_.stepN} * tiling_.baseN, kMnAlign);
    // A TSCM operand is the kernel's own L1 tensor: no panel buffers for it.
    if constexpr (A_TYPE::pos != TPosition::TSCM) {
      a1_.Init(tpipe, std::min(a_bufs, 2), static_cast<uint32_t>(a_rows_max_ * a_cols_max_ * in),
               loc);
    }
    if constexpr (B_TYPE::pos != TPosition::TSCM) {
      b1_.Init(tpipe, std::min(b_bufs, 2), static_cast<uint32_t>(b_rows_max_ * b_cols_max_ * in),
               loc);
    }
    tpipe->InitBuffer(qa2_, static_cast<uint8_t>(tiling_.dbL0A > 1 ? 2 : 1),
                      static_cast<uint32_t>(tiling_.baseM) * tiling_.baseK * in, loc);
    tpipe->InitBuffer(qb2_, static_cast<uint8_t>(tiling_.dbL0B > 1 ? 2 : 1),
                      static_cast<uint32_t>(tiling_.baseK) * tiling_.baseN * in, loc);
    tpipe->InitBuffer(qco1_, static_cast<uint8_t>(tiling_.dbL0C > 1 ? 2 : 1),
                      static_cast<uint32_t>(tiling_.baseM) * tiling_.baseN * sizeof(L0cT), loc);
    if (tiling_.isBias) {
      // One base block of bias in L1 and in the bias table, whole 64-byte units (the L1 -> BT
      // copy moves 64-byte blocks).
      const uint32_t bias_bytes =
          static_cast<uint32_t>(detail::MmRound(int64_t{tiling_.baseN} * sizeof(L0cT), 64));
      tpipe->InitBuffer(qbias1_, 1, bias_bytes, loc);
      tpipe->InitBuffer(qbias2_, 1, bias_bytes, loc);
    }
    ResetShapes();
    initialized_ = true;
  }

  // Sets the whole matrices' shapes: A is orgM x orgK, B is orgK x orgN (row pitches of the ND
  // operands and of C).
  void SetOrgShape(int orgM, int orgN, int orgK, detail::SrcLoc loc = detail::SrcLoc::current()) {
    SetOrgShape(orgM, orgN, orgK, orgK, 0, loc);
  }
  // As above with A orgM x orgKa, B orgKb x orgN, and C's row pitch orgKc (0: orgN).
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0,
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetOrgShape", loc);
    if (orgM <= 0 || orgN <= 0 || orgKa <= 0 || orgKb <= 0 || orgKc < 0) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "Matmul::SetOrgShape", loc, "M=", orgM,
                   " N=", orgN, " Ka=", orgKa, " Kb=", orgKb, " Kc=", orgKc,
                   ": sizes must be > 0 (Kc >= 0)");
    }
    org_m_ = orgM;
    org_n_ = orgN;
    org_ka_ = orgKa;
    org_kb_ = orgKb;
    org_kc_ = orgKc;
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kSetOrgShape, loc, [=](detail::MatmulServerApi& s) {
        s.SetOrgShape(orgM, orgN, orgKa, orgKb, orgKc, loc);
      });
    }
  }
  // Sets this core's share of the problem (elements); replaces the tiling's singleCore sizes.
  void SetSingleShape(int singleM, int singleN, int singleK,
                      detail::SrcLoc loc = detail::SrcLoc::current()) {
    SetTail(singleM, singleN, singleK, loc);
  }
  // Changes singleCoreM/N/K for the next computation (-1 keeps one), e.g. for the tail core.
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetTail", loc);
    if (tailM == 0 || tailN == 0 || tailK == 0 || tailM < -1 || tailN < -1 || tailK < -1) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "Matmul::SetTail", loc, "tailM=", tailM,
                   " tailN=", tailN, " tailK=", tailK, ": each must be > 0, or -1 to keep it");
    }
    if (tailM > 0) single_m_ = tailM;
    if (tailN > 0) single_n_ = tailN;
    if (tailK > 0) single_k_ = tailK;
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kSetTail, loc,
                   [=](detail::MatmulServerApi& s) { s.SetTail(tailM, tailN, tailK, loc); });
    }
  }

  // Sets A: this core's A starts at gm (ND, row pitch Ka; transposed: Ka x M with pitch M).
  // A_TYPE's position must be GM.
  void SetTensorA(const GlobalTensor<SrcT>& gm, bool isTransposeA = A_TYPE::isTrans,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetTensorA", loc);
    CheckGmPosition<A_TYPE>("Matmul::SetTensorA", "A", loc);
    SetGmA(gm, isTransposeA, loc);
  }
  // Sets A as a LocalTensor (Note [Matmul local operands]): at TSCM (L1) when A_TYPE's position
  // is TSCM, this core's whole singleCoreM x singleCoreK A in NZ (transposed: singleCoreK x
  // singleCoreM), read by LoadData without a GM load; in UB when A_TYPE's position is VECOUT,
  // VECCALC or VECIN, laid out as a GM A would be (row pitch Ka, or M transposed), staged through
  // GM into L1.
  void SetTensorA(const LocalTensor<SrcT>& leftMatrix, bool isTransposeA = A_TYPE::isTrans,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetTensorA", loc);
    SetLocalOperand<A_TYPE>(true, leftMatrix, isTransposeA, loc);
  }
  // Sets B as a LocalTensor: as SetTensorA(LocalTensor), with B's singleCoreK x singleCoreN
  // (transposed: singleCoreN x singleCoreK).
  void SetTensorB(const LocalTensor<SrcT>& rightMatrix, bool isTransposeB = B_TYPE::isTrans,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetTensorB", loc);
    SetLocalOperand<B_TYPE>(false, rightMatrix, isTransposeB, loc);
  }

  // Sets B: this core's B starts at gm (ND, row pitch N; transposed: N x Kb with pitch Kb).
  // B_TYPE's position must be GM.
  void SetTensorB(const GlobalTensor<SrcT>& gm, bool isTransposeB = B_TYPE::isTrans,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetTensorB", loc);
    CheckGmPosition<B_TYPE>("Matmul::SetTensorB", "B", loc);
    SetGmB(gm, isTransposeB, loc);
  }
  // Lends the Matmul a VECCALC scratch tensor for its format conversions (call before Iterate or
  // IterateAll). aicore's Matmul converts without UB scratch, so the tensor is only checked to be
  // a live UB tensor and is not written.
  void SetLocalWorkspace(const LocalTensor<uint8_t>& tmpBuffer,
                         detail::SrcLoc loc = detail::SrcLoc::current()) {
    tmpBuffer.CheckLive("Matmul::SetLocalWorkspace", loc);
    const TPosition pos = tmpBuffer.GetPosition();
    if (pos != TPosition::VECCALC && pos != TPosition::VECIN && pos != TPosition::VECOUT) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "Matmul::SetLocalWorkspace", loc,
                   "tmpBuffer is at ", aicore::arch::PositionName(ToArch(pos)),
                   "; the Matmul's scratch must be a VECCALC (UB) tensor");
    }
  }

  // Sets the bias row (singleCoreN values starting at gm); the tiling must have isBias.
  void SetBias(const GlobalTensor<BiasT>& gm, detail::SrcLoc loc = detail::SrcLoc::current()) {
    CheckInit("SetBias", loc);
    if (!tiling_.isBias) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "Matmul::SetBias", loc,
                   "the tiling was made without bias (isBias = 0): call SetBias(true) on the "
                   "host tiling so L1 and the bias table keep room for it");
    }
    if constexpr (!std::is_same_v<BiasT, L0cT>) {
      detail::Fail(aicore::StatusCode::kUnimplemented, "Matmul::SetBias", loc, "bias of ",
                   aicore::DTypeName(aicore::DTypeOf<BiasT>()), "; the bias table takes ",
                   aicore::DTypeName(aicore::DTypeOf<L0cT>()), " (use a ",
                   aicore::DTypeName(aicore::DTypeOf<L0cT>()), " BIAS_TYPE)");
    }
    bias_gm_ = gm;
    has_bias_ = true;
    bias_key_ = -1;
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kSetBias, loc,
                   [p = gm.data(), n = gm.extent(), b = gm.bounded(),
                    loc](detail::MatmulServerApi& s) { s.SetBias(p, n, b, loc); });
    }
  }
  // Computes without bias from now on.
  void ClearBias(detail::SrcLoc loc = detail::SrcLoc::current()) {
    has_bias_ = false;
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kClearBias, loc,
                   [loc](detail::MatmulServerApi& s) { s.ClearBias(loc); });
    }
  }
  void DisableBias(detail::SrcLoc loc = detail::SrcLoc::current()) { ClearBias(loc); }

  // Computes the next baseM x baseN block of C into L0C (in iterateOrder); returns false when
  // every block is done. enPartialSum adds to the block already in L0C instead of starting at 0
  // (or the bias).
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false, detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (client_.active()) {
      bool more = false;
      client_.Call(detail::MatmulRequest::kIterate, loc,
                   [&](detail::MatmulServerApi& s) { more = s.Iterate(enPartialSum, loc); });
      return more;
    }
    CheckReady("Iterate", loc);
    if (pending_ && !enPartialSum) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "Matmul::Iterate", loc,
                   "the previous block was not read out: call GetTensorC after each Iterate");
    }
    if (!started_) Start(loc);
    if (enPartialSum && pending_) {
      ComputeBlock(cur_m_, cur_n_, true, loc);
      return true;
    }
    if (next_block_ >= m_iter_ * n_iter_) {
      Finish(loc);
      return false;
    }
    const int64_t b = next_block_++;
    if (tiling_.iterateOrder == 0) {
      cur_m_ = b % m_iter_;
      cur_n_ = b / m_iter_;
    } else {
      cur_n_ = b % n_iter_;
      cur_m_ = b / n_iter_;
    }
    ComputeBlock(cur_m_, cur_n_, false, loc);
    return true;
  }

  // Writes the block of the last Iterate to C in GM: at its place in this core's C (row pitch N,
  // or Kc), or at gm's start with row pitch baseN when enSequentialWrite. enAtomic = 1 adds to
  // what C holds.
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false, detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kGetTensorC, loc, [&](detail::MatmulServerApi& s) {
        s.GetTensorC(gm.data(), gm.extent(), gm.bounded(), enAtomic, enSequentialWrite, loc);
      });
      return;
    }
    if (!pending_) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "Matmul::GetTensorC", loc,
                   "no block to read: call Iterate first (and only while it returns true)");
    }
    WriteBlock(gm, enAtomic, enSequentialWrite, loc);
  }
  // Writes the block of the last Iterate into `c` as baseM x baseN ND (row pitch baseN). On an
  // AIV client the AIC stages the block in a GM workspace and this core copies it to UB (MTE2)
  // and waits for the copy, as the synchronous AscendC GetTensorC does; on a cube core the
  // Fixpipe writes it directly (L1, or UB where the core has one).
  template <bool sync = true>
  void GetTensorC(const LocalTensor<DstT>& c, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (enAtomic != 0) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "Matmul::GetTensorC", loc,
                   "enAtomic applies to GM output only");
    }
    if (client_.active()) {
      const size_t block = size_t(tiling_.baseM) * tiling_.baseN;
      workspace_.resize(block);
      GlobalTensor<DstT> ws;
      ws.SetGlobalBuffer(workspace_.data(), block);
      client_.Call(detail::MatmulRequest::kGetTensorC, loc, [&](detail::MatmulServerApi& s) {
        s.GetTensorC(ws.data(), block, true, 0, true, loc);
      });
      DataCopy(c, ws, static_cast<uint32_t>(block), loc);
      auto* pipe = GetTPipePtr();
      const event_t id = pipe != nullptr ? pipe->FetchEventID(HardEvent::MTE2_V) : EVENT_ID0;
      SetFlag<HardEvent::MTE2_V>(id, loc);
      WaitFlag<HardEvent::MTE2_V>(id, loc);
      return;
    }
    if (!pending_) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "Matmul::GetTensorC", loc,
                   "no block to read: call Iterate first (and only while it returns true)");
    }
    FixpipeParamsV220 p;
    p.nSize = static_cast<uint16_t>(cur_n_len_);
    p.mSize = static_cast<uint16_t>(cur_m_len_);
    p.srcStride = static_cast<uint16_t>(detail::MmRound(cur_m_len_, 16));
    p.dstStride = static_cast<uint32_t>(tiling_.baseN);
    p.quantPre = QuantMode();
    (void)enSequentialWrite;  // a local block is always baseM x baseN ND
    Fixpipe<DstT, L0cT, CFG_ROW_MAJOR>(c, co1_, p, loc);
    qco1_.FreeTensor(co1_, loc);
    pending_ = false;
  }

  // Computes all of this core's C (singleCoreM x singleCoreN) into gm (row pitch N, or Kc).
  template <bool sync = true>
  void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false, bool waitIterateAll = false, bool fakeMsg = false,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    (void)waitIterateAll;
    (void)fakeMsg;
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kIterateAll, loc, [&](detail::MatmulServerApi& s) {
        s.IterateAll(gm.data(), gm.extent(), gm.bounded(), enAtomic, loc);
      });
      return;
    }
    if (enSequentialWrite) {
      detail::Fail(aicore::StatusCode::kUnimplemented, "Matmul::IterateAll", loc,
                   "enSequentialWrite is supported by GetTensorC only");
    }
    if constexpr (kFusable) {
      if (UseFusedPath(enAtomic)) {
        IterateAllFused(gm, loc);
        return;
      }
    }
    while (Iterate<sync>(false, loc)) WriteBlock(gm, enAtomic, false, loc);
  }
  // Waits for an asynchronous IterateAll (the CPU Matmul is synchronous: nothing to wait for).
  void WaitIterateAll() {}

  // Ends this computation: releases the L1 panels (the next Iterate starts over).
  void End(detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kEnd, loc,
                   [&](detail::MatmulServerApi& s) { s.End(loc); });
      return;
    }
    if (!initialized_ || served_) return;
    if (pending_) {
      qco1_.FreeTensor(co1_, loc);
      pending_ = false;
    }
    Finish(loc);
  }

  // HF32 is not modelled; false (the default) is accepted.
  void SetHF32(bool enableHF32 = false, int32_t transMode = 0,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
    (void)transMode;
    if (enableHF32) {
      detail::Fail(aicore::StatusCode::kUnimplemented, "Matmul::SetHF32", loc,
                   "HF32 mode is not modelled by aicore");
    }
  }
  void SetSubBlockIdx(uint8_t idx) { sub_block_idx_ = idx; }
  uint8_t GetSubBlockIdx() const { return sub_block_idx_; }

  // --- aicore internals ---
  // Serves the client requests of this AIC's group until every client has quit (mix launches);
  // afterwards the object's calls on this AIC do nothing.
  void ServeGroup(TPipe* tpipe, const detail::SrcLoc& loc) {
    ServerAdapter adapter(*this, tpipe);
    detail::ServeMatmulRequests(adapter, loc);
    served_ = true;
  }

 private:
  static constexpr bool kInt8 = std::is_same_v<SrcT, int8_t>;
  static constexpr bool kF32 = std::is_same_v<SrcT, float>;
  static constexpr int64_t kC0 = 32 / sizeof(SrcT);     // elements in 32 bytes
  static constexpr int64_t kFrac = 512 / sizeof(SrcT);  // elements in one fractal
  static constexpr int64_t kMnAlign = kInt8 ? 32 : 16;  // base M/N granularity
  static constexpr int64_t kKAlign = kInt8 ? 32 : 16;   // base K granularity

  // The server side of a mix launch: the AIC's Matmul object driven by a client's requests.
  class ServerAdapter : public detail::MatmulServerApi {
   public:
    ServerAdapter(Matmul& mm, TPipe* pipe) : mm_(mm), pipe_(pipe) {}
    void Init(const TCubeTiling& t, const detail::SrcLoc& loc) override {
      if (!mm_.initialized_) {
        mm_.Init(&t, pipe_, loc);
        return;
      }
      const TCubeTiling& have = mm_.tiling_;
      if (t.baseM != have.baseM || t.baseN != have.baseN || t.baseK != have.baseK ||
          t.depthA1 != have.depthA1 || t.depthB1 != have.depthB1 || t.stepM != have.stepM ||
          t.stepN != have.stepN || t.stepKa != have.stepKa || t.stepKb != have.stepKb ||
          t.isBias != have.isBias || t.dbL0A != have.dbL0A || t.dbL0B != have.dbL0B ||
          t.dbL0C != have.dbL0C) {
        detail::Fail(aicore::StatusCode::kInvalidArgument, "Matmul::Init", loc,
                     "the two AIVs of a group initialised the Matmul with tilings of different "
                     "base/L1 sizes; the AIC's buffers are carved once (use one tiling)");
      }
      mm_.End(loc);
      mm_.tiling_ = t;
      mm_.ResetShapes();
    }
    void SetOrgShape(int m, int n, int ka, int kb, int kc, const detail::SrcLoc& loc) override {
      mm_.SetOrgShape(m, n, ka, kb, kc, loc);
    }
    void SetTail(int m, int n, int k, const detail::SrcLoc& loc) override {
      mm_.SetTail(m, n, k, loc);
    }
    void SetTensorA(void* p, uint64_t size, bool bounded, bool trans,
                    const detail::SrcLoc& loc) override {
      mm_.SetGmA(MakeGm<SrcT>(p, size, bounded), trans, loc);
    }
    void SetTensorB(void* p, uint64_t size, bool bounded, bool trans,
                    const detail::SrcLoc& loc) override {
      mm_.SetGmB(MakeGm<SrcT>(p, size, bounded), trans, loc);
    }
    void SetBias(void* p, uint64_t size, bool bounded, const detail::SrcLoc& loc) override {
      mm_.SetBias(MakeGm<BiasT>(p, size, bounded), loc);
    }
    void ClearBias(const detail::SrcLoc& loc) override { mm_.ClearBias(loc); }
    bool Iterate(bool partial, const detail::SrcLoc& loc) override {
      return mm_.Iterate(partial, loc);
    }
    void GetTensorC(void* p, uint64_t size, bool bounded, uint8_t atomic, bool sequential,
                    const detail::SrcLoc& loc) override {
      mm_.GetTensorC(MakeGm<DstT>(p, size, bounded), atomic, sequential, loc);
    }
    void IterateAll(void* p, uint64_t size, bool bounded, uint8_t atomic,
                    const detail::SrcLoc& loc) override {
      mm_.IterateAll(MakeGm<DstT>(p, size, bounded), atomic, false, false, false, loc);
    }
    void End(const detail::SrcLoc& loc) override { mm_.End(loc); }
    bool Busy() const override { return mm_.started_ || mm_.pending_; }

   private:
    template <typename U>
    static GlobalTensor<U> MakeGm(void* p, uint64_t size, bool bounded) {
      GlobalTensor<U> g;
      if (bounded)
        g.SetGlobalBuffer(static_cast<U*>(p), size);
      else
        g.SetGlobalBuffer(static_cast<U*>(p));
      return g;
    }
    Matmul& mm_;
    TPipe* pipe_;
  };

  bool ClientMode() const {
    const auto& core = detail::Core();
    return core.id().type == aicore::sim::CoreType::kAiv && core.chip().split();
  }
  void CheckInit(const char* api, const detail::SrcLoc& loc) const {
    if (!initialized_) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, (std::string("Matmul::") + api).c_str(),
                   loc,
                   "the Matmul is not initialised: call REGIST_MATMUL_OBJ(&pipe, workspace, "
                   "mm, &tiling) or mm.Init(&tiling, &pipe) first");
    }
  }
  // Checks an operand's format: ND always; NZ where its fractals load into L0 without the square
  // transposes of Note [Matmul L1 layouts] (16-bit types any orientation; otherwise A not
  // transposed and B transposed).
  template <class TYPE>
  void CheckGmOperand(const char* api, bool rows_are_k, const detail::SrcLoc& loc) const {
    if constexpr (TYPE::format == CubeFormat::NZ) {
      if (rows_are_k && sizeof(SrcT) != 2) {
        detail::Fail(aicore::StatusCode::kUnimplemented, api, loc, "a CubeFormat::NZ operand of ",
                     aicore::DTypeName(aicore::DTypeOf<SrcT>()),
                     " stored with k along its rows (A transposed, B not transposed) is not "
                     "implemented; supply it in ND or in the other orientation");
      }
    } else if constexpr (TYPE::format != CubeFormat::ND) {
      detail::Fail(aicore::StatusCode::kUnimplemented, api, loc,
                   "operands in formats other than CubeFormat::ND and NZ are not implemented");
    }
  }
  static constexpr bool IsUbPosition(TPosition p) {
    return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
  }
  static const char* PosName(TPosition p) { return aicore::arch::PositionName(ToArch(p)); }
  static const char* SrcTypeName() { return aicore::DTypeName(aicore::DTypeOf<SrcT>()); }
  // Fails unless TYPE's position is GM (SetTensorA/B with a GlobalTensor).
  template <class TYPE>
  static void CheckGmPosition(const char* api, const char* what, const detail::SrcLoc& loc) {
    if constexpr (TYPE::pos != TPosition::GM) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, what, " (", SrcTypeName(),
                   ") is a GlobalTensor but its MatmulType says TPosition::", PosName(TYPE::pos),
                   ": pass a LocalTensor at that position, or declare the MatmulType with "
                   "TPosition::GM");
    }
  }
  // SetTensorA/B(LocalTensor): Note [Matmul local operands].
  template <class TYPE>
  void SetLocalOperand(bool is_a, const LocalTensor<SrcT>& t, bool trans,
                       const detail::SrcLoc& loc) {
    const char* api = is_a ? "Matmul::SetTensorA" : "Matmul::SetTensorB";
    const char* what = is_a ? "A" : "B";
    t.CheckLive(api, loc);
    const TPosition pos = t.GetPosition();
    if constexpr (TYPE::pos == TPosition::TSCM) {
      if (pos != TPosition::TSCM) {
        detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, what, " (", SrcTypeName(),
                     ") is a LocalTensor at ", PosName(pos),
                     " but its MatmulType says TPosition::TSCM: pass a tensor allocated at TSCM "
                     "(L1)");
      }
      if constexpr (TYPE::format != CubeFormat::NZ) {
        detail::Fail(aicore::StatusCode::kUnimplemented, api, loc, what, " (", SrcTypeName(),
                     ") at TPosition::TSCM must be CubeFormat::NZ (LoadData reads whole "
                     "fractals from L1); copy it in with DataCopy and Nd2NzParams and declare "
                     "the MatmulType NZ");
      }
      CheckGmOperand<TYPE>(api, is_a ? trans : !trans, loc);
      if (ClientMode()) {
        detail::Fail(aicore::StatusCode::kUnimplemented, api, loc, what, " (", SrcTypeName(),
                     ") at TPosition::TSCM on an AIV of a mix launch: L1 belongs to the AIC; "
                     "give the AIV's Matmul a GM or UB (VECOUT) operand, or run the Matmul on "
                     "the cube core");
      }
      Invalidate(loc);
      if (is_a) {
        a_l1_ = t;
        trans_a_ = trans;
        a_set_ = true;
        a_in_l1_ = true;
      } else {
        b_l1_ = t;
        trans_b_ = trans;
        b_set_ = true;
        b_in_l1_ = true;
      }
    } else if constexpr (IsUbPosition(TYPE::pos)) {
      if (!IsUbPosition(pos)) {
        detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, what, " (", SrcTypeName(),
                     ") is a LocalTensor at ", PosName(pos), " but its MatmulType says TPosition::",
                     PosName(TYPE::pos), ": pass a UB tensor (VECIN, VECOUT or VECCALC)");
      }
      // UB -> GM staging block -> (the GM path) L1.
      std::vector<SrcT>& stage = is_a ? a_stage_ : b_stage_;
      const uint32_t n = t.GetSize();
      if (stage.size() < n) {
        if (!stage.empty()) {
          if (aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull()) {
            core->RetireGm(stage.data(), stage.size() * sizeof(SrcT));
          }
        }
        stage.assign(n, SrcT(0));
      }
      GlobalTensor<SrcT> ws;
      ws.SetGlobalBuffer(stage.data(), n);
      DataCopyPad(ws, t, DataCopyExtParams(1, static_cast<uint32_t>(n * sizeof(SrcT)), 0, 0, 0),
                  loc);
      auto* pipe = GetTPipePtr();
      const event_t id = pipe != nullptr ? pipe->FetchEventID(HardEvent::MTE3_S) : EVENT_ID0;
      SetFlag<HardEvent::MTE3_S>(id, loc);
      WaitFlag<HardEvent::MTE3_S>(id, loc);
      if (is_a)
        SetGmA(ws, trans, loc);
      else
        SetGmB(ws, trans, loc);
    } else {
      detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, what, " (", SrcTypeName(),
                   ") is a LocalTensor at ", PosName(pos),
                   " but its MatmulType says TPosition::GM: pass a GlobalTensor, or declare the "
                   "MatmulType with TPosition::TSCM (L1) or VECOUT/VECCALC (UB)");
    }
  }
  // SetTensorA without the position check (the server side, and staged UB operands).
  void SetGmA(const GlobalTensor<SrcT>& gm, bool isTransposeA, const detail::SrcLoc& loc) {
    CheckGmOperand<A_TYPE>("Matmul::SetTensorA", isTransposeA, loc);
    a_gm_ = gm;
    trans_a_ = isTransposeA;
    a_set_ = true;
    a_in_l1_ = false;
    Invalidate(loc);
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kSetTensorA, loc,
                   [p = gm.data(), n = gm.extent(), b = gm.bounded(), isTransposeA,
                    loc](detail::MatmulServerApi& s) { s.SetTensorA(p, n, b, isTransposeA, loc); });
    }
  }
  void SetGmB(const GlobalTensor<SrcT>& gm, bool isTransposeB, const detail::SrcLoc& loc) {
    CheckGmOperand<B_TYPE>("Matmul::SetTensorB", !isTransposeB, loc);
    b_gm_ = gm;
    trans_b_ = isTransposeB;
    b_set_ = true;
    b_in_l1_ = false;
    Invalidate(loc);
    if (client_.active()) {
      client_.Call(detail::MatmulRequest::kSetTensorB, loc,
                   [p = gm.data(), n = gm.extent(), b = gm.bounded(), isTransposeB,
                    loc](detail::MatmulServerApi& s) { s.SetTensorB(p, n, b, isTransposeB, loc); });
    }
  }
  void ResetShapes() {
    org_m_ = tiling_.M;
    org_n_ = tiling_.N;
    org_ka_ = tiling_.Ka;
    org_kb_ = tiling_.Kb;
    org_kc_ = 0;
    single_m_ = tiling_.singleCoreM;
    single_n_ = tiling_.singleCoreN;
    single_k_ = tiling_.singleCoreK;
  }
  void CheckReady(const char* api, const detail::SrcLoc& loc) {
    CheckInit(api, loc);
    const char* name = "Matmul::Iterate";
    if (!a_set_ || !b_set_) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, name, loc,
                   "call SetTensorA and "
                   "SetTensorB before ",
                   api);
    }
    if (single_m_ <= 0 || single_n_ <= 0 || single_k_ <= 0) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, name, loc, "singleCoreM=", single_m_,
                   " singleCoreN=", single_n_, " singleCoreK=", single_k_, " must be > 0");
    }
    if (single_m_ > org_m_ || single_n_ > org_n_ || single_k_ > org_ka_ || single_k_ > org_kb_) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, name, loc, "this core's shape (",
                   single_m_, " x ", single_n_, " x ", single_k_,
                   ") exceeds the matrices: M=", org_m_, " N=", org_n_, " Ka=", org_ka_,
                   " Kb=", org_kb_, " (K of A and B must cover singleCoreK)");
    }
    auto check_nz = [&](const char* what, int64_t rows, int64_t cols) {
      if (rows % 16 != 0 || cols % kC0 != 0) {
        detail::Fail(aicore::StatusCode::kInvalidArgument, name, loc, what, " is CubeFormat::NZ ",
                     rows, " x ", cols, "; NZ needs rows a multiple of 16 and columns of ", kC0,
                     " (set the padded sizes with SetOrgShape)");
      }
    };
    if constexpr (A_TYPE::format == CubeFormat::NZ) {
      if (!a_in_l1_) check_nz("A", trans_a_ ? org_ka_ : org_m_, trans_a_ ? org_m_ : org_ka_);
    }
    if constexpr (B_TYPE::format == CubeFormat::NZ) {
      if (!b_in_l1_) check_nz("B", trans_b_ ? org_n_ : org_kb_, trans_b_ ? org_kb_ : org_n_);
    }
    // An L1 operand must hold this core's whole NZ operand (Note [Matmul local operands]).
    auto check_l1 = [&](const char* what, const LocalTensor<SrcT>& t, const Panel& whole) {
      t.CheckLive(name, loc);
      const int64_t need = detail::MmRound(whole.rows, 16) * detail::MmRound(whole.cols, kC0);
      if (int64_t{t.GetSize()} < need) {
        detail::Fail(aicore::StatusCode::kOutOfRange, name, loc, what, " at TPosition::TSCM holds ",
                     t.GetSize(), " elements of ", SrcTypeName(), "; this core's ", whole.rows,
                     " x ", whole.cols, " ", what, " (singleCoreM=", single_m_, " singleCoreN=",
                     single_n_, " singleCoreK=", single_k_, ") in NZ needs ", need,
                     " (rows padded to 16, columns to ", kC0, ")");
      }
    };
    if (a_in_l1_) check_l1("A", a_l1_, WholeA());
    if (b_in_l1_) check_l1("B", b_l1_, WholeB());
    // An ND operand's row pitch is Nd2Nz's 16-bit srcDValue; an NZ operand's column height
    // minus one block is a 16-bit DataCopy gap.
    const int64_t pitch_a = A_TYPE::format == CubeFormat::NZ ? (trans_a_ ? org_ka_ : org_m_)
                                                             : (trans_a_ ? org_m_ : org_ka_);
    const int64_t pitch_b = B_TYPE::format == CubeFormat::NZ ? (trans_b_ ? org_n_ : org_kb_)
                                                             : (trans_b_ ? org_kb_ : org_n_);
    if (pitch_a > 65535 || pitch_b > 65535) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, name, loc, "row pitch of ",
                   pitch_a > 65535 ? "A" : "B", " is ", std::max(pitch_a, pitch_b),
                   " elements; the copy into L1 takes at most 65535 (transpose the operand)");
    }
  }
  void Invalidate(const detail::SrcLoc& loc) {
    if (pending_) {
      qco1_.FreeTensor(co1_, loc);
      pending_ = false;
    }
    Finish(loc);
  }
  void Start(const detail::SrcLoc& loc) {
    if (a_in_l1_ || b_in_l1_) {
      // The kernel's copy into TSCM (MTE2) before the first L0 fill (MTE1).
      SyncPipes<HardEvent::MTE2_MTE1>(loc);
      l1_read_ = true;
    }
    m_iter_ = detail::MmCeil(single_m_, tiling_.baseM);
    n_iter_ = detail::MmCeil(single_n_, tiling_.baseN);
    k_iter_ = detail::MmCeil(single_k_, tiling_.baseK);
    next_block_ = 0;
    started_ = true;
  }
  void Finish(const detail::SrcLoc& loc) {
    if (!initialized_ || client_.active() || served_) return;
    if (l1_read_) {
      // The last L0 fill from a TSCM operand (MTE1) before the kernel refills it (MTE2).
      SyncPipes<HardEvent::MTE1_MTE2>(loc);
      l1_read_ = false;
    }
    a1_.Release(loc);
    b1_.Release(loc);
    if (bias_key_ >= 0) {
      qbias2_.FreeTensor(bias_bt_, loc);
      bias_key_ = -1;
    }
    started_ = false;
  }
  template <HardEvent kEvent>
  static void SyncPipes(const detail::SrcLoc& loc) {
    auto* pipe = GetTPipePtr();
    const event_t id = pipe != nullptr ? pipe->FetchEventID(kEvent) : EVENT_ID0;
    SetFlag<kEvent>(id, loc);
    WaitFlag<kEvent>(id, loc);
  }
  static constexpr QuantMode_t QuantMode() {
    if constexpr (std::is_same_v<DstT, half>)
      return QuantMode_t::F322F16;
    else if constexpr (std::is_same_v<DstT, bfloat16_t>)
      return QuantMode_t::F322BF16;
    else
      return QuantMode_t::NoQuant;
  }

  // --- L1 panels (Note [Matmul L1 layouts]) ---
  // True when the operand's GM rows run along k (A transposed, B not transposed).
  static constexpr bool kRowsAreK(bool is_a, bool trans) { return is_a ? trans : !trans; }

  // Copies a rows x cols ND block (row pitch ld) from src into the L1 panel dst in the layout
  // of Note [Matmul L1 layouts].
  void LoadPanel(const LocalTensor<SrcT>& dst, const GlobalTensor<SrcT>& src, int64_t rows,
                 int64_t cols, int64_t ld, bool rows_are_k, const detail::SrcLoc& loc) {
    if (kF32 && rows_are_k) {
      // "Zz": one 16-row block of fractals after another, columns padded to 16.
      const int64_t c1 = detail::MmRound(cols, 16) / kC0;
      const int64_t full = rows / 16;
      const int64_t frac_row = c1 * kFrac;  // elements per 16-row block
      if (full > 0 && 16 * ld <= 65535 && frac_row <= 65535) {
        DataCopy(dst, src,
                 Nd2NzParams(static_cast<uint16_t>(full), 16, static_cast<uint16_t>(cols),
                             static_cast<uint16_t>(16 * ld), static_cast<uint16_t>(ld), 16, 1,
                             static_cast<uint16_t>(frac_row)),
                 loc);
      } else {
        for (int64_t rb = 0; rb < full; ++rb) {
          DataCopy(dst[static_cast<uint32_t>(rb * frac_row)], src[rb * 16 * ld],
                   Nd2NzParams(1, 16, static_cast<uint16_t>(cols), 0, static_cast<uint16_t>(ld), 16,
                               1, 0),
                   loc);
        }
      }
      if (rows % 16 != 0) {
        DataCopy(dst[static_cast<uint32_t>(full * frac_row)], src[full * 16 * ld],
                 Nd2NzParams(1, static_cast<uint16_t>(rows % 16), static_cast<uint16_t>(cols), 0,
                             static_cast<uint16_t>(ld), 16, 1, 0),
                 loc);
      }
      return;
    }
    const int64_t row_align = (kInt8 && rows_are_k) ? 32 : 16;
    DataCopy(dst, src,
             Nd2NzParams(1, static_cast<uint16_t>(rows), static_cast<uint16_t>(cols), 0,
                         static_cast<uint16_t>(ld),
                         static_cast<uint16_t>(detail::MmRound(rows, row_align)), 1, 0),
             loc);
  }

  // Copies a rows x cols block of an NZ matrix in GM (fractal columns of C0 elements, each
  // rows_org rows tall; src at the block's first element) into the L1 panel dst: one 32-byte
  // row per block, rows padded to 16 (the GM matrix's rows are a multiple of 16).
  void LoadPanelFromNz(const LocalTensor<SrcT>& dst, const GlobalTensor<SrcT>& src, int64_t rows,
                       int64_t cols, int64_t rows_org, const detail::SrcLoc& loc) {
    const int64_t rows_pad = detail::MmRound(rows, 16);
    DataCopy(dst, src,
             DataCopyParams(static_cast<uint16_t>(detail::MmCeil(cols, kC0)),
                            static_cast<uint16_t>(rows_pad),
                            static_cast<uint16_t>(rows_org - rows_pad), 0),
             loc);
  }

  // Geometry of the panel holding logical rows [r0, r0 + len) of the operand's GM matrix.
  struct Panel {
    int64_t rows = 0;  // GM rows in the panel
    int64_t cols = 0;  // GM columns in the panel
  };

  // Returns the A panel (m block group g, k panel p): rows/cols in A's GM orientation.
  Panel PanelA(int64_t g, int64_t p) const {
    const int64_t m0 = g * tiling_.stepM * tiling_.baseM;
    const int64_t k0 = p * tiling_.stepKa * tiling_.baseK;
    const int64_t ml = std::min<int64_t>(int64_t{tiling_.stepM} * tiling_.baseM, single_m_ - m0);
    const int64_t kl = std::min<int64_t>(int64_t{tiling_.stepKa} * tiling_.baseK, single_k_ - k0);
    return trans_a_ ? Panel{kl, ml} : Panel{ml, kl};
  }
  // The whole operand of an L1 (TSCM) A / B, in its stored orientation.
  Panel WholeA() const {
    return trans_a_ ? Panel{single_k_, single_m_} : Panel{single_m_, single_k_};
  }
  Panel WholeB() const {
    return trans_b_ ? Panel{single_n_, single_k_} : Panel{single_k_, single_n_};
  }
  Panel PanelB(int64_t g, int64_t p) const {
    const int64_t n0 = g * tiling_.stepN * tiling_.baseN;
    const int64_t k0 = p * tiling_.stepKb * tiling_.baseK;
    const int64_t nl = std::min<int64_t>(int64_t{tiling_.stepN} * tiling_.baseN, single_n_ - n0);
    const int64_t kl = std::min<int64_t>(int64_t{tiling_.stepKb} * tiling_.baseK, single_k_ - k0);
    return trans_b_ ? Panel{nl, kl} : Panel{kl, nl};
  }

  // Panel keys: (group, k panel) as one integer.
  static constexpr int64_t kPanelKeyStride = int64_t{1} << 32;
  static int64_t PanelKey(int64_t g, int64_t p) { return g * kPanelKeyStride + p; }

  // Returns the key of the A (is_a) or B panel the iteration uses after panel (g, p) of the
  // current block: the next k panel, else the first k panel of the next block; -1 when there is
  // none (Note [Matmul L1 pipeline]).
  int64_t NextPanelKey(bool is_a, int64_t g, int64_t p) const {
    const int64_t step_k = is_a ? tiling_.stepKa : tiling_.stepKb;
    const int64_t panels = detail::MmCeil(k_iter_, step_k);
    if (p + 1 < panels) return PanelKey(g, p + 1);
    if (next_block_ >= m_iter_ * n_iter_) return -1;
    const int64_t b = next_block_;
    const int64_t mi = tiling_.iterateOrder == 0 ? b % m_iter_ : b / n_iter_;
    const int64_t ni = tiling_.iterateOrder == 0 ? b / m_iter_ : b % n_iter_;
    return PanelKey(is_a ? mi / tiling_.stepM : ni / tiling_.stepN, 0);
  }

  const LocalTensor<SrcT>& GetA1(int64_t g, int64_t p, const detail::SrcLoc& loc) {
    if (a_in_l1_) return a_l1_;
    return a1_.Get(
        PanelKey(g, p), NextPanelKey(true, g, p),
        [&](int64_t key, const LocalTensor<SrcT>& t) {
          const int64_t kg = key / kPanelKeyStride, kp = key % kPanelKeyStride;
          const Panel pn = PanelA(kg, kp);
          const int64_t m0 = kg * tiling_.stepM * tiling_.baseM;
          const int64_t k0 = kp * tiling_.stepKa * tiling_.baseK;
          if constexpr (A_TYPE::format == CubeFormat::NZ) {
            const int64_t rows_org = trans_a_ ? org_ka_ : org_m_;
            const int64_t r0 = trans_a_ ? k0 : m0, c0 = trans_a_ ? m0 : k0;
            LoadPanelFromNz(t, a_gm_[((c0 / kC0) * rows_org + r0) * kC0], pn.rows, pn.cols,
                            rows_org, loc);
          } else {
            const int64_t off = trans_a_ ? k0 * org_m_ + m0 : m0 * org_ka_ + k0;
            LoadPanel(t, a_gm_[off], pn.rows, pn.cols, trans_a_ ? org_m_ : org_ka_, trans_a_, loc);
          }
        },
        loc);
  }
  const LocalTensor<SrcT>& GetB1(int64_t g, int64_t p, const detail::SrcLoc& loc) {
    if (b_in_l1_) return b_l1_;
    return b1_.Get(
        PanelKey(g, p), NextPanelKey(false, g, p),
        [&](int64_t key, const LocalTensor<SrcT>& t) {
          const int64_t kg = key / kPanelKeyStride, kp = key % kPanelKeyStride;
          const Panel pn = PanelB(kg, kp);
          const int64_t n0 = kg * tiling_.stepN * tiling_.baseN;
          const int64_t k0 = kp * tiling_.stepKb * tiling_.baseK;
          if constexpr (B_TYPE::format == CubeFormat::NZ) {
            const int64_t rows_org = trans_b_ ? org_n_ : org_kb_;
            const int64_t r0 = trans_b_ ? n0 : k0, c0 = trans_b_ ? k0 : n0;
            LoadPanelFromNz(t, b_gm_[((c0 / kC0) * rows_org + r0) * kC0], pn.rows, pn.cols,
                            rows_org, loc);
          } else {
            const int64_t off = trans_b_ ? n0 * org_kb_ + k0 : k0 * org_n_ + n0;
            LoadPanel(t, b_gm_[off], pn.rows, pn.cols, trans_b_ ? org_kb_ : org_n_, !trans_b_, loc);
          }
        },
        loc);
  }

  // --- L1 -> L0 ---
  // Fills a2 with the m_len x k_len tile at (mo, ko) of the A panel (Zz, K1 = ceil(k_len/K0)).
  void LoadA2(const LocalTensor<SrcT>& a2, const LocalTensor<SrcT>& a1, const Panel& pn, int64_t mo,
              int64_t ko, int64_t m_len, int64_t k_len, const detail::SrcLoc& loc) {
    const int64_t m1 = detail::MmCeil(m_len, 16);
    const int64_t k1 = detail::MmCeil(k_len, kC0);
    if (!trans_a_) {
      // Nz, rows m: fractal (k chunk c, m block r) at c * R1 + r; no transpose.
      const int64_t r1 = detail::MmRound(pn.rows, 16) / 16;
      if (k1 <= m1) {
        for (int64_t k = 0; k < k1; ++k) {
          LoadData(a2[static_cast<uint32_t>(k * kFrac)], a1,
                   LoadData2DParams(static_cast<uint16_t>((ko / kC0 + k) * r1 + mo / 16),
                                    static_cast<uint8_t>(m1), 1, 0, static_cast<uint16_t>(k1 - 1),
                                    false, 0),
                   loc);
        }
      } else {
        for (int64_t m = 0; m < m1; ++m) {
          LoadData(
              a2[static_cast<uint32_t>(m * k1 * kFrac)], a1,
              LoadData2DParams(static_cast<uint16_t>((ko / kC0) * r1 + mo / 16 + m),
                               static_cast<uint8_t>(k1), static_cast<uint16_t>(r1), 0, 0, false, 0),
              loc);
        }
      }
    } else if constexpr (sizeof(SrcT) == 2) {
      // Nz, rows k: fractal (m chunk c, k block r) at c * R1 + r, transposed per fractal.
      const int64_t r1 = detail::MmRound(pn.rows, 16) / 16;
      for (int64_t m = 0; m < m1; ++m) {
        LoadData(a2[static_cast<uint32_t>(m * k1 * kFrac)], a1,
                 LoadData2DParams(static_cast<uint16_t>((mo / 16 + m) * r1 + ko / 16),
                                  static_cast<uint8_t>(k1), 1, 0, 0, true, 0),
                 loc);
      }
    } else if constexpr (kF32) {
      // "Zz", rows k: square (k block kr, m block j) at kr * (C1 / 2) + j -> L0A fractals
      // (j, 2kr) and (j, 2kr + 1).
      const int64_t sq_row = detail::MmRound(pn.cols, 16) / 16;
      for (int64_t m = 0; m < m1; ++m) {
        // With K1 odd the previous row's last square wrote fractal (m, 0) too; order the rewrite.
        if (m > 0 && k1 % 2 != 0) PipeBarrier<PIPE_MTE1>(loc);
        LoadDataWithTranspose(
            a2[static_cast<uint32_t>(m * k1 * kFrac)], a1,
            LoadData2dTransposeParams(static_cast<uint16_t>((ko / 16) * sq_row + mo / 16 + m),
                                      static_cast<uint8_t>(detail::MmCeil(k1, 2)),
                                      static_cast<uint16_t>(sq_row), 1, 0),
            loc);
      }
    } else {
      // int8 Nz, rows k padded to 32: square (m chunk c, k pair q) at c * R1 / 2 + q -> L0A
      // fractals (2c, q) and (2c + 1, q).
      const int64_t half_r1 = detail::MmRound(pn.rows, 32) / 32;
      for (int64_t c = 0; c < detail::MmCeil(m1, 2); ++c) {
        LoadDataWithTranspose(a2[static_cast<uint32_t>(2 * c * k1 * kFrac)], a1,
                              LoadData2dTransposeParams(
                                  static_cast<uint16_t>((mo / 32 + c) * half_r1 + ko / 32),
                                  static_cast<uint8_t>(k1), 1, 0, static_cast<uint16_t>(k1 - 1)),
                              loc);
      }
    }
  }

  // Fills b2 with the k_len x n_len tile at (ko, no) of the B panel (Zn, N1 = ceil(n_len/16)).
  void LoadB2(const LocalTensor<SrcT>& b2, const LocalTensor<SrcT>& b1, const Panel& pn, int64_t ko,
              int64_t no, int64_t k_len, int64_t n_len, const detail::SrcLoc& loc) {
    const int64_t n1 = detail::MmCeil(n_len, 16);
    const int64_t k1 = detail::MmCeil(k_len, kC0);
    if (trans_b_) {
      // Nz, rows n: fractal (k chunk c, n block r) at c * R1 + r; no transpose.
      const int64_t r1 = detail::MmRound(pn.rows, 16) / 16;
      if (k1 <= n1) {
        for (int64_t k = 0; k < k1; ++k) {
          LoadData(b2[static_cast<uint32_t>(k * n1 * kFrac)], b1,
                   LoadData2DParams(static_cast<uint16_t>((ko / kC0 + k) * r1 + no / 16),
                                    static_cast<uint8_t>(n1), 1, 0, 0, false, 0),
                   loc);
        }
      } else {
        for (int64_t n = 0; n < n1; ++n) {
          LoadData(b2[static_cast<uint32_t>(n * kFrac)], b1,
                   LoadData2DParams(static_cast<uint16_t>((ko / kC0) * r1 + no / 16 + n),
                                    static_cast<uint8_t>(k1), static_cast<uint16_t>(r1), 0,
                                    static_cast<uint16_t>(n1 - 1), false, 0),
                   loc);
        }
      }
    } else if constexpr (sizeof(SrcT) == 2) {
      // Nz, rows k: fractal (n chunk c, k block r) at c * R1 + r, transposed per fractal.
      const int64_t r1 = detail::MmRound(pn.rows, 16) / 16;
      for (int64_t k = 0; k < k1; ++k) {
        LoadData(
            b2[static_cast<uint32_t>(k * n1 * kFrac)], b1,
            LoadData2DParams(static_cast<uint16_t>((no / 16) * r1 + ko / 16 + k),
                             static_cast<uint8_t>(n1), static_cast<uint16_t>(r1), 0, 0, true, 0),
            loc);
      }
    } else if constexpr (kF32) {
      // "Zz", rows k: square (k block kr, n block j) at kr * (C1 / 2) + j -> L0B fractals
      // (2kr, j) and (2kr + 1, j).
      const int64_t sq_row = detail::MmRound(pn.cols, 16) / 16;
      for (int64_t kr = 0; kr < detail::MmCeil(k1, 2); ++kr) {
        LoadDataWithTranspose(b2[static_cast<uint32_t>(2 * kr * n1 * kFrac)], b1,
                              LoadData2dTransposeParams(
                                  static_cast<uint16_t>((ko / 16 + kr) * sq_row + no / 16),
                                  static_cast<uint8_t>(n1), 1, 0, static_cast<uint16_t>(n1 - 1)),
                              loc);
      }
    } else {
      // int8 Nz, rows k padded to 32: square (n chunk c, k pair q) at c * R1 / 2 + q -> L0B
      // fractals (q, 2c) and (q, 2c + 1).
      const int64_t half_r1 = detail::MmRound(pn.rows, 32) / 32;
      for (int64_t q = 0; q < k1; ++q) {
        // With N1 odd the previous row's last square wrote fractal (q, 0) too; order the rewrite.
        if (q > 0 && n1 % 2 != 0) PipeBarrier<PIPE_MTE1>(loc);
        LoadDataWithTranspose(
            b2[static_cast<uint32_t>(q * n1 * kFrac)], b1,
            LoadData2dTransposeParams(static_cast<uint16_t>((no / 32) * half_r1 + ko / 32 + q),
                                      static_cast<uint8_t>(detail::MmCeil(n1, 2)),
                                      static_cast<uint16_t>(half_r1), 1, 0),
            loc);
      }
    }
  }

  // Loads the bias of n block ni into the bias table (kept while ni does not change).
  void LoadBias(int64_t ni, int64_t n_len, const detail::SrcLoc& loc) {
    if (bias_key_ == ni) return;
    if (bias_key_ >= 0) qbias2_.FreeTensor(bias_bt_, loc);
    LocalTensor<L0cT> l1 = qbias1_.template AllocTensor<L0cT>(loc);
    // One ND row into L1: C0 blocks side by side (dstNzC0Stride 1), the last one zero-padded.
    const GlobalTensor<L0cT> src = BiasGm()[ni * tiling_.baseN];
    DataCopy(
        l1, src,
        Nd2NzParams(1, 1, static_cast<uint16_t>(n_len), 0, static_cast<uint16_t>(n_len), 1, 1, 0),
        loc);
    qbias1_.EnQue(l1, loc);
    l1 = qbias1_.template DeQue<L0cT>(loc);
    LocalTensor<L0cT> bt = qbias2_.template AllocTensor<L0cT>(loc);
    const int64_t bytes = n_len * static_cast<int64_t>(sizeof(L0cT));
    DataCopy(bt, l1, DataCopyParams(1, static_cast<uint16_t>(detail::MmCeil(bytes, 64)), 0, 0),
             loc);
    qbias2_.EnQue(bt, loc);
    bias_bt_ = qbias2_.template DeQue<L0cT>(loc);
    qbias1_.FreeTensor(l1, loc);
    bias_key_ = ni;
  }
  GlobalTensor<L0cT> BiasGm() const {
    if constexpr (std::is_same_v<BiasT, L0cT>) {
      return bias_gm_;
    } else {
      return GlobalTensor<L0cT>();
    }
  }

  // Computes block (mi, ni) into L0C, over all of singleCoreK.
  void ComputeBlock(int64_t mi, int64_t ni, bool accumulate, const detail::SrcLoc& loc) {
    const int64_t m0 = mi * tiling_.baseM, n0 = ni * tiling_.baseN;
    const int64_t m_len = std::min<int64_t>(tiling_.baseM, single_m_ - m0);
    const int64_t n_len = std::min<int64_t>(tiling_.baseN, single_n_ - n0);
    if (!accumulate) co1_ = qco1_.template AllocTensor<L0cT>(loc);
    const bool bias = has_bias_ && !accumulate;
    if (bias) LoadBias(ni, n_len, loc);
    const int64_t a_group = mi / tiling_.stepM, b_group = ni / tiling_.stepN;
    const int64_t mo = (mi % tiling_.stepM) * tiling_.baseM;
    const int64_t no = (ni % tiling_.stepN) * tiling_.baseN;
    for (int64_t kb = 0; kb < k_iter_; ++kb) {
      const int64_t k0 = kb * tiling_.baseK;
      const int64_t k_len = std::min<int64_t>(tiling_.baseK, single_k_ - k0);
      const int64_t pa = kb / tiling_.stepKa, pb = kb / tiling_.stepKb;
      const LocalTensor<SrcT> a1 = GetA1(a_group, pa, loc);
      const LocalTensor<SrcT> b1 = GetB1(b_group, pb, loc);
      // An L1 operand is one panel holding the whole operand: offsets from its start.
      const int64_t ko_a = a_in_l1_ ? k0 : (kb % tiling_.stepKa) * tiling_.baseK;
      const int64_t ko_b = b_in_l1_ ? k0 : (kb % tiling_.stepKb) * tiling_.baseK;
      LocalTensor<SrcT> a2 = qa2_.template AllocTensor<SrcT>(loc);
      LoadA2(a2, a1, a_in_l1_ ? WholeA() : PanelA(a_group, pa), a_in_l1_ ? m0 : mo, ko_a, m_len,
             k_len, loc);
      qa2_.EnQue(a2, loc);
      a2 = qa2_.template DeQue<SrcT>(loc);
      LocalTensor<SrcT> b2 = qb2_.template AllocTensor<SrcT>(loc);
      LoadB2(b2, b1, b_in_l1_ ? WholeB() : PanelB(b_group, pb), ko_b, b_in_l1_ ? n0 : no, k_len,
             n_len, loc);
      qb2_.EnQue(b2, loc);
      b2 = qb2_.template DeQue<SrcT>(loc);
      MmadParams p;
      p.m = static_cast<uint16_t>(m_len);
      p.n = static_cast<uint16_t>(n_len);
      p.k = static_cast<uint16_t>(k_len);
      if (kb == 0 && bias) {
        p.cmatrixInitVal = false;
        p.cmatrixSource = true;
        Mmad(co1_, a2, b2, bias_bt_, p, loc);
      } else {
        p.cmatrixInitVal = kb == 0 && !accumulate;
        Mmad(co1_, a2, b2, p, loc);
      }
      qa2_.FreeTensor(a2, loc);
      qb2_.FreeTensor(b2, loc);
    }
    if (!accumulate) {
      qco1_.EnQue(co1_, loc);
      co1_ = qco1_.template DeQue<L0cT>(loc);
    }
    cur_m_len_ = m_len;
    cur_n_len_ = n_len;
    pending_ = true;
  }

  // --- Note [Matmul fused path] ---
  static constexpr bool kFusable = (std::is_same_v<DstT, float> || std::is_same_v<DstT, half> ||
                                    std::is_same_v<DstT, bfloat16_t>) &&
                                   (kF32 || std::is_same_v<SrcT, half> ||
                                    std::is_same_v<SrcT, bfloat16_t>) &&
                                   A_TYPE::format == CubeFormat::ND &&
                                   B_TYPE::format == CubeFormat::ND;
  bool UseFusedPath(uint8_t enAtomic) const {
    const auto& core = detail::Core();
    return enAtomic == 0 && core.atomic_mode == 0 && !core.observed() && !core.deferring() &&
           !started_ && !pending_ && !a_in_l1_ && !b_in_l1_ && detail::MatmulFusedPathEnabled();
  }
  // Fails unless elements [0, extent) of gm lie inside it (when its size is known).
  template <typename U>
  static void CheckFusedExtent(const char* what, const GlobalTensor<U>& gm, int64_t extent,
                               const detail::SrcLoc& loc) {
    if (gm.data() == nullptr) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "Matmul::IterateAll", loc, what,
                   " has no buffer (SetGlobalBuffer)");
    }
    if (gm.bounded() && static_cast<uint64_t>(extent) > gm.extent()) {
      detail::Fail(aicore::StatusCode::kOutOfRange, "Matmul::IterateAll", loc, what,
                   ": this core's share reaches element ", extent - 1,
                   " but the GlobalTensor holds ", gm.extent(), " elements");
    }
  }
  // IterateAll through the packed GEMM: the same checks, the same bits, no L1/L0 traffic. A half
  // or bfloat16 C is computed in float and rounded as the Fixpipe's F322F16 / F322BF16 rounds.
  void IterateAllFused(const GlobalTensor<DstT>& gm, const detail::SrcLoc& loc) {
    CheckReady("IterateAll", loc);
    namespace cube = aicore::kernel::cube;
    cube::GemmJob j;
    j.type = kF32                                  ? cube::GemmIn::kF32
             : std::is_same_v<SrcT, bfloat16_t> ? cube::GemmIn::kBf16
                                                : cube::GemmIn::kF16;
    j.m = static_cast<uint32_t>(single_m_);
    j.n = static_cast<uint32_t>(single_n_);
    j.k = static_cast<uint32_t>(single_k_);
    j.a = a_gm_.data();
    j.a_rs = trans_a_ ? 1 : org_ka_;
    j.a_cs = trans_a_ ? org_m_ : 1;
    j.b = b_gm_.data();
    j.b_rs = trans_b_ ? 1 : org_n_;
    j.b_cs = trans_b_ ? org_kb_ : 1;
    // Blocks cut C into singleCoreM x singleCoreN shares: the A rows of this share are read by
    // the other shares of its row, the B columns by those of its column.
    j.cache_a = org_n_ > single_n_;
    j.cache_b = org_m_ > single_m_;
    const int64_t ldc = org_kc_ > 0 ? org_kc_ : org_n_;
    CheckFusedExtent("A", a_gm_, (single_m_ - 1) * j.a_rs + (single_k_ - 1) * j.a_cs + 1, loc);
    CheckFusedExtent("B", b_gm_, (single_k_ - 1) * j.b_rs + (single_n_ - 1) * j.b_cs + 1, loc);
    CheckFusedExtent("C", gm, (single_m_ - 1) * ldc + single_n_, loc);
    if (has_bias_) {
      CheckFusedExtent("the bias", bias_gm_, single_n_, loc);
      j.bias = reinterpret_cast<const float*>(bias_gm_.data());
    }
    if constexpr (std::is_same_v<DstT, float>) {
      j.c = gm.data();
      j.ldc = ldc;
      cube::RunPackedGemm(j);
    } else {
      float* c32 = cube::ScratchFloats(cube::ScratchSlot::kGemmC, size_t(j.m) * j.n);
      j.c = c32;
      j.ldc = j.n;
      cube::RunPackedGemm(j);
      for (uint32_t i = 0; i < j.m; ++i) {
        DstT* row = gm.data() + i * ldc;
        if constexpr (std::is_same_v<DstT, half>)
          aicore::ConvertFloatToHalf(row, c32 + size_t(i) * j.n, j.n);
        else
          aicore::ConvertFloatToBfloat16(row, c32 + size_t(i) * j.n, j.n);
      }
    }
    // Packed copies of A or B that C overlaps are stale now (Note [GM copies]).
    aicore::sim::NoteGmWrite(aicore::sim::GmRegion{gm.data(), uint64_t(single_m_),
                                                   uint64_t(single_n_) * sizeof(DstT),
                                                   uint64_t(ldc) * sizeof(DstT)});
  }

  // Writes the pending block to gm (see GetTensorC) and frees L0C.
  void WriteBlock(const GlobalTensor<DstT>& gm, uint8_t enAtomic, bool sequential,
                  const detail::SrcLoc& loc) {
    const int64_t ldc = org_kc_ > 0 ? org_kc_ : org_n_;
    FixpipeParamsV220 p;
    p.nSize = static_cast<uint16_t>(cur_n_len_);
    p.mSize = static_cast<uint16_t>(cur_m_len_);
    p.srcStride = static_cast<uint16_t>(detail::MmRound(cur_m_len_, 16));
    p.dstStride = static_cast<uint32_t>(sequential ? tiling_.baseN : ldc);
    p.quantPre = QuantMode();
    const int64_t off = sequential ? 0 : cur_m_ * tiling_.baseM * ldc + cur_n_ * tiling_.baseN;
    if (enAtomic == 1) SetAtomicAdd<DstT>();
    Fixpipe<DstT, L0cT, CFG_ROW_MAJOR>(gm[off], co1_, p, loc);
    if (enAtomic == 1) SetAtomicNone();
    qco1_.FreeTensor(co1_, loc);
    pending_ = false;
  }

  TCubeTiling tiling_{};
  bool initialized_ = false;
  bool served_ = false;
  uint8_t sub_block_idx_ = 0;
  detail::MatmulClient client_;
  std::vector<DstT> workspace_;  // AIV client: the GM staging block of GetTensorC(LocalTensor)
  int64_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0, org_kc_ = 0;
  int64_t single_m_ = 0, single_n_ = 0, single_k_ = 0;
  int64_t a_rows_max_ = 0, a_cols_max_ = 0, b_rows_max_ = 0, b_cols_max_ = 0;
  GlobalTensor<SrcT> a_gm_, b_gm_;
  GlobalTensor<BiasT> bias_gm_;
  bool trans_a_ = false, trans_b_ = false;
  bool a_set_ = false, b_set_ = false, has_bias_ = false;
  // Note [Matmul local operands]: TSCM operands, and the GM staging blocks of UB operands.
  LocalTensor<SrcT> a_l1_, b_l1_;
  bool a_in_l1_ = false, b_in_l1_ = false, l1_read_ = false;
  std::vector<SrcT> a_stage_, b_stage_;
  detail::PanelCache<TPosition::A1, SrcT> a1_;
  detail::PanelCache<TPosition::B1, SrcT> b1_;
  TQue<TPosition::A2, 1> qa2_;
  TQue<TPosition::B2, 1> qb2_;
  TQue<TPosition::CO1, 1> qco1_;
  TQue<TPosition::C1, 1> qbias1_;
  TQue<TPosition::C2, 1> qbias2_;
  LocalTensor<L0cT> co1_;
  LocalTensor<L0cT> bias_bt_;
  int64_t bias_key_ = -1;
  bool started_ = false, pending_ = false;
  int64_t m_iter_ = 0, n_iter_ = 0, k_iter_ = 0, next_block_ = 0;
  int64_t cur_m_ = 0, cur_n_ = 0, cur_m_len_ = 0, cur_n_len_ = 0;
};

namespace detail {

// Returns a workspace argument (any GM pointer, or nullptr) as GM_ADDR.
template <typename P>
GM_ADDR ToWorkspace(P* p) {
  return (GM_ADDR)(p);  // NOLINT: the workspace may arrive as any (const) pointer type
}
inline GM_ADDR ToWorkspace(std::nullptr_t) { return nullptr; }

// Registers Matmul objects with their tilings: Init on cube cores and AIV clients; on the AIC
// of a mix launch, serves the group's AIV clients and returns true once they have all quit.
inline bool RegistMatmulObjs(const SrcLoc&, TPipe*, GM_ADDR) { return false; }
template <class MM, class... Rest>
bool RegistMatmulObjs(const SrcLoc& loc, TPipe* pipe, GM_ADDR workspace, MM& mm,
                      const TCubeTiling* tiling, Rest&&... rest) {
  if (workspace != nullptr) SetSysWorkspace(workspace);
  if (IsMixServer()) {
    mm.ServeGroup(pipe, loc);
    return true;
  }
  mm.SetSubBlockIdx(0);
  if (tiling != nullptr) mm.Init(tiling, pipe, loc);
  return RegistMatmulObjs(loc, pipe, workspace, rest...);
}
template <class MM>
bool RegistMatmulObjs(const SrcLoc& loc, TPipe* pipe, GM_ADDR workspace, MM& mm) {
  return RegistMatmulObjs(loc, pipe, workspace, mm, static_cast<const TCubeTiling*>(nullptr));
}

}  // namespace detail

}  // namespace AscendC

// The matmul namespace of CANN's Matmul headers; kernels written `using namespace matmul;` also
// reach the system-variable helpers through it.
namespace matmul {
using AscendC::CFG_IBSHARE_NORM;
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
using AscendC::GetSubBlockIdx;
using AscendC::GetSysWorkSpacePtr;
using AscendC::GetTaskRatio;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetBasicConfig;
using AscendC::GetMDLConfig;
using AscendC::GetNormalConfig;
using AscendC::Matmul;
using AscendC::MatmulConfig;
using AscendC::MatmulType;
using AscendC::MM_CFG_BB;
}  // namespace matmul

// Samples name these without a namespace (CANN's matmul headers make them global).
using AscendC::CFG_IBSHARE_NORM;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
using AscendC::GetSysWorkSpacePtr;
using AscendC::MM_CFG_BB;

// Registers Matmul objects: REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling[, mm2, &tiling2]).
// On the AIC of a mix launch this serves the AIV clients and then returns from the kernel.
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                           \
  do {                                                                                     \
    if (::AscendC::detail::RegistMatmulObjs(::AscendC::detail::SrcLoc::current(), (tpipe), \
                                            ::AscendC::detail::ToWorkspace(workspace),     \
                                            __VA_ARGS__)) {                                \
      return;                                                                              \
    }                                                                                      \
  } while (0)
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ
