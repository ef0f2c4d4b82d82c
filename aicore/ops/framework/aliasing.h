// Whether the memory of views is shared: the one check every operator's CanImplement uses for its
// outputs (an output that repeats an element, lies over an input it does not update in place, or
// over another output is refused with 161002). See Note [Aliasing].
#pragma once

#include <vector>

#include "aicore/ops/framework/operator.h"

namespace aicore::ops {

// How the bytes of two views relate.
enum class Overlap {
  kNone,     // no byte of one is a byte of the other (an empty view overlaps nothing)
  kSame,     // the same view: one first byte, element size, shape and strides (size-1 dims aside)
  kPartial,  // they share a byte otherwise, or the search could not rule it out within its budget
};

// Returns how the bytes `a` and `b` touch relate (exact, by a bounded search over the index
// space; an undecided search counts as kPartial).
Overlap OverlapOf(const TensorRef& a, const TensorRef& b);

// Returns true when two distinct elements of `t` share a byte (a stride-0 dim of size above 1, or
// strides that fold elements onto one another, such as shape (4, 4) with strides (1, 1)), or the
// bounded search cannot rule it out.
bool HasInternalOverlap(const TensorRef& t);

// A named operand of an operator's check; `ref` null: an absent optional (skipped). `in_place`:
// an output so marked may be exactly (Overlap::kSame) an input so marked, the operator computing
// it in place (each element read before it is written, and never read again).
struct Operand {
  const char* name = "";
  const TensorRef* ref = nullptr;
  bool in_place = false;
};

// Checks the outputs of operator `op` against the rules above, in order: each output, with
// elements, has distinct element locations ("<op>: out has stride 0 in dim 1 of size 4 (shape
// [2, 4], strides [4, 0]) ..."); it overlaps no input except as an in-place pair ("<op>: out
// overlaps self in memory ..."); it overlaps no earlier output. Returns the first violation
// (161002), naming the arguments, their shapes and strides, and what is allowed.
OpCheck CheckOutputs(const char* op, const std::vector<Operand>& outputs,
                     const std::vector<Operand>& inputs);

}  // namespace aicore::ops
