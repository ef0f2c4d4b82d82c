// Mix-launch plumbing of the Matmul API: on a split chip an AIV's Matmul object is a client that
// posts each call to its group's AIC and waits; the AIC, inside REGIST_MATMUL_OBJ, serves the
// calls on its own Matmul object (which owns L1/L0). The mailbox lives in host memory and waits
// go through the block scheduler, so a missing server or client is reported as a deadlock.
//
// Note [Matmul sessions]
// One AIC serves both AIVs of its group with one set of L1/L0 buffers. The server keeps each
// client's settings (tiling, shapes, tensors, bias) and re-applies them when it switches clients.
// A client that has started an Iterate loop owns the AIC until the loop ends (Iterate returns
// false, End, or the client quits); the other client's calls wait meanwhile. IterateAll is one
// call and never interleaves.
#pragma once

#include <cstdint>
#include <functional>

#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/kernel/detail/check.h"

namespace AscendC::detail {

enum class MatmulRequest : uint8_t {
  kInit,
  kSetOrgShape,
  kSetTail,
  kSetTensorA,
  kSetTensorB,
  kSetBias,
  kClearBias,
  kIterate,
  kGetTensorC,
  kIterateAll,
  kEnd,
  kQuit,
};
// Returns the Matmul method a request stands for ("SetTensorA", ...).
const char* MatmulRequestName(MatmulRequest r);

// What the server calls on the AIC's Matmul object; pointers are GM addresses.
class MatmulServerApi {
 public:
  virtual ~MatmulServerApi() = default;
  virtual void Init(const TCubeTiling& tiling, const SrcLoc& loc) = 0;
  virtual void SetOrgShape(int m, int n, int ka, int kb, int kc, const SrcLoc& loc) = 0;
  virtual void SetTail(int m, int n, int k, const SrcLoc& loc) = 0;
  virtual void SetTensorA(void* gm, uint64_t size, bool bounded, bool trans, const SrcLoc& loc) = 0;
  virtual void SetTensorB(void* gm, uint64_t size, bool bounded, bool trans, const SrcLoc& loc) = 0;
  virtual void SetBias(void* gm, uint64_t size, bool bounded, const SrcLoc& loc) = 0;
  virtual void ClearBias(const SrcLoc& loc) = 0;
  virtual bool Iterate(bool partial, const SrcLoc& loc) = 0;
  virtual void GetTensorC(void* gm, uint64_t size, bool bounded, uint8_t atomic, bool sequential,
                          const SrcLoc& loc) = 0;
  virtual void IterateAll(void* gm, uint64_t size, bool bounded, uint8_t atomic,
                          const SrcLoc& loc) = 0;
  virtual void End(const SrcLoc& loc) = 0;
  // True while the current client is inside an Iterate loop (See Note [Matmul sessions]).
  virtual bool Busy() const = 0;
};

// The AIV side: forwards calls to the group's AIC and waits for each to finish.
class MatmulClient {
 public:
  bool active() const { return active_; }
  // Registers with the group's mailbox. Fails on a launch without AICs (Matmul needs a mix
  // launch on an AIV) or for a second Matmul object on the same AIV.
  void Connect(const SrcLoc& loc);
  // Runs `fn` on the AIC's Matmul and waits; an error there is raised here with its message.
  template <typename Fn>
  void Call(MatmulRequest r, const SrcLoc& loc, Fn&& fn) {
    CallImpl(r, loc, std::function<void(MatmulServerApi&)>(std::forward<Fn>(fn)));
  }
  // Tells the server this client is done (never throws; used from destructors).
  void Quit() noexcept;

 private:
  void CallImpl(MatmulRequest r, const SrcLoc& loc, std::function<void(MatmulServerApi&)> fn);
  bool active_ = false;
  uint64_t launch_ = 0;
  int64_t group_ = 0;
  int64_t sub_ = 0;
};

// True on the AIC of a mix launch on a split chip (where REGIST_MATMUL_OBJ serves).
bool IsMixServer();
// Serves the group's clients until each AIV of the group has connected and quit.
void ServeMatmulRequests(MatmulServerApi& api, const SrcLoc& loc);

}  // namespace AscendC::detail
