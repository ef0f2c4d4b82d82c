// The contexts an op project's host functions receive (namespace gert): Shape / StorageShape,
// CompileTimeTensorDesc, Tensor, RuntimeAttrs, TilingData, and TilingContext, InferShapeContext,
// InferDataTypeContext. aicore builds them from an aclnn call's tensors and attributes
// (aicore/ops/op_project/); see docs/op-projects.md for what each method supports.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "aicore/ops/register/graph_types.h"
#include "aicore/runtime/tiling/platform_ascendc.h"

namespace gert {

class Shape {
 public:
  static constexpr size_t kMaxDimNum = 25;
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);

  size_t GetDimNum() const { return dim_num_; }
  // Returns dim `i`, or 0 when i >= GetDimNum().
  int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : 0; }
  // Returns the element count: the product of the dims (1 for a scalar, 0 with any 0 dim).
  int64_t GetShapeSize() const;
  bool IsScalar() const { return dim_num_ == 0; }
  // Sets the rank (dims beyond the old rank become 0); ranks above kMaxDimNum are clamped.
  void SetDimNum(size_t n);
  // Sets dim `i` (ignored when i >= GetDimNum()).
  void SetDim(size_t i, int64_t v) {
    if (i < dim_num_) dims_[i] = v;
  }
  // Appends a dim (ignored at kMaxDimNum dims).
  Shape& AppendDim(int64_t v);
  const int64_t& operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  // "[2, 3, 4]".
  std::string ToString() const;

 private:
  std::array<int64_t, kMaxDimNum> dims_{};
  size_t dim_num_ = 0;
};

// The logical (origin) and physical (storage) shapes of a tensor.
class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}
  const Shape& GetOriginShape() const { return origin_; }
  const Shape& GetStorageShape() const { return storage_; }
  const Shape& GetShape() const { return origin_; }
  Shape& MutableOriginShape() { return origin_; }
  Shape& MutableStorageShape() { return storage_; }

 private:
  Shape origin_;
  Shape storage_;
};

// dtype and formats of an input or output.
class CompileTimeTensorDesc {
 public:
  CompileTimeTensorDesc() = default;
  CompileTimeTensorDesc(ge::DataType dt, ge::Format origin, ge::Format storage)
      : dtype_(dt), origin_format_(origin), storage_format_(storage) {}
  ge::DataType GetDataType() const { return dtype_; }
  ge::Format GetOriginFormat() const { return origin_format_; }
  ge::Format GetStorageFormat() const { return storage_format_; }

 private:
  ge::DataType dtype_ = ge::DT_UNDEFINED;
  ge::Format origin_format_ = ge::FORMAT_ND;
  ge::Format storage_format_ = ge::FORMAT_ND;
};

// A tensor as the host functions see it: shapes, dtype, formats and the device address of its
// first element (the data are on the device; read them only for ValueDepend inputs).
class Tensor {
 public:
  Tensor() = default;
  Tensor(const StorageShape& shape, const CompileTimeTensorDesc& desc, void* addr)
      : shape_(shape), desc_(desc), addr_(addr) {}
  int64_t GetShapeSize() const { return shape_.GetOriginShape().GetShapeSize(); }
  ge::DataType GetDataType() const { return desc_.GetDataType(); }
  ge::Format GetOriginFormat() const { return desc_.GetOriginFormat(); }
  ge::Format GetStorageFormat() const { return desc_.GetStorageFormat(); }
  const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
  const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
  const Shape& GetShape() const { return shape_.GetOriginShape(); }
  const StorageShape& GetStorageShapeInfo() const { return shape_; }
  void* GetAddr() const { return addr_; }
  template <typename T>
  const T* GetData() const { return static_cast<const T*>(addr_); }

 private:
  StorageShape shape_;
  CompileTimeTensorDesc desc_;
  void* addr_ = nullptr;
};

// A list attribute's values: contiguous, with a size.
template <typename T>
class TypedContinuousVector {
 public:
  TypedContinuousVector() = default;
  explicit TypedContinuousVector(const std::vector<T>& v) : size_(v.size()) {
    data_ = std::make_unique<T[]>(size_ == 0 ? 1 : size_);
    for (size_t i = 0; i < size_; ++i) data_[i] = v[i];
  }
  size_t GetSize() const { return size_; }
  size_t GetCapacity() const { return size_; }
  const T* GetData() const { return data_.get(); }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

// One attribute value, as the OpDef declares its type.
using AttrValue = std::variant<bool, int64_t, float, std::string, std::vector<bool>,
                               std::vector<int64_t>, std::vector<float>,
                               std::vector<std::vector<int64_t>>>;

// The op's attributes in OpDef declaration order.
class RuntimeAttrs {
 public:
  RuntimeAttrs() = default;
  explicit RuntimeAttrs(std::vector<AttrValue> values);
  RuntimeAttrs(const RuntimeAttrs&) = delete;
  RuntimeAttrs& operator=(const RuntimeAttrs&) = delete;

  size_t GetAttrNum() const { return values_.size(); }
  // Returns attribute `i` if it holds a T (bool, int64_t, float; char for a String attribute;
  // TypedContinuousVector<int64_t|float|bool> for a list), else nullptr.
  template <typename T>
  const T* GetAttrPointer(size_t i) const;
  const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
  const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
  const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
  const char* GetStr(size_t i) const { return GetAttrPointer<char>(i); }
  const TypedContinuousVector<int64_t>* GetListInt(size_t i) const {
    return GetAttrPointer<TypedContinuousVector<int64_t>>(i);
  }
  const TypedContinuousVector<float>* GetListFloat(size_t i) const {
    return GetAttrPointer<TypedContinuousVector<float>>(i);
  }
  const TypedContinuousVector<bool>* GetListBool(size_t i) const {
    return GetAttrPointer<TypedContinuousVector<bool>>(i);
  }
  const std::vector<AttrValue>& values() const { return values_; }

 private:
  std::vector<AttrValue> values_;
  std::vector<std::unique_ptr<TypedContinuousVector<int64_t>>> int_lists_;
  std::vector<std::unique_ptr<TypedContinuousVector<float>>> float_lists_;
  std::vector<std::unique_ptr<TypedContinuousVector<bool>>> bool_lists_;
};

template <typename T>
const T* RuntimeAttrs::GetAttrPointer(size_t i) const {
  if (i >= values_.size()) return nullptr;
  const AttrValue& v = values_[i];
  if constexpr (std::is_same_v<T, char>) {
    const auto* s = std::get_if<std::string>(&v);
    return s != nullptr ? s->c_str() : nullptr;
  } else if constexpr (std::is_same_v<T, TypedContinuousVector<int64_t>>) {
    return int_lists_[i].get();
  } else if constexpr (std::is_same_v<T, TypedContinuousVector<float>>) {
    return float_lists_[i].get();
  } else if constexpr (std::is_same_v<T, TypedContinuousVector<bool>>) {
    return bool_lists_[i].get();
  } else {
    return std::get_if<T>(&v);
  }
}

// The tiling function's output buffer (copied to the kernel's GM tiling argument).
class TilingData {
 public:
  explicit TilingData(size_t capacity) : buf_(capacity, 0) {}
  void* GetData() { return buf_.data(); }
  const void* GetData() const { return buf_.data(); }
  size_t GetCapacity() const { return buf_.size(); }
  size_t GetDataSize() const { return size_; }
  // Sets the bytes the tiling function wrote (values above the capacity are rejected later, by
  // the op runner, with the op named).
  void SetDataSize(size_t size) { size_ = size; }
  // Appends `v` at GetDataSize(); GRAPH_FAILED when it does not fit.
  template <typename T>
  ge::graphStatus Append(const T& v) {
    if (size_ + sizeof(T) > buf_.size()) return ge::GRAPH_FAILED;
    std::memcpy(buf_.data() + size_, &v, sizeof(T));
    size_ += sizeof(T);
    return ge::GRAPH_SUCCESS;
  }

 private:
  std::vector<uint8_t> buf_;
  size_t size_ = 0;
};

// What every context knows about the op's inputs and outputs. Inputs are indexed two ways, as in
// CANN: GetInputX(i) counts only the inputs present, GetOptionalInputX(ir) / GetRequiredInputX(ir)
// take the OpDef's input index (an absent optional input gives nullptr).
class OpIoInfo {
 public:
  struct Io {
    bool present = false;
    StorageShape shape;
    CompileTimeTensorDesc desc;
    Tensor tensor;
  };
  OpIoInfo() = default;
  OpIoInfo(std::string node_type, std::vector<Io> inputs, std::vector<Io> outputs,
           std::vector<AttrValue> attrs);

  const char* GetNodeType() const { return node_type_.c_str(); }
  const char* GetNodeName() const { return node_type_.c_str(); }
  size_t GetComputeNodeInputNum() const { return present_inputs_.size(); }
  size_t GetComputeNodeOutputNum() const { return outputs_.size(); }
  const RuntimeAttrs* GetAttrs() const { return attrs_.get(); }

 protected:
  const Io* Input(size_t i) const;
  const Io* IrInput(size_t ir) const;
  const Io* OutputIo(size_t i) const;
  std::string node_type_;
  std::vector<Io> inputs_;  // by IR index
  std::vector<size_t> present_inputs_;
  std::vector<Io> outputs_;
  std::unique_ptr<RuntimeAttrs> attrs_;
};

class TilingContext : public OpIoInfo {
 public:
  // `tiling_capacity`: the bytes GetRawTilingData() offers; `platform`: the chip.
  TilingContext(OpIoInfo io, size_t tiling_capacity, fe::PlatFormInfos platform);

  const StorageShape* GetInputShape(size_t i) const;
  const StorageShape* GetOutputShape(size_t i) const;
  const StorageShape* GetOptionalInputShape(size_t ir) const;
  const StorageShape* GetRequiredInputShape(size_t ir) const;
  const Tensor* GetInputTensor(size_t i) const;
  const Tensor* GetOptionalInputTensor(size_t ir) const;
  const Tensor* GetRequiredInputTensor(size_t ir) const;
  const CompileTimeTensorDesc* GetInputDesc(size_t i) const;
  const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const;
  const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const;
  const CompileTimeTensorDesc* GetOutputDesc(size_t i) const;

  ge::graphStatus SetTilingKey(uint64_t key) {
    tiling_key_ = key;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const { return tiling_key_; }
  ge::graphStatus SetSimdNumBlocks(uint32_t n) {
    block_dim_ = n;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetSimdNumBlocks() const { return block_dim_; }
  // The older name of SetSimdNumBlocks.
  ge::graphStatus SetBlockDim(uint32_t n) { return SetSimdNumBlocks(n); }
  uint32_t GetBlockDim() const { return block_dim_; }
  ge::graphStatus SetNeedAtomic(bool atomic) {
    need_atomic_ = atomic;
    return ge::GRAPH_SUCCESS;
  }
  bool NeedAtomic() const { return need_atomic_; }
  ge::graphStatus SetTilingCond(int32_t cond) {
    tiling_cond_ = cond;
    return ge::GRAPH_SUCCESS;
  }
  int32_t GetTilingCond() const { return tiling_cond_; }
  ge::graphStatus SetScheduleMode(uint32_t mode) {
    schedule_mode_ = mode;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetScheduleMode() const { return schedule_mode_; }

  // Returns room for `n` workspace sizes (bytes; the op runner sums them), or nullptr for n > 16.
  size_t* GetWorkspaceSizes(size_t n);
  size_t GetWorkspaceNum() const { return workspace_num_; }
  const size_t* workspace_sizes() const { return workspace_sizes_.data(); }

  TilingData* GetRawTilingData() { return &tiling_data_; }
  const TilingData* GetRawTilingData() const { return &tiling_data_; }
  // Returns the tiling buffer as a T (zeroed, data size set to sizeof(T)), or nullptr when T does
  // not fit the capacity.
  template <typename T>
  T* GetTilingData() {
    if (sizeof(T) > tiling_data_.GetCapacity()) return nullptr;
    std::memset(tiling_data_.GetData(), 0, sizeof(T));
    tiling_data_.SetDataSize(sizeof(T));
    return static_cast<T*>(tiling_data_.GetData());
  }

  fe::PlatFormInfos* GetPlatformInfo() { return &platform_; }

 private:
  TilingData tiling_data_;
  fe::PlatFormInfos platform_;
  uint64_t tiling_key_ = 0;
  uint32_t block_dim_ = 0;
  bool need_atomic_ = false;
  int32_t tiling_cond_ = 0;
  uint32_t schedule_mode_ = 0;
  std::array<size_t, 16> workspace_sizes_{};
  size_t workspace_num_ = 0;
};

class InferShapeContext : public OpIoInfo {
 public:
  explicit InferShapeContext(OpIoInfo io);
  const Shape* GetInputShape(size_t i) const;
  const Shape* GetOptionalInputShape(size_t ir) const;
  const Shape* GetRequiredInputShape(size_t ir) const;
  const Tensor* GetInputTensor(size_t i) const;
  Shape* GetOutputShape(size_t i);

 private:
  std::vector<Shape> out_shapes_;
};

class InferDataTypeContext : public OpIoInfo {
 public:
  explicit InferDataTypeContext(OpIoInfo io);
  ge::DataType GetInputDataType(size_t i) const;
  ge::DataType GetOptionalInputDataType(size_t ir) const;
  ge::DataType GetRequiredInputDataType(size_t ir) const;
  ge::DataType GetOutputDataType(size_t i) const;
  ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt);

 private:
  std::vector<ge::DataType> out_dtypes_;
};

}  // namespace gert
