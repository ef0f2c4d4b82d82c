// gert shapes, attributes and contexts.
#include "aicore/ops/register/tiling_context.h"

#include <algorithm>

namespace gert {

Shape::Shape(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) AppendDim(d);
}

int64_t Shape::GetShapeSize() const {
  int64_t n = 1;
  for (size_t i = 0; i < dim_num_; ++i) n *= dims_[i];
  return n;
}

void Shape::SetDimNum(size_t n) {
  n = std::min(n, kMaxDimNum);
  for (size_t i = dim_num_; i < n; ++i) dims_[i] = 0;
  dim_num_ = n;
}

Shape& Shape::AppendDim(int64_t v) {
  if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
  return *this;
}

bool Shape::operator==(const Shape& o) const {
  return dim_num_ == o.dim_num_ && std::equal(dims_.begin(), dims_.begin() + dim_num_,
                                              o.dims_.begin());
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (size_t i = 0; i < dim_num_; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

RuntimeAttrs::RuntimeAttrs(std::vector<AttrValue> values) : values_(std::move(values)) {
  int_lists_.resize(values_.size());
  float_lists_.resize(values_.size());
  bool_lists_.resize(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) {
    if (const auto* v = std::get_if<std::vector<int64_t>>(&values_[i])) {
      int_lists_[i] = std::make_unique<TypedContinuousVector<int64_t>>(*v);
    } else if (const auto* f = std::get_if<std::vector<float>>(&values_[i])) {
      float_lists_[i] = std::make_unique<TypedContinuousVector<float>>(*f);
    } else if (const auto* b = std::get_if<std::vector<bool>>(&values_[i])) {
      bool_lists_[i] = std::make_unique<TypedContinuousVector<bool>>(*b);
    }
  }
}

OpIoInfo::OpIoInfo(std::string node_type, std::vector<Io> inputs, std::vector<Io> outputs,
                   std::vector<AttrValue> attrs)
    : node_type_(std::move(node_type)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      attrs_(std::make_unique<RuntimeAttrs>(std::move(attrs))) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].present) present_inputs_.push_back(i);
  }
}

const OpIoInfo::Io* OpIoInfo::Input(size_t i) const {
  return i < present_inputs_.size() ? &inputs_[present_inputs_[i]] : nullptr;
}
const OpIoInfo::Io* OpIoInfo::IrInput(size_t ir) const {
  return ir < inputs_.size() && inputs_[ir].present ? &inputs_[ir] : nullptr;
}
const OpIoInfo::Io* OpIoInfo::OutputIo(size_t i) const {
  return i < outputs_.size() ? &outputs_[i] : nullptr;
}

TilingContext::TilingContext(OpIoInfo io, size_t tiling_capacity, fe::PlatFormInfos platform)
    : OpIoInfo(std::move(io)), tiling_data_(tiling_capacity), platform_(platform) {}

const StorageShape* TilingContext::GetInputShape(size_t i) const {
  const Io* io = Input(i);
  return io ? &io->shape : nullptr;
}
const StorageShape* TilingContext::GetOutputShape(size_t i) const {
  const Io* io = OutputIo(i);
  return io ? &io->shape : nullptr;
}
const StorageShape* TilingContext::GetOptionalInputShape(size_t ir) const {
  const Io* io = IrInput(ir);
  return io ? &io->shape : nullptr;
}
const StorageShape* TilingContext::GetRequiredInputShape(size_t ir) const {
  return GetOptionalInputShape(ir);
}
const Tensor* TilingContext::GetInputTensor(size_t i) const {
  const Io* io = Input(i);
  return io ? &io->tensor : nullptr;
}
const Tensor* TilingContext::GetOptionalInputTensor(size_t ir) const {
  const Io* io = IrInput(ir);
  return io ? &io->tensor : nullptr;
}
const Tensor* TilingContext::GetRequiredInputTensor(size_t ir) const {
  return GetOptionalInputTensor(ir);
}
const CompileTimeTensorDesc* TilingContext::GetInputDesc(size_t i) const {
  const Io* io = Input(i);
  return io ? &io->desc : nullptr;
}
const CompileTimeTensorDesc* TilingContext::GetOptionalInputDesc(size_t ir) const {
  const Io* io = IrInput(ir);
  return io ? &io->desc : nullptr;
}
const CompileTimeTensorDesc* TilingContext::GetRequiredInputDesc(size_t ir) const {
  return GetOptionalInputDesc(ir);
}
const CompileTimeTensorDesc* TilingContext::GetOutputDesc(size_t i) const {
  const Io* io = OutputIo(i);
  return io ? &io->desc : nullptr;
}

size_t* TilingContext::GetWorkspaceSizes(size_t n) {
  if (n > workspace_sizes_.size()) return nullptr;
  workspace_num_ = std::max(workspace_num_, n);
  return workspace_sizes_.data();
}

InferShapeContext::InferShapeContext(OpIoInfo io) : OpIoInfo(std::move(io)) {
  out_shapes_.resize(outputs_.size());
}
const Shape* InferShapeContext::GetInputShape(size_t i) const {
  const Io* io = Input(i);
  return io ? &io->shape.GetOriginShape() : nullptr;
}
const Shape* InferShapeContext::GetOptionalInputShape(size_t ir) const {
  const Io* io = IrInput(ir);
  return io ? &io->shape.GetOriginShape() : nullptr;
}
const Shape* InferShapeContext::GetRequiredInputShape(size_t ir) const {
  return GetOptionalInputShape(ir);
}
const Tensor* InferShapeContext::GetInputTensor(size_t i) const {
  const Io* io = Input(i);
  return io ? &io->tensor : nullptr;
}
Shape* InferShapeContext::GetOutputShape(size_t i) {
  return i < out_shapes_.size() ? &out_shapes_[i] : nullptr;
}

InferDataTypeContext::InferDataTypeContext(OpIoInfo io) : OpIoInfo(std::move(io)) {
  out_dtypes_.assign(outputs_.size(), ge::DT_UNDEFINED);
}
ge::DataType InferDataTypeContext::GetInputDataType(size_t i) const {
  const Io* io = Input(i);
  return io ? io->desc.GetDataType() : ge::DT_UNDEFINED;
}
ge::DataType InferDataTypeContext::GetOptionalInputDataType(size_t ir) const {
  const Io* io = IrInput(ir);
  return io ? io->desc.GetDataType() : ge::DT_UNDEFINED;
}
ge::DataType InferDataTypeContext::GetRequiredInputDataType(size_t ir) const {
  return GetOptionalInputDataType(ir);
}
ge::DataType InferDataTypeContext::GetOutputDataType(size_t i) const {
  return i < out_dtypes_.size() ? out_dtypes_[i] : ge::DT_UNDEFINED;
}
ge::graphStatus InferDataTypeContext::SetOutputDataType(size_t i, ge::DataType dt) {
  if (i >= out_dtypes_.size()) return ge::GRAPH_FAILED;
  out_dtypes_[i] = dt;
  return ge::GRAPH_SUCCESS;
}

}  // namespace gert
