// Host tiling-data classes in CANN's macro form ("register/tilingdata_base.h", namespace
// optiling): BEGIN_TILING_DATA_DEF(Name) ... TILING_DATA_FIELD_DEF(type, f) ...
// END_TILING_DATA_DEF; defines class Name with set_f / get_f over a byte buffer laid out as the
// kernel reads it, and REGISTER_TILING_DATA_CLASS(OpType, Name) makes it the op's tiling data.
//
// TILING_DATA_FIELD_DEF_STRUCT takes another such class, optiling::TCubeTiling, or one of the
// high-level APIs' tiling structs (optiling::SoftMaxTiling, LayerNormTiling, ...:
// runtime/tiling/api_tiling_data.h, which "tiling/tiling_api.h" brings).
//
// Layout (what SaveToBuffer writes, and what the generated kernel struct reproduces): fields in
// declaration order; a scalar or array field starts at a multiple of its element size, a nested
// struct field at a multiple of 8, padding bytes are zero; GetDataSize() is the end of the last
// field rounded up to 8. A nested struct occupies its own GetDataSize() bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace optiling {

// One field of a tiling-data class, for SaveToBuffer and the kernel-struct generator.
struct TilingFieldInfo {
  enum class Kind { kScalar, kArray, kStruct };
  std::string name;
  std::string type;      // the C++ type as written in the macro
  Kind kind = Kind::kScalar;
  size_t offset = 0;     // bytes from the start of the class's data
  size_t elem_size = 0;  // scalar/array: sizeof(type); struct: its GetDataSize()
  size_t count = 1;      // array length (1 otherwise)
  // kStruct: the nested object's address relative to the owning class object.
  ptrdiff_t member_delta = 0;
  // kStruct: writes the nested object at `obj` to `dst` (capacity `cap`).
  void (*save)(const void* obj, void* dst, size_t cap) = nullptr;
  // kStruct: the nested object as a TilingDef (nullptr for other structs such as TCubeTiling).
  const class TilingDef* (*as_def)(const void* obj) = nullptr;
  // kStruct of a high-level API's tiling struct (optiling::SoftMaxTiling, ...): the kernel type
  // and the header declaring it (empty otherwise).
  std::string kernel_type;
  std::string kernel_header;
};

// The base of every BEGIN_TILING_DATA_DEF class: a byte buffer (owned, or bound with
// SetDataPtr) and the field table.
class TilingDef {
 public:
  virtual ~TilingDef() = default;
  TilingDef(const TilingDef& other);
  TilingDef& operator=(const TilingDef& other);

  // Writes GetDataSize() bytes (nested structs included) to `pdata`. Writes nothing and logs an
  // error when `pdata` is null or `capacity` is smaller than GetDataSize().
  void SaveToBuffer(void* pdata, size_t capacity) const;
  // Returns the bytes SaveToBuffer writes.
  size_t GetDataSize() const { return data_size_; }
  // Makes set_/get_ use `data_ptr` (at least GetDataSize() bytes) instead of the own buffer;
  // nullptr goes back to the own buffer.
  void SetDataPtr(void* data_ptr);
  // Returns the class name given to BEGIN_TILING_DATA_DEF.
  const char* GetTilingClassName() const { return class_name_; }
  const std::vector<TilingFieldInfo>& GetFieldInfo() const { return fields_; }
  // Returns the buffer set_/get_ use.
  uint8_t* GetData() { return data_ptr_; }
  const uint8_t* GetData() const { return data_ptr_; }

 protected:
  TilingDef() = default;
  // Called by the macro-generated constructors once every field is registered.
  void InitTilingDef(const char* class_name);
  // Registers a scalar or array field; returns its offset.
  size_t AddField(const char* name, const char* type, size_t elem_size, size_t count);
  // Registers nested struct field `obj` (a member of this object); returns its offset.
  template <typename S>
  size_t AddStructField(const char* name, const char* type, const S* obj) {
    TilingFieldInfo f;
    f.name = name;
    f.type = type;
    f.kind = TilingFieldInfo::Kind::kStruct;
    f.elem_size = obj->GetDataSize();
    f.member_delta = reinterpret_cast<const char*>(obj) - reinterpret_cast<const char*>(this);
    f.save = [](const void* o, void* dst, size_t cap) {
      static_cast<const S*>(o)->SaveToBuffer(dst, cap);
    };
    if constexpr (std::is_base_of_v<TilingDef, S>) {
      f.as_def = [](const void* o) -> const TilingDef* { return static_cast<const S*>(o); };
    }
    if constexpr (requires { S::kKernelType; S::kKernelHeader; }) {
      f.kernel_type = S::kKernelType;
      f.kernel_header = S::kKernelHeader;
    }
    return Place(std::move(f), 8);
  }
  template <typename T>
  void SetField(size_t offset, const T& v) { std::memcpy(data_ptr_ + offset, &v, sizeof(T)); }
  template <typename T>
  T GetField(size_t offset) const {
    T v;
    std::memcpy(&v, data_ptr_ + offset, sizeof(T));
    return v;
  }
  template <typename T>
  void SetArray(size_t offset, const T* v, size_t n) {
    if (v != nullptr) std::memcpy(data_ptr_ + offset, v, sizeof(T) * n);
  }

 private:
  size_t Place(TilingFieldInfo f, size_t align);
  const char* class_name_ = "";
  std::vector<TilingFieldInfo> fields_;
  std::vector<uint8_t> own_;
  uint8_t* data_ptr_ = nullptr;
  size_t end_ = 0;        // end of the last field
  size_t data_size_ = 0;  // end_ rounded up to 8
};

template <typename T>
constexpr bool IsTilingFieldType() {
  return std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
         std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> ||
         std::is_same_v<T, uint32_t> || std::is_same_v<T, int64_t> ||
         std::is_same_v<T, uint64_t> || std::is_same_v<T, float>;
}

// The registry of tiling-data classes by op type ("AddCustom", or "AddCustom_<key>" for a
// per-tiling-key class).
class CTilingDataClassFactory {
 public:
  using Creator = std::function<std::shared_ptr<TilingDef>()>;
  static CTilingDataClassFactory& GetInstance();
  void RegisterTilingData(const char* op_type, const Creator& creator);
  // Returns a new instance of the class registered for `op_type`, or nullptr.
  std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* op_type);
  // Returns every registered op type name (sorted).
  std::vector<std::string> RegisteredNames() const;

 private:
  std::map<std::string, Creator> creators_;
};

struct TilingDataRegistrar {
  TilingDataRegistrar(const char* op_type, const CTilingDataClassFactory::Creator& creator) {
    CTilingDataClassFactory::GetInstance().RegisterTilingData(op_type, creator);
  }
};

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                                 \
  class class_name : public ::optiling::TilingDef {                       \
   public:                                                                \
    class_name() { InitTilingDef(#class_name); }                          \
    explicit class_name(void* ptr) {                                      \
      InitTilingDef(#class_name);                                         \
      SetDataPtr(ptr);                                                    \
    }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                             \
   public:                                                                                       \
    void set_##field_name(data_type v) { SetField<data_type>(field_name##_offset_, v); }         \
    data_type get_##field_name() const { return GetField<data_type>(field_name##_offset_); }    \
                                                                                                 \
   private:                                                                                      \
    static_assert(::optiling::IsTilingFieldType<data_type>(),                                    \
                  "TILING_DATA_FIELD_DEF: the type must be int8..uint64_t or float");            \
    size_t field_name##_offset_ = AddField(#field_name, #data_type, sizeof(data_type), 1);

#define TILING_DATA_FIELD_DEF_ARR(data_type, array_size, field_name)                             \
   public:                                                                                       \
    void set_##field_name(const data_type* v) {                                                  \
      SetArray<data_type>(field_name##_offset_, v, (array_size));                                \
    }                                                                                            \
    data_type* get_##field_name() {                                                              \
      return reinterpret_cast<data_type*>(GetData() + field_name##_offset_);                     \
    }                                                                                            \
    const data_type* get_##field_name() const {                                                  \
      return reinterpret_cast<const data_type*>(GetData() + field_name##_offset_);               \
    }                                                                                            \
                                                                                                 \
   private:                                                                                      \
    static_assert(::optiling::IsTilingFieldType<data_type>(),                                    \
                  "TILING_DATA_FIELD_DEF_ARR: the type must be int8..uint64_t or float");        \
    static_assert((array_size) > 0, "TILING_DATA_FIELD_DEF_ARR: the size must be positive");     \
    size_t field_name##_offset_ =                                                                \
        AddField(#field_name, #data_type, sizeof(data_type), (array_size));

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                    \
   public:                                                                                       \
    struct_type field_name;                                                                      \
                                                                                                 \
   private:                                                                                      \
    size_t field_name##_offset_ = AddStructField(#field_name, #struct_type, &field_name);

#define END_TILING_DATA_DEF \
  }

// Registers tiling-data class `class_name` for op type `op_type` (no trailing ';' needed).
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                              \
  [[maybe_unused]] static ::optiling::TilingDataRegistrar                            \
      g_aicore_tiling_registrar_##op_type##_##class_name(                              \
          #op_type, []() -> std::shared_ptr<::optiling::TilingDef> {                   \
            return std::make_shared<class_name>();                                     \
          });
