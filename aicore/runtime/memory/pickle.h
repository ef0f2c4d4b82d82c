// A minimal Python pickle writer (protocol 2) for dicts, lists, tuples, strings, integers,
// floats, booleans and None: enough to write memory snapshots that Python and memory_viz read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aicore::memory {

// Builds a pickle stream. Containers are written between Begin*/End* calls; inside a dict,
// keys and values alternate. Finish() closes the stream and returns its bytes. Nesting is the
// caller's responsibility (an unbalanced End* is undefined).
class PickleWriter {
 public:
  PickleWriter();

  void BeginDict();
  void EndDict();
  void BeginList();
  void EndList();
  // Replaces the last two values written with one 2-tuple of them.
  void Tuple2();

  void Int(int64_t value);
  void String(std::string_view value);
  void Bool(bool value);
  void Float(double value);
  void None();

  // Ends the stream with STOP and returns it; the writer must not be used afterwards.
  std::string Finish();

 private:
  void EndContainer(char set_op);

  std::string out_;
  // For each open container, the offset of the MARK written for its items.
  std::vector<size_t> mark_positions_;
};

}  // namespace aicore::memory
