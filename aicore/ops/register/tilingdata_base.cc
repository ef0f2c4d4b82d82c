// optiling::TilingDef: field placement, the own/bound buffer, SaveToBuffer; the class factory.
#include "aicore/ops/register/tilingdata_base.h"

#include "aicore/core/log.h"

namespace optiling {

namespace {
size_t RoundUp(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace

TilingDef::TilingDef(const TilingDef& other)
    : class_name_(other.class_name_),
      fields_(other.fields_),
      own_(other.own_),
      end_(other.end_),
      data_size_(other.data_size_) {
  data_ptr_ = other.data_ptr_ == other.own_.data() ? own_.data() : other.data_ptr_;
}

TilingDef& TilingDef::operator=(const TilingDef& other) {
  if (this == &other) return *this;
  // Same class (the generated operator= of the derived class): copy the values.
  if (data_size_ == other.data_size_ && data_ptr_ != nullptr) {
    std::memcpy(data_ptr_, other.data_ptr_, data_size_);
  }
  return *this;
}

size_t TilingDef::Place(TilingFieldInfo f, size_t align) {
  f.offset = RoundUp(end_, align);
  end_ = f.offset + f.elem_size * f.count;
  own_.resize(RoundUp(end_, 8), 0);
  data_ptr_ = own_.data();
  fields_.push_back(std::move(f));
  return fields_.back().offset;
}

size_t TilingDef::AddField(const char* name, const char* type, size_t elem_size, size_t count) {
  TilingFieldInfo f;
  f.name = name;
  f.type = type;
  f.kind = count == 1 ? TilingFieldInfo::Kind::kScalar : TilingFieldInfo::Kind::kArray;
  f.elem_size = elem_size;
  f.count = count;
  // TILING_DATA_FIELD_DEF_ARR with one element is still an array.
  return Place(std::move(f), elem_size);
}

void TilingDef::InitTilingDef(const char* class_name) {
  class_name_ = class_name;
  data_size_ = RoundUp(end_, 8);
  own_.resize(data_size_, 0);
  data_ptr_ = own_.data();
}

void TilingDef::SetDataPtr(void* data_ptr) {
  data_ptr_ = data_ptr != nullptr ? static_cast<uint8_t*>(data_ptr) : own_.data();
}

void TilingDef::SaveToBuffer(void* pdata, size_t capacity) const {
  if (pdata == nullptr || capacity < data_size_) {
    AICORE_LOG(kError) << "optiling::" << class_name_ << "::SaveToBuffer: the buffer ("
                       << (pdata == nullptr ? "null" : "") << capacity << " bytes) is smaller "
                       << "than the tiling data (" << data_size_ << " bytes); nothing written";
    return;
  }
  auto* dst = static_cast<uint8_t*>(pdata);
  std::memcpy(dst, data_ptr_, data_size_);
  for (const TilingFieldInfo& f : fields_) {
    if (f.kind != TilingFieldInfo::Kind::kStruct) continue;
    const void* obj = reinterpret_cast<const char*>(this) + f.member_delta;
    f.save(obj, dst + f.offset, f.elem_size);
  }
}

CTilingDataClassFactory& CTilingDataClassFactory::GetInstance() {
  static auto* factory = new CTilingDataClassFactory();
  return *factory;
}

void CTilingDataClassFactory::RegisterTilingData(const char* op_type, const Creator& creator) {
  creators_[op_type] = creator;
}

std::shared_ptr<TilingDef> CTilingDataClassFactory::CreateTilingDataInstance(
    const char* op_type) {
  auto it = creators_.find(op_type);
  if (it == creators_.end()) return nullptr;
  return it->second();
}

std::vector<std::string> CTilingDataClassFactory::RegisteredNames() const {
  std::vector<std::string> names;
  for (const auto& [name, creator] : creators_) names.push_back(name);
  return names;
}

}  // namespace optiling
