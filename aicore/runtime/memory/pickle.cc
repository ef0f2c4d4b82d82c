// PickleWriter: every container is "EMPTY_DICT/EMPTY_LIST MARK items SETITEMS/APPENDS"; an empty
// container drops its MARK again, so the stream stays valid for readers that dislike empty marks.
#include "aicore/runtime/memory/pickle.h"

#include <bit>

namespace aicore::memory {
namespace {
constexpr char kProto = '\x80';
constexpr char kEmptyDict = '}';
constexpr char kEmptyList = ']';
constexpr char kMark = '(';
constexpr char kSetItems = 'u';
constexpr char kAppends = 'e';
constexpr char kBinInt = 'J';
constexpr char kLong1 = '\x8a';
constexpr char kBinUnicode = 'X';
constexpr char kNewTrue = '\x88';
constexpr char kNewFalse = '\x89';
constexpr char kNone = 'N';
constexpr char kBinFloat = 'G';
constexpr char kTuple2 = '\x86';
constexpr char kStop = '.';
}  // namespace

PickleWriter::PickleWriter() {
  out_.push_back(kProto);
  out_.push_back('\x02');
}

void PickleWriter::BeginDict() {
  out_.push_back(kEmptyDict);
  mark_positions_.push_back(out_.size());
  out_.push_back(kMark);
}

void PickleWriter::BeginList() {
  out_.push_back(kEmptyList);
  mark_positions_.push_back(out_.size());
  out_.push_back(kMark);
}

void PickleWriter::EndContainer(char set_op) {
  const size_t mark = mark_positions_.back();
  mark_positions_.pop_back();
  if (mark + 1 == out_.size()) {
    out_.pop_back();  // no items: drop the MARK
  } else {
    out_.push_back(set_op);
  }
}

void PickleWriter::EndDict() { EndContainer(kSetItems); }
void PickleWriter::EndList() { EndContainer(kAppends); }
void PickleWriter::Tuple2() { out_.push_back(kTuple2); }

void PickleWriter::Int(int64_t value) {
  if (value >= INT32_MIN && value <= INT32_MAX) {
    out_.push_back(kBinInt);
    const auto v = static_cast<uint32_t>(static_cast<int32_t>(value));
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return;
  }
  // LONG1: little-endian two's complement, 8 bytes is always enough for int64.
  out_.push_back(kLong1);
  out_.push_back('\x08');
  const auto v = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PickleWriter::String(std::string_view value) {
  out_.push_back(kBinUnicode);
  const auto n = static_cast<uint32_t>(value.size());
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out_.append(value);
}

void PickleWriter::Bool(bool value) { out_.push_back(value ? kNewTrue : kNewFalse); }

void PickleWriter::Float(double value) {
  out_.push_back(kBinFloat);
  const auto bits = std::bit_cast<uint64_t>(value);
  for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void PickleWriter::None() { out_.push_back(kNone); }

std::string PickleWriter::Finish() {
  out_.push_back(kStop);
  return std::move(out_);
}

}  // namespace aicore::memory
