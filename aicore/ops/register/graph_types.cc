// Names and sizes of the ge enums.
#include "aicore/ops/register/graph_types.h"

#include <string>

namespace ge {

size_t DataTypeSize(DataType dt) {
  switch (dt) {
    case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
    case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
    case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
    case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
    case DT_COMPLEX128: return 16;
    default: return 0;
  }
}

const char* DataTypeName(DataType dt) {
  switch (dt) {
    case DT_FLOAT: return "DT_FLOAT";
    case DT_FLOAT16: return "DT_FLOAT16";
    case DT_INT8: return "DT_INT8";
    case DT_INT32: return "DT_INT32";
    case DT_UINT8: return "DT_UINT8";
    case DT_INT16: return "DT_INT16";
    case DT_UINT16: return "DT_UINT16";
    case DT_UINT32: return "DT_UINT32";
    case DT_INT64: return "DT_INT64";
    case DT_UINT64: return "DT_UINT64";
    case DT_DOUBLE: return "DT_DOUBLE";
    case DT_BOOL: return "DT_BOOL";
    case DT_STRING: return "DT_STRING";
    case DT_COMPLEX64: return "DT_COMPLEX64";
    case DT_COMPLEX128: return "DT_COMPLEX128";
    case DT_BF16: return "DT_BF16";
    case DT_UNDEFINED: return "DT_UNDEFINED";
    case DT_INT4: return "DT_INT4";
  }
  static thread_local std::string other;
  other = "DT_" + std::to_string(static_cast<int>(dt));
  return other.c_str();
}

const char* FormatName(Format f) {
  switch (f) {
    case FORMAT_NCHW: return "FORMAT_NCHW";
    case FORMAT_NHWC: return "FORMAT_NHWC";
    case FORMAT_ND: return "FORMAT_ND";
    case FORMAT_NC1HWC0: return "FORMAT_NC1HWC0";
    case FORMAT_FRACTAL_Z: return "FORMAT_FRACTAL_Z";
    case FORMAT_HWCN: return "FORMAT_HWCN";
    case FORMAT_NDHWC: return "FORMAT_NDHWC";
    case FORMAT_FRACTAL_NZ: return "FORMAT_FRACTAL_NZ";
    case FORMAT_NCDHW: return "FORMAT_NCDHW";
    case FORMAT_NC: return "FORMAT_NC";
    case FORMAT_NCL: return "FORMAT_NCL";
    default: break;
  }
  static thread_local std::string other;
  other = "FORMAT_" + std::to_string(static_cast<int>(f));
  return other.c_str();
}

}  // namespace ge
