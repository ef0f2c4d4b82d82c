// Phase 1 and phase 2 of a custom op project's aclnn entry point.
#include "aicore/ops/op_project/custom_op.h"

#include <cctype>
#include <cstring>
#include <memory>
#include <new>

#include "aicore/ops/aclnn/descriptors.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

namespace {

ge::DataType ToGe(aclDataType dt) {
  return dt == ACL_DT_UNDEFINED ? ge::DT_UNDEFINED : static_cast<ge::DataType>(dt);
}

std::string ShapeText(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

gert::Shape ToShape(const std::vector<int64_t>& d) {
  gert::Shape s;
  for (int64_t v : d) s.AppendDim(v);
  return s;
}

const char* AttrTypeName(::ops::OpAttrDef::Type t) {
  using T = ::ops::OpAttrDef::Type;
  switch (t) {
    case T::kBool:
      return "Bool";
    case T::kFloat:
      return "Float";
    case T::kInt:
      return "Int";
    case T::kString:
      return "String";
    case T::kListBool:
      return "ListBool";
    case T::kListFloat:
      return "ListFloat";
    case T::kListInt:
      return "ListInt";
    case T::kListListInt:
      return "ListListInt";
    case T::kUnset:
      break;
  }
  return "untyped";
}

// The variant index an attribute type is stored as (gert::AttrValue's order).
size_t AttrIndex(::ops::OpAttrDef::Type t) {
  using T = ::ops::OpAttrDef::Type;
  switch (t) {
    case T::kBool:
      return 0;
    case T::kInt:
      return 1;
    case T::kFloat:
      return 2;
    case T::kString:
      return 3;
    case T::kListBool:
      return 4;
    case T::kListInt:
      return 5;
    case T::kListFloat:
      return 6;
    case T::kListListInt:
      return 7;
    case T::kUnset:
      break;
  }
  return 99;
}

struct Param {
  const ::ops::OpParamDef* def;
  const aclTensor* tensor;  // nullptr: absent optional input
  bool output;
};

// Checks the dtypes and formats of the present tensors against the OpDef's lists: position-paired
// (one column j for every parameter) unless a parameter uses DataTypeList/FormatList.
std::string CheckCombinations(const std::vector<Param>& params) {
  size_t columns = 0;
  for (const Param& p : params) {
    if (!p.def->free_combination()) columns = std::max(columns, p.def->dtypes().size());
  }
  auto dtype_ok = [](const Param& p, size_t j) {
    const auto& dts = p.def->dtypes();
    if (dts.empty()) return true;
    if (p.def->free_combination()) {
      for (ge::DataType d : dts) {
        if (d == ToGe(p.tensor->dtype)) return true;
      }
      return false;
    }
    return j < dts.size() && dts[j] == ToGe(p.tensor->dtype);
  };
  auto format_ok = [](const Param& p, size_t j) {
    const auto& fs = p.def->formats();
    if (fs.empty()) return true;
    auto ok = [&](ge::Format f) {
      // FORMAT_ND accepts any label (torch_npu labels rank-3/4/5 tensors NCL/NCHW/NCDHW).
      return f == ge::FORMAT_ND || f == static_cast<ge::Format>(p.tensor->format);
    };
    if (p.def->free_combination()) {
      for (ge::Format f : fs) {
        if (ok(f)) return true;
      }
      return false;
    }
    return j < fs.size() && ok(fs[j]);
  };
  for (size_t j = 0; j < std::max<size_t>(columns, 1); ++j) {
    bool all = true;
    for (const Param& p : params) {
      if (p.tensor != nullptr && !(dtype_ok(p, j) && format_ok(p, j))) {
        all = false;
        break;
      }
    }
    if (all) return "";
  }
  std::string got, allowed;
  for (const Param& p : params) {
    if (p.tensor == nullptr) continue;
    got +=
        StrCat(got.empty() ? "" : ", ", p.def->name(), "=", ge::DataTypeName(ToGe(p.tensor->dtype)),
               "/", ge::FormatName(static_cast<ge::Format>(p.tensor->format)));
  }
  for (size_t j = 0; j < columns; ++j) {
    allowed += j ? "; " : "";
    bool first = true;
    for (const Param& p : params) {
      if (p.def->free_combination() || j >= p.def->dtypes().size()) continue;
      allowed +=
          StrCat(first ? "" : ", ", p.def->name(), "=", ge::DataTypeName(p.def->dtypes()[j]));
      first = false;
    }
  }
  return StrCat("the dtype/format combination (", got, ") is not one the OpDef declares (", allowed,
                ")");
}

struct AlignedFree {
  void operator()(uint8_t* p) const { ::operator delete(p, std::align_val_t(64)); }
};

}  // namespace

std::string OpTypeToFileName(const std::string& op_type) {
  std::string out;
  for (size_t i = 0; i < op_type.size(); ++i) {
    const char c = op_type[i];
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0) {
      const char prev = op_type[i - 1];
      const bool prev_lower_or_digit = std::islower(static_cast<unsigned char>(prev)) ||
                                       std::isdigit(static_cast<unsigned char>(prev));
      const bool prev_upper_next_lower = std::isupper(static_cast<unsigned char>(prev)) &&
                                         i + 1 < op_type.size() &&
                                         std::islower(static_cast<unsigned char>(op_type[i + 1]));
      if (prev_lower_or_digit || prev_upper_next_lower) out += '_';
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string ParamNameToCamel(const std::string& name) {
  std::string out;
  bool up = false;
  for (char c : name) {
    if (c == '_') {
      up = !out.empty();
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

aclnnStatus CustomOpGetWorkspaceSize(const char* api, const char* op_type,
                                     const CustomOpKernel& kernel,
                                     const std::vector<const aclTensor*>& inputs,
                                     const std::vector<const aclTensor*>& outputs,
                                     std::vector<std::optional<gert::AttrValue>> attrs,
                                     uint64_t* workspace_size, aclOpExecutor** executor) {
  if (workspace_size == nullptr)
    return Report(api, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize is null");
  if (executor == nullptr) return Report(api, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  const ::ops::OpDef* op = ::ops::OpDefRegistry::Find(op_type);
  if (op == nullptr) {
    return Report(
        api, ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
        StrCat("no OpDef is registered for ", op_type, " (is its op_host source linked?)"));
  }
  if (inputs.size() != op->inputs().size() || outputs.size() != op->outputs().size() ||
      attrs.size() != op->attrs().size()) {
    return Report(
        api, ACLNN_ERR_INNER,
        StrCat("the entry point passes ", inputs.size(), " inputs, ", outputs.size(),
               " outputs and ", attrs.size(), " attributes but OpDef ", op_type, " has ",
               op->inputs().size(), ", ", op->outputs().size(), " and ", op->attrs().size(),
               " (regenerate aclnn_", OpTypeToFileName(op_type), ")"));
  }
  // Tensors.
  std::vector<Param> params;
  for (size_t i = 0; i < inputs.size(); ++i)
    params.push_back({op->inputs()[i].get(), inputs[i], false});
  for (size_t i = 0; i < outputs.size(); ++i)
    params.push_back({op->outputs()[i].get(), outputs[i], true});
  for (const Param& p : params) {
    const std::string what = ParamNameToCamel(p.def->name()) + (p.output ? " (output)" : "");
    if (p.def->param_type() == ::ops::DYNAMIC) {
      return Report(api, ACLNN_ERR_PARAM_INVALID,
                    StrCat(what,
                           ": DYNAMIC (tensor-list) parameters are not supported by aicore's "
                           "op projects yet"));
    }
    if (p.tensor == nullptr && !p.output && p.def->param_type() == ::ops::OPTIONAL) continue;
    if (aclnnStatus s = CheckTensorArg(api, what.c_str(), p.tensor); s != ACLNN_SUCCESS) return s;
    if (p.tensor->NumElements() > 0 && !p.tensor->IsContiguous()) {
      return Report(api, ACLNN_ERR_PARAM_INVALID,
                    StrCat(what, " is not contiguous (view ", ShapeText(p.tensor->view_dims),
                           ", strides ", ShapeText(p.tensor->strides),
                           "); custom op kernels on aicore take contiguous tensors"));
    }
    if (p.tensor->data == nullptr && p.tensor->NumElements() > 0) {
      return Report(api, ACLNN_ERR_PARAM_NULLPTR, StrCat(what, " has no device data"));
    }
    if (p.output && p.def->init_value().has_value() && *p.def->init_value() != 0) {
      return Report(
          api, ACLNN_ERR_PARAM_INVALID,
          StrCat(what, ": InitValue(", *p.def->init_value(), ") is not supported (only 0)"));
    }
  }
  if (std::string why = CheckCombinations(params); !why.empty()) {
    return Report(api, ACLNN_ERR_PARAM_INVALID, why);
  }
  // Attributes.
  std::vector<gert::AttrValue> values;
  for (size_t i = 0; i < attrs.size(); ++i) {
    const ::ops::OpAttrDef& def = *op->attrs()[i];
    std::optional<gert::AttrValue> v = std::move(attrs[i]);
    if (!v.has_value()) v = def.default_value();
    if (!v.has_value()) {
      return Report(api, ACLNN_ERR_PARAM_INVALID,
                    StrCat("attribute ", def.name(), " is required and was not given"));
    }
    if (v->index() != AttrIndex(def.type())) {
      return Report(api, ACLNN_ERR_INNER,
                    StrCat("attribute ", def.name(), " is declared ", AttrTypeName(def.type()),
                           " but the entry point passes another type"));
    }
    values.push_back(std::move(*v));
  }
  // The contexts.
  auto make_io = [&]() {
    std::vector<gert::OpIoInfo::Io> in, out;
    for (const Param& p : params) {
      gert::OpIoInfo::Io io;
      if (p.tensor != nullptr) {
        io.present = true;
        const gert::Shape shape = ToShape(p.tensor->view_dims);
        io.shape = gert::StorageShape(shape, shape);
        io.desc = gert::CompileTimeTensorDesc(ToGe(p.tensor->dtype),
                                              static_cast<ge::Format>(p.tensor->format),
                                              static_cast<ge::Format>(p.tensor->format));
        void* first =
            p.tensor->data == nullptr
                ? nullptr
                : static_cast<uint8_t*>(p.tensor->data) +
                      p.tensor->offset * static_cast<int64_t>(AclDataTypeSize(p.tensor->dtype));
        io.tensor = gert::Tensor(io.shape, io.desc, first);
      }
      (p.output ? out : in).push_back(std::move(io));
    }
    return gert::OpIoInfo(op_type, std::move(in), std::move(out), values);
  };
  if (op->infer_shape() != nullptr) {
    gert::InferShapeContext ctx(make_io());
    ge::graphStatus rc = ge::GRAPH_FAILED;
    try {
      rc = op->infer_shape()(&ctx);
    } catch (const std::exception& e) {
      return Report(api, ACLNN_ERR_INNER_INFERSHAPE_ERROR, StrCat("InferShape threw: ", e.what()));
    }
    if (rc != ge::GRAPH_SUCCESS) {
      return Report(api, ACLNN_ERR_INNER_INFERSHAPE_ERROR, StrCat("InferShape returned ", rc));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const gert::Shape want = *ctx.GetOutputShape(i);
      const gert::Shape got = ToShape(outputs[i]->view_dims);
      if (want != got) {
        return Report(api, ACLNN_ERR_PARAM_INVALID,
                      StrCat("output ", ParamNameToCamel(op->outputs()[i]->name()), " has shape ",
                             got.ToString(), " but InferShape gives ", want.ToString()));
      }
    }
  }
  if (op->infer_dtype() != nullptr) {
    gert::InferDataTypeContext ctx(make_io());
    ge::graphStatus rc = ge::GRAPH_FAILED;
    try {
      rc = op->infer_dtype()(&ctx);
    } catch (const std::exception& e) {
      return Report(api, ACLNN_ERR_INNER_INFERSHAPE_ERROR,
                    StrCat("InferDataType threw: ", e.what()));
    }
    if (rc != ge::GRAPH_SUCCESS) {
      return Report(api, ACLNN_ERR_INNER_INFERSHAPE_ERROR, StrCat("InferDataType returned ", rc));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const ge::DataType want = ctx.GetOutputDataType(i);
      if (want != ge::DT_UNDEFINED && want != ToGe(outputs[i]->dtype)) {
        return Report(api, ACLNN_ERR_PARAM_INVALID,
                      StrCat("output ", ParamNameToCamel(op->outputs()[i]->name()), " is ",
                             ge::DataTypeName(ToGe(outputs[i]->dtype)), " but InferDataType gives ",
                             ge::DataTypeName(want)));
      }
    }
  }
  const ::ops::OP_TILING_FUNC tiling = op->aicore().tiling();
  if (tiling == nullptr) {
    return Report(api, ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                  StrCat("OpDef ", op_type, " has no tiling function (AICore().SetTiling)"));
  }
  auto ctx = std::make_unique<gert::TilingContext>(make_io(), kCustomOpTilingCapacity,
                                                   fe::PlatFormInfos{});
  ge::graphStatus rc = ge::GRAPH_FAILED;
  try {
    rc = tiling(ctx.get());
  } catch (const std::exception& e) {
    return Report(api, ACLNN_ERR_INNER_TILING_ERROR,
                  StrCat("the tiling function of ", op_type, " threw: ", e.what()));
  }
  if (rc != ge::GRAPH_SUCCESS) {
    return Report(
        api, ACLNN_ERR_INNER_TILING_ERROR,
        StrCat("the tiling function of ", op_type, " returned ", rc, " (not ge::GRAPH_SUCCESS)"));
  }
  const uint32_t block_dim = ctx->GetBlockDim();
  if (block_dim == 0 || block_dim > 65535) {
    return Report(api, ACLNN_ERR_INNER_TILING_ERROR,
                  StrCat("the tiling function of ", op_type, " set block dim ", block_dim,
                         "; SetBlockDim/SetSimdNumBlocks must give 1..65535"));
  }
  const gert::TilingData& td = *ctx->GetRawTilingData();
  if (td.GetDataSize() > td.GetCapacity()) {
    return Report(api, ACLNN_ERR_INNER_TILING_ERROR,
                  StrCat("the tiling function of ", op_type, " set a tiling data size of ",
                         td.GetDataSize(), " bytes; the capacity is ", td.GetCapacity()));
  }
  uint64_t ws = 0;
  for (size_t i = 0; i < ctx->GetWorkspaceNum(); ++i) ws += ctx->workspace_sizes()[i];

  auto* e = new aclOpExecutor();
  e->api = api;
  e->workspace_size = ws;
  std::vector<uint64_t> output_zero_bytes;
  for (const Param& p : params) {
    void* base = p.tensor ? p.tensor->data : nullptr;
    const int64_t off =
        p.tensor ? p.tensor->offset * static_cast<int64_t>(AclDataTypeSize(p.tensor->dtype)) : 0;
    if (p.output) {
      e->output_bases.push_back(base);
      e->output_byte_offsets.push_back(off);
      output_zero_bytes.push_back(p.def->init_value().has_value()
                                      ? p.tensor->NumElements() * AclDataTypeSize(p.tensor->dtype)
                                      : 0);
    } else {
      e->input_bases.push_back(base);
      e->input_byte_offsets.push_back(off);
    }
  }
  std::vector<uint8_t> tiling_bytes(static_cast<const uint8_t*>(td.GetData()),
                                    static_cast<const uint8_t*>(td.GetData()) + td.GetDataSize());
  const uint64_t key = ctx->GetTilingKey();
  e->run = [kernel, block_dim, key, tiling_bytes = std::move(tiling_bytes), output_zero_bytes](
               aclOpExecutor& self, void* workspace, aclrtStream stream) -> Status {
    for (size_t i = 0; i < self.output_bases.size(); ++i) {
      if (output_zero_bytes[i] == 0 || self.output_bases[i] == nullptr) continue;
      void* p = static_cast<uint8_t*>(self.output_bases[i]) + self.output_byte_offsets[i];
      if (aclrtMemsetAsync(p, output_zero_bytes[i], 0, output_zero_bytes[i], stream) !=
          ACL_SUCCESS) {
        return Status(StatusCode::kInvalidArgument,
                      StrCat("zeroing output ", i, " (InitValue) failed: ", aclGetRecentErrMsg()));
      }
    }
    // Each phase 2 gets its own GM copy of the tiling data, alive until the kernel has run.
    const size_t bytes = std::max<size_t>(tiling_bytes.size(), 8);
    std::shared_ptr<uint8_t> gm(static_cast<uint8_t*>(::operator new(bytes, std::align_val_t(64))),
                                AlignedFree());
    std::memset(gm.get(), 0, bytes);
    std::memcpy(gm.get(), tiling_bytes.data(), tiling_bytes.size());
    std::vector<uint8_t*> args;
    auto first = [](void* base, int64_t off) {
      return base == nullptr ? nullptr : static_cast<uint8_t*>(base) + off;
    };
    for (size_t i = 0; i < self.input_bases.size(); ++i) {
      args.push_back(first(self.input_bases[i], self.input_byte_offsets[i]));
    }
    for (size_t i = 0; i < self.output_bases.size(); ++i) {
      args.push_back(first(self.output_bases[i], self.output_byte_offsets[i]));
    }
    args.push_back(static_cast<uint8_t*>(workspace));
    args.push_back(gm.get());
    LaunchOptions options;
    options.mode = kernel.mode;
    options.tiling.key = key;
    options.tiling.data = gm.get();
    options.tiling.bytes = tiling_bytes.size();
    KernelEntry entry = kernel.entry;
    return rt::LaunchKernelAsync(stream, kernel.name, block_dim, options,
                                 [entry, args, gm] { entry(args.data()); });
  };
  *workspace_size = ws;
  *executor = AdoptExecutor(e);
  return ACLNN_SUCCESS;
}

aclnnStatus CustomOpRun(const char* api, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream) {
  return RunExecutor(api, workspace, workspace_size, executor, stream);
}

}  // namespace aicore::ops
