// Operator prototypes (namespace ops): class X : public OpDef { ... }; OP_ADD(X); declares the
// op's inputs, outputs and attributes (in the order the aclnn entry point and the kernel take
// them), its InferShape / InferDataType functions and its AI Core tiling function. OP_ADD
// registers a factory; OpDefRegistry::Create(type) makes the op's OpDef.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aicore/ops/register/graph_types.h"
#include "aicore/ops/register/tiling_context.h"

namespace ops {

// Parameter and attribute kinds.
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

using OP_TILING_FUNC = ge::graphStatus (*)(gert::TilingContext*);
using InferShapeFunc = ge::graphStatus (*)(gert::InferShapeContext*);
using InferDataTypeFunc = ge::graphStatus (*)(gert::InferDataTypeContext*);

class OpParamDef {
 public:
  explicit OpParamDef(const char* name) : name_(name) {}
  OpParamDef& ParamType(Option type) {
    param_type_ = type;
    return *this;
  }
  // Supported dtypes, position-paired with Format().
  OpParamDef& DataType(std::vector<ge::DataType> types) {
    dtypes_ = std::move(types);
    return *this;
  }
  OpParamDef& DataTypeList(std::vector<ge::DataType> types) {
    dtypes_ = std::move(types);
    free_combination_ = true;
    return *this;
  }
  OpParamDef& Format(std::vector<ge::Format> formats) {
    formats_ = std::move(formats);
    return *this;
  }
  OpParamDef& FormatList(std::vector<ge::Format> formats) {
    formats_ = std::move(formats);
    free_combination_ = true;
    return *this;
  }
  // Deprecated in CANN; accepted and ignored.
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) {
    (void)formats;
    return *this;
  }
  // The tiling function may read this input's data (it is a device pointer in aicore's GM,
  // readable from the host).
  OpParamDef& ValueDepend(Option depend) {
    value_depend_ = depend;
    return *this;
  }
  // Outputs: fill with `value` (as bytes of zero when 0) before the kernel runs.
  OpParamDef& InitValue(uint64_t value) {
    init_value_ = value;
    return *this;
  }
  OpParamDef& AutoContiguous() {
    auto_contiguous_ = true;
    return *this;
  }
  OpParamDef& IgnoreContiguous() {
    ignore_contiguous_ = true;
    return *this;
  }
  OpParamDef& Version(uint32_t version) {
    version_ = version;
    return *this;
  }

  // --- aicore internals ---
  const std::string& name() const { return name_; }
  Option param_type() const { return param_type_; }
  const std::vector<ge::DataType>& dtypes() const { return dtypes_; }
  const std::vector<ge::Format>& formats() const { return formats_; }
  bool free_combination() const { return free_combination_; }
  std::optional<uint64_t> init_value() const { return init_value_; }
  bool ignore_contiguous() const { return ignore_contiguous_; }

 private:
  std::string name_;
  Option param_type_ = REQUIRED;
  std::vector<ge::DataType> dtypes_;
  std::vector<ge::Format> formats_;
  bool free_combination_ = false;
  Option value_depend_ = IGNORE;
  std::optional<uint64_t> init_value_;
  bool auto_contiguous_ = false;
  bool ignore_contiguous_ = false;
  uint32_t version_ = 0;
};

class OpAttrDef {
 public:
  enum class Type { kUnset, kBool, kFloat, kInt, kString, kListBool, kListFloat, kListInt,
                    kListListInt };
  explicit OpAttrDef(const char* name) : name_(name) {}
  OpAttrDef& AttrType(Option type) {
    attr_type_ = type;
    return *this;
  }
  OpAttrDef& Bool() { return SetType(Type::kBool); }
  OpAttrDef& Bool(bool v) { return SetDefault(Type::kBool, v); }
  OpAttrDef& Float() { return SetType(Type::kFloat); }
  OpAttrDef& Float(float v) { return SetDefault(Type::kFloat, v); }
  OpAttrDef& Int() { return SetType(Type::kInt); }
  OpAttrDef& Int(int64_t v) { return SetDefault(Type::kInt, v); }
  OpAttrDef& String() { return SetType(Type::kString); }
  OpAttrDef& String(const char* v) { return SetDefault(Type::kString, std::string(v)); }
  OpAttrDef& ListBool() { return SetType(Type::kListBool); }
  OpAttrDef& ListBool(std::vector<bool> v) { return SetDefault(Type::kListBool, std::move(v)); }
  OpAttrDef& ListFloat() { return SetType(Type::kListFloat); }
  OpAttrDef& ListFloat(std::vector<float> v) {
    return SetDefault(Type::kListFloat, std::move(v));
  }
  OpAttrDef& ListInt() { return SetType(Type::kListInt); }
  OpAttrDef& ListInt(std::vector<int64_t> v) { return SetDefault(Type::kListInt, std::move(v)); }
  OpAttrDef& ListListInt() { return SetType(Type::kListListInt); }
  OpAttrDef& ListListInt(std::vector<std::vector<int64_t>> v) {
    return SetDefault(Type::kListListInt, std::move(v));
  }
  OpAttrDef& Version(uint32_t version) {
    version_ = version;
    return *this;
  }

  // --- aicore internals ---
  const std::string& name() const { return name_; }
  Option attr_type() const { return attr_type_; }
  Type type() const { return type_; }
  const std::optional<gert::AttrValue>& default_value() const { return default_; }

 private:
  OpAttrDef& SetType(Type t) {
    type_ = t;
    return *this;
  }
  OpAttrDef& SetDefault(Type t, gert::AttrValue v) {
    type_ = t;
    default_.emplace(std::move(v));
    return *this;
  }
  std::string name_;
  Option attr_type_ = REQUIRED;
  Type type_ = Type::kUnset;
  std::optional<gert::AttrValue> default_;
  uint32_t version_ = 0;
};

// Per-SoC settings of AddConfig(soc, config); aicore records the flags and ignores them.
class OpAICoreConfig {
 public:
  OpAICoreConfig() = default;
  OpAICoreConfig& DynamicCompileStaticFlag(bool f) { return Flag(f); }
  OpAICoreConfig& DynamicFormatFlag(bool f) { return Flag(f); }
  OpAICoreConfig& DynamicRankSupportFlag(bool f) { return Flag(f); }
  OpAICoreConfig& DynamicShapeSupportFlag(bool f) { return Flag(f); }
  OpAICoreConfig& NeedCheckSupportFlag(bool f) { return Flag(f); }
  OpAICoreConfig& PrecisionReduceFlag(bool f) { return Flag(f); }

 private:
  OpAICoreConfig& Flag(bool f) {
    (void)f;
    return *this;
  }
};

class OpAICoreDef {
 public:
  OpAICoreDef& SetTiling(OP_TILING_FUNC func) {
    tiling_ = func;
    return *this;
  }
  // Declares a SoC the op supports ("ascend910b", ...); aicore runs the op on any chip preset.
  OpAICoreDef& AddConfig(const char* soc) {
    socs_.emplace_back(soc);
    return *this;
  }
  OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& config) {
    (void)config;
    return AddConfig(soc);
  }

  // --- aicore internals ---
  OP_TILING_FUNC tiling() const { return tiling_; }
  const std::vector<std::string>& socs() const { return socs_; }

 private:
  OP_TILING_FUNC tiling_ = nullptr;
  std::vector<std::string> socs_;
};

class OpDef {
 public:
  explicit OpDef(const char* type) : type_(type) {}
  virtual ~OpDef() = default;
  OpDef(const OpDef&) = delete;
  OpDef& operator=(const OpDef&) = delete;

  OpParamDef& Input(const char* name);
  OpParamDef& Output(const char* name);
  OpAttrDef& Attr(const char* name);
  OpDef& SetInferShape(InferShapeFunc func) {
    infer_shape_ = func;
    return *this;
  }
  OpDef& SetInferDataType(InferDataTypeFunc func) {
    infer_dtype_ = func;
    return *this;
  }
  OpAICoreDef& AICore() { return aicore_; }

  // --- aicore internals ---
  const std::string& type() const { return type_; }
  const std::vector<std::unique_ptr<OpParamDef>>& inputs() const { return inputs_; }
  const std::vector<std::unique_ptr<OpParamDef>>& outputs() const { return outputs_; }
  const std::vector<std::unique_ptr<OpAttrDef>>& attrs() const { return attrs_; }
  InferShapeFunc infer_shape() const { return infer_shape_; }
  InferDataTypeFunc infer_dtype() const { return infer_dtype_; }
  const OpAICoreDef& aicore() const { return aicore_; }

 private:
  std::string type_;
  std::vector<std::unique_ptr<OpParamDef>> inputs_;
  std::vector<std::unique_ptr<OpParamDef>> outputs_;
  std::vector<std::unique_ptr<OpAttrDef>> attrs_;
  InferShapeFunc infer_shape_ = nullptr;
  InferDataTypeFunc infer_dtype_ = nullptr;
  OpAICoreDef aicore_;
};

// The ops OP_ADD registered, by OpType.
class OpDefRegistry {
 public:
  using Factory = std::function<std::unique_ptr<OpDef>()>;
  static void Register(const char* type, Factory factory);
  // Returns the OpDef of `type` (built once, then shared), or nullptr when not registered.
  static const OpDef* Find(const std::string& type);
  // Returns every registered OpType (sorted).
  static std::vector<std::string> Types();
};

struct OpDefRegistrar {
  OpDefRegistrar(const char* type, OpDefRegistry::Factory factory) {
    OpDefRegistry::Register(type, std::move(factory));
  }
};

}  // namespace ops

// Registers op class `op_type` (a subclass of ops::OpDef in namespace ops) under its name.
#define OP_ADD(op_type, ...)                                                                \
  [[maybe_unused]] static ::ops::OpDefRegistrar g_aicore_op_registrar_##op_type(            \
      #op_type, []() -> std::unique_ptr<::ops::OpDef> {                                     \
        return std::make_unique<op_type>(#op_type);                                         \
      })
