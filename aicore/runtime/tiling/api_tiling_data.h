// The host classes of the high-level APIs' tiling structs (CANN's optiling::SoftMaxTiling,
// LayerNormTiling, ... declared with BEGIN_TILING_DATA_DEF there): each is the kernel's POD
// (AscendC::tiling::X, which the tiling functions fill) plus the set_<field> / get_<field>
// accessors, GetDataSize and SaveToBuffer of a tiling-data class, so it can be a
// TILING_DATA_FIELD_DEF_STRUCT field and be passed to the documented tiling functions.
//
// Layout: SaveToBuffer writes the POD as the kernel declares it (4-byte fields in order, no
// padding), so a kernel struct embedding the POD reads what the host macro class saved.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "aicore/core/log.h"
#include "aicore/kernel/lib/activation/softmax_utils.h"
#include "aicore/kernel/lib/normalization/norm_utils.h"

namespace optiling {

// The part every such class shares: the POD, its size and its serialisation.
template <typename Pod>
struct ApiTilingData : Pod {
  // Returns the bytes SaveToBuffer writes (the POD's size).
  size_t GetDataSize() const { return sizeof(Pod); }
  // Copies the POD to `buf`; copies nothing and logs an error when `buf` is null or `cap` is
  // smaller than GetDataSize().
  void SaveToBuffer(void* buf, size_t cap) const {
    if (buf == nullptr || cap < sizeof(Pod)) {
      AICORE_LOG(kError) << "optiling tiling struct SaveToBuffer: the buffer ("
                         << (buf == nullptr ? "null, " : "") << cap
                         << " bytes) is smaller than the struct (" << sizeof(Pod)
                         << " bytes); nothing written";
      return;
    }
    std::memcpy(buf, static_cast<const Pod*>(this), sizeof(Pod));
  }
};

#define AICORE_API_TILING_ACCESSOR(type, f)    \
  void set_##f(type v) { this->f = v; }        \
  type get_##f() const { return this->f; }

// Declares optiling::Name over AscendC::tiling::Name with the accessors of FIELDS(X), and checks
// that FIELDS lists every byte of the POD.
#define AICORE_API_TILING_CLASS(Name, FIELDS, header)                                         \
  struct Name : ApiTilingData<AscendC::tiling::Name> {                                        \
    /* The kernel-side type and its header, for the tiling-data header generator. */           \
    static constexpr const char* kKernelType = "AscendC::tiling::" #Name;                     \
    static constexpr const char* kKernelHeader = header;                                      \
    FIELDS(AICORE_API_TILING_ACCESSOR)                                                         \
  };                                                                                           \
  static_assert(sizeof(AscendC::tiling::Name) == 0 FIELDS(AICORE_API_TILING_SIZE),            \
                #Name ": the accessor list must cover every field of the kernel struct");
#define AICORE_API_TILING_SIZE(type, f) +sizeof(type)

#define AICORE_SOFTMAX_TILING_FIELDS(X)                                                       \
  X(uint32_t, srcM) X(uint32_t, srcK) X(uint32_t, srcSize) X(uint32_t, outMaxM)               \
  X(uint32_t, outMaxK) X(uint32_t, outMaxSize) X(uint32_t, splitM) X(uint32_t, splitK)        \
  X(uint32_t, splitSize) X(uint32_t, reduceM) X(uint32_t, reduceK) X(uint32_t, reduceSize)    \
  X(uint32_t, rangeM) X(uint32_t, tailM) X(uint32_t, tailSplitSize) X(uint32_t, tailReduceSize)

#define AICORE_LAYERNORM_TILING_FIELDS(X)                                                     \
  X(uint32_t, bLength) X(uint32_t, sLength) X(uint32_t, hLength) X(uint32_t, originalHLength) \
  X(uint32_t, inputXSize) X(uint32_t, meanVarSize) X(uint32_t, numberOfTmpBuf)                \
  X(uint32_t, meanTmpTensorPos) X(uint32_t, meanTmpTensorSize)                                \
  X(uint32_t, varianceTmpTensorPos) X(uint32_t, varianceTmpTensorSize)                        \
  X(uint32_t, tmpBufSize) X(uint32_t, oneTmpSize) X(uint32_t, firstTmpStartPos)               \
  X(uint32_t, secondTmpStartPos) X(uint32_t, thirdTmpStartPos) X(uint32_t, loopRound)         \
  X(uint32_t, inputRoundSize) X(uint32_t, inputTailSize) X(uint32_t, inputTailPos)            \
  X(uint32_t, meanVarRoundSize) X(uint32_t, meanVarTailSize) X(uint32_t, meanVarTailPos)      \
  X(uint32_t, bshCurLength) X(uint32_t, bsCurLength) X(float, lastDimValueBack)

#define AICORE_LAYERNORM_SEPARATE_TILING_FIELDS(X)                                            \
  X(uint32_t, aLength) X(uint32_t, rLength) X(uint32_t, halfAddRepeatTimes)                   \
  X(uint32_t, rHeadLength) X(float, k2Rec) X(float, k2RRec) X(uint32_t, inputXSize)           \
  X(uint32_t, meanVarSize) X(uint32_t, numberOfTmpBuf) X(uint32_t, varianceTmpTensorPos)      \
  X(uint32_t, varianceTmpTensorSize) X(uint32_t, tmpBufSize) X(uint32_t, oneTmpSize)          \
  X(uint32_t, firstTmpStartPos) X(uint32_t, secondTmpStartPos) X(uint32_t, thirdTmpStartPos)  \
  X(uint32_t, loopRound) X(uint32_t, inputRoundSize) X(uint32_t, inputTailSize)               \
  X(uint32_t, inputTailPos) X(uint32_t, meanVarRoundSize) X(uint32_t, meanVarTailSize)        \
  X(uint32_t, meanVarTailPos) X(uint32_t, arCurLength) X(uint32_t, aCurLength)                \
  X(float, rValueBack)

#define AICORE_RMSNORM_TILING_FIELDS(X)                                                       \
  X(uint32_t, bLength) X(uint32_t, sLength) X(uint32_t, hLength) X(uint32_t, originalHLength) \
  X(float, reciprocalOfHLength) X(uint32_t, mainBshLength) X(uint32_t, mainBsLength)          \
  X(uint32_t, mainBsLengthAlign) X(uint32_t, loopRound) X(uint32_t, inputTailPos)             \
  X(uint32_t, tailBshLength) X(uint32_t, tailBsLength)

#define AICORE_LAYERNORM_GRAD_TILING_FIELDS(X)                                                \
  X(uint32_t, stackBufferSize) X(uint32_t, bLength) X(uint32_t, sLength) X(uint32_t, hLength) \
  X(uint32_t, originalHLength) X(uint32_t, oneCalSize) X(uint32_t, nohCalSize)                \
  X(uint32_t, loopNum) X(uint32_t, tailSize) X(uint32_t, nohTailSize)                         \
  X(uint32_t, tmpTensorBSHPos) X(uint32_t, tmpTensorBSHSize) X(uint32_t, pdVarTensorPos)      \
  X(uint32_t, pdVarTensorSize) X(uint32_t, pdMeanTensorPos) X(uint32_t, pdMeanTensorSize)     \
  X(uint32_t, x1TensorPos) X(uint32_t, x1TensorSize) X(uint32_t, x2TensorPos)                 \
  X(uint32_t, x2TensorSize) X(uint32_t, x3TensorPos) X(uint32_t, x3TensorSize)                \
  X(uint32_t, tmpTensorPos) X(uint32_t, tmpTensorSize) X(uint32_t, tmpTensor1Pos)             \
  X(uint32_t, tmpTensor1Size) X(uint32_t, tmpTensor2Pos) X(uint32_t, tmpTensor2Size)          \
  X(uint32_t, lastDimValueBack) X(uint32_t, lastDimValueBackMulTwo)

#define AICORE_LAYERNORM_GRAD_BETA_TILING_FIELDS(X)                                           \
  X(uint32_t, stackBufferSize) X(uint32_t, bLength) X(uint32_t, sLength) X(uint32_t, hLength) \
  X(uint32_t, originalHLength) X(uint32_t, bshLength) X(uint32_t, bsLength)                   \
  X(uint32_t, oneCalSize) X(uint32_t, numberOfTmpBuf) X(uint32_t, loopRound)                  \
  X(uint32_t, inputTailSize) X(uint32_t, inputTailPos) X(uint32_t, bsTailSize)                \
  X(uint32_t, bshCurLength) X(uint32_t, bsCurLength) X(uint32_t, gammaTempTensorPos)          \
  X(uint32_t, betaTempTensorPos) X(uint32_t, inputDyTmpTensorPos)                             \
  X(uint32_t, resForGammaTmpTensorPos) X(uint32_t, reserved)

#define AICORE_SOFTMAX_HEADER "aicore/kernel/lib/activation/softmax_utils.h"
#define AICORE_NORM_HEADER "aicore/kernel/lib/normalization/norm_utils.h"
AICORE_API_TILING_CLASS(SoftMaxTiling, AICORE_SOFTMAX_TILING_FIELDS, AICORE_SOFTMAX_HEADER)
AICORE_API_TILING_CLASS(LogSoftMaxTiling, AICORE_SOFTMAX_TILING_FIELDS, AICORE_SOFTMAX_HEADER)
AICORE_API_TILING_CLASS(LayerNormTiling, AICORE_LAYERNORM_TILING_FIELDS, AICORE_NORM_HEADER)
AICORE_API_TILING_CLASS(LayerNormSeparateTiling, AICORE_LAYERNORM_SEPARATE_TILING_FIELDS,
                        AICORE_NORM_HEADER)
AICORE_API_TILING_CLASS(RmsNormTiling, AICORE_RMSNORM_TILING_FIELDS, AICORE_NORM_HEADER)
AICORE_API_TILING_CLASS(LayerNormGradTiling, AICORE_LAYERNORM_GRAD_TILING_FIELDS,
                        AICORE_NORM_HEADER)
AICORE_API_TILING_CLASS(LayerNormGradBetaTiling, AICORE_LAYERNORM_GRAD_BETA_TILING_FIELDS,
                        AICORE_NORM_HEADER)
#undef AICORE_SOFTMAX_HEADER
#undef AICORE_NORM_HEADER

#undef AICORE_API_TILING_CLASS
#undef AICORE_API_TILING_SIZE
#undef AICORE_API_TILING_ACCESSOR

}  // namespace optiling
