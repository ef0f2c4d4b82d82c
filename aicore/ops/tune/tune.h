// Strategy selection: the tuning mode (AICORE_TUNE), the candidate plans a pattern offers, how
// they are ranked (the heuristic, the timing model of the target chip, host measurement) and the
// decision with its reasons, cached per (op, shape class, dtype, chip, mode). See Note [Strategy
// selection] in tune.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"

namespace aicore::ops::tune {

enum class Mode {
  kOff,      // the heuristic plan, nothing run
  kModel,    // the candidate with the best modeled time on the chip
  kMeasure,  // the best few by model, run on the host, the fastest kept
};

// Returns "off", "model", "measure".
const char* ModeName(Mode mode);
// Parses "off", "model" or "measure" into `mode`; InvalidArgument naming `what` (for example
// "AICORE_TUNE"), the value and the allowed values otherwise.
Status ParseMode(std::string_view text, const char* what, Mode* mode);
// Returns the mode AICORE_TUNE names (off when unset or empty). Read at every call, so a program
// may change it between operators. Throws aicore::Error (InvalidArgument: "AICORE_TUNE=bogus: not
// a tuning mode; allowed: off, model, measure") for any other value.
Mode ModeFromEnv();

// One candidate plan, as the knobs that make it: names and values ("rows_per_tile", 8). The
// knobs are independent of the exact shape within a shape class, so a cached choice applies to
// every shape of the class.
struct Candidate {
  std::string label;                                   // "one_pass rows_per_tile=8 split=1"
  std::vector<std::pair<std::string, int64_t>> knobs;  // in a fixed order
};

// What ranking one candidate found; NaN where it was not run.
struct Evaluation {
  double modeled_us = std::numeric_limits<double>::quiet_NaN();   // on the chip, whole shape
  double measured_us = std::numeric_limits<double>::quiet_NaN();  // host time, whole shape
  std::string error;                                              // why a run failed, else ""
};

// Runs candidate `i` (an index into the candidates) and returns its time in microseconds, or a
// Status when it could not run.
using Evaluate = std::function<Status(size_t i, double* us)>;

// The decision's identity in the cache.
struct Key {
  std::string op;           // "softmax"
  std::string shape_class;  // "cols=4096 rows<=4096"
  std::string dtype;        // "FLOAT" or "FLOAT16->FLOAT"
  std::string chip;         // "ascend910b1"
  Mode mode = Mode::kOff;
  // Returns "op|shape_class|dtype|chip|mode".
  std::string ToString() const;
};

class Cache;

// How a selection runs.
struct Request {
  Mode mode = Mode::kOff;
  // Evaluates every candidate by model, and by measurement the best few, whatever the mode, and
  // skips the cache lookup (the decision is still stored): what `aicore tune` prints.
  bool explain = false;
  Cache* cache = nullptr;  // nullptr: the process cache at CachePath()
};
// Returns a Request for ModeFromEnv() (which may throw).
Request RequestFromEnv();

struct Decision {
  Key key;
  std::vector<Candidate> candidates;  // [0] is the heuristic plan
  std::vector<Evaluation> evals;      // one per candidate
  size_t chosen = 0;
  bool from_cache = false;
  std::string reason;  // one sentence: why `chosen` won
};

// How many candidates measure mode runs on the host besides the heuristic: the best by model.
inline constexpr size_t kMeasureTop = 3;

// Selects among `candidates` (non-empty; [0] the heuristic) for `key` (its mode is
// request.mode): off keeps [0]; model ranks all by `model`; measure ranks by `model`, runs the
// best kMeasureTop and [0] with `measure` and keeps the fastest if a second measurement of it
// and [0] confirms the win. A candidate keeps its place only
// if it beats the heuristic by more than the noise margin (Note [Strategy selection]). A cached
// decision whose knobs match a candidate is reused without running anything; a new decision is
// stored. Candidates whose evaluation fails are skipped (their error kept); when every one
// fails the heuristic is chosen and the reason says why.
Decision Select(Key key, std::vector<Candidate> candidates, const Evaluate& model,
                const Evaluate& measure, const Request& request);

// Returns a human-readable table of `d`: one line per candidate (label, modeled and measured
// microseconds, "<- chosen"), then the reason.
std::string FormatDecision(const Decision& d);

}  // namespace aicore::ops::tune
