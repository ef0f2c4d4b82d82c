// Strategy selection: modes, ranking and the decision.
//
// Note [Strategy selection]
// - A pattern enumerates candidate plans for a problem; candidate 0 is always the heuristic plan
//   (what AICORE_TUNE=off runs), so a tuned choice can only be the heuristic or something the
//   ranking found better than it.
// - model: every candidate runs once under the timing model of the target chip (on a
//   representative slice of the shape, scaled to the whole; see the pattern's tuner); the least
//   modeled time wins. The model is deterministic, so the margin is small (kModelMargin): it
//   only keeps the heuristic on ties.
// - measure: the model ranks first, then the best kMeasureTop candidates and the heuristic run on
//   the host (best of several runs each) and the fastest wins, by more than kMeasureMargin
//   against the heuristic (host timings are noisy; a 1% "win" is usually noise), twice: the
//   winner and the heuristic are measured once more and the win must hold again.
// - The decision is cached per (op, shape class, dtype, chip, mode) as the winner's knobs (Note
//   [Tune cache]); a later selection whose candidates include those knobs reuses it and runs
//   nothing. Knobs no candidate has (a changed enumeration) are re-tuned.
#include "aicore/ops/tune/tune.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "aicore/core/env.h"
#include "aicore/ops/tune/cache.h"

namespace aicore::ops::tune {

namespace {

// A candidate must beat the heuristic by this fraction to replace it.
constexpr double kModelMargin = 0.005;
constexpr double kMeasureMargin = 0.03;

std::string Us(double us) {
  if (std::isnan(us)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", us);
  return buf;
}

// Returns the index of the least `time` among `indices` (NaN skipped), preferring `heuristic`
// unless beaten by more than `margin`; SIZE_MAX when every time is NaN.
size_t Best(const std::vector<size_t>& indices, const std::vector<double>& time, size_t heuristic,
            double margin) {
  size_t best = SIZE_MAX;
  for (size_t i : indices) {
    if (std::isnan(time[i])) continue;
    if (best == SIZE_MAX || time[i] < time[best]) best = i;
  }
  if (best != SIZE_MAX && !std::isnan(time[heuristic]) &&
      time[best] >= time[heuristic] * (1 - margin)) {
    best = heuristic;
  }
  return best;
}

std::string Percent(double better, double base) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100 * (base - better) / base);
  return buf;
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kOff:
      return "off";
    case Mode::kModel:
      return "model";
    case Mode::kMeasure:
      return "measure";
  }
  return "off";
}

Status ParseMode(std::string_view text, const char* what, Mode* mode) {
  for (Mode m : {Mode::kOff, Mode::kModel, Mode::kMeasure}) {
    if (text == ModeName(m)) {
      *mode = m;
      return Status();
    }
  }
  return Status(StatusCode::kInvalidArgument,
                StrCat(what, "=", text, ": not a tuning mode; allowed: off, model, measure"));
}

Mode ModeFromEnv() {
  const auto v = env::Get("AICORE_TUNE");
  Mode m = Mode::kOff;
  if (!v) return m;
  const Status s = ParseMode(*v, "AICORE_TUNE", &m);
  if (!s.ok()) throw Error(s);
  return m;
}

Request RequestFromEnv() {
  Request r;
  r.mode = ModeFromEnv();
  return r;
}

std::string Key::ToString() const {
  return StrCat(op, "|", shape_class, "|", dtype, "|", chip, "|", ModeName(mode));
}

Decision Select(Key key, std::vector<Candidate> candidates, const Evaluate& model,
                const Evaluate& measure, const Request& request) {
  Decision d;
  key.mode = request.mode;
  d.key = std::move(key);
  d.candidates = std::move(candidates);
  d.evals.resize(d.candidates.size());
  if (d.candidates.empty()) {
    d.reason = "no candidate plans";
    return d;
  }
  if (request.mode == Mode::kOff && !request.explain) {
    d.reason = "AICORE_TUNE=off: the heuristic plan";
    return d;
  }
  Cache& cache = request.cache != nullptr ? *request.cache : Cache::Process();
  const std::string cache_key = d.key.ToString();
  if (request.mode != Mode::kOff && !request.explain) {
    if (const auto hit = cache.Find(cache_key)) {
      for (size_t i = 0; i < d.candidates.size(); ++i) {
        if (d.candidates[i].knobs != hit->knobs) continue;
        d.chosen = i;
        d.from_cache = true;
        if (hit->modeled_us >= 0) d.evals[i].modeled_us = hit->modeled_us;
        if (hit->measured_us >= 0) d.evals[i].measured_us = hit->measured_us;
        d.reason =
            StrCat("cached in ", cache.path().empty() ? "memory" : cache.path(), ": ", hit->reason);
        return d;
      }
    }
  }

  const size_t n = d.candidates.size();
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::vector<double> modeled(n, std::nan("")), measured(n, std::nan(""));
  auto run = [&](const Evaluate& eval, size_t i, std::vector<double>* times, double* slot) {
    double us = 0;
    Status s;
    try {
      s = eval(i, &us);
    } catch (const Error& e) {
      s = e.status();
    }
    if (s.ok()) {
      (*times)[i] = us;
      *slot = us;
    } else if (d.evals[i].error.empty()) {
      d.evals[i].error = s.message();
    }
  };
  for (size_t i : all) run(model, i, &modeled, &d.evals[i].modeled_us);
  const size_t by_model = Best(all, modeled, 0, kModelMargin);

  size_t by_measure = SIZE_MAX;
  bool confirmed = true;
  if (request.mode == Mode::kMeasure || request.explain) {
    std::vector<size_t> order;
    for (size_t i : all) {
      if (!std::isnan(modeled[i])) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return modeled[a] < modeled[b]; });
    if (order.size() > kMeasureTop) order.resize(kMeasureTop);
    if (std::find(order.begin(), order.end(), size_t{0}) == order.end()) order.push_back(0);
    for (size_t i : order) run(measure, i, &measured, &d.evals[i].measured_us);
    by_measure = Best(order, measured, 0, kMeasureMargin);
    if (by_measure != SIZE_MAX && by_measure != 0) {
      // A confirmation round, heuristic first: a win must hold twice to count.
      std::vector<double> again(n, std::nan(""));
      double slot_h = 0, slot_w = 0;
      run(measure, 0, &again, &slot_h);
      run(measure, by_measure, &again, &slot_w);
      if (!(again[by_measure] < again[0] * (1 - kMeasureMargin))) {
        confirmed = false;
        by_measure = 0;
      }
    }
  }

  const std::string chip = d.key.chip;
  switch (request.mode) {
    case Mode::kOff:
      d.chosen = 0;
      d.reason = "AICORE_TUNE=off: the heuristic plan";
      break;
    case Mode::kModel:
      if (by_model == SIZE_MAX) {
        d.chosen = 0;
        d.reason =
            StrCat("no candidate could be modeled (", d.evals[0].error, "); the heuristic plan");
      } else if (by_model == 0) {
        d.chosen = 0;
        d.reason = StrCat("the heuristic plan has the best modeled time on ", chip, " (",
                          Us(modeled[0]), " us)");
      } else {
        d.chosen = by_model;
        d.reason = StrCat("best modeled time on ", chip, ": ", Us(modeled[by_model]),
                          " us against the heuristic's ", Us(modeled[0]), " us (",
                          Percent(modeled[by_model], modeled[0]), " less)");
      }
      break;
    case Mode::kMeasure:
      if (by_measure == SIZE_MAX) {
        d.chosen = 0;
        d.reason =
            StrCat("no candidate could be measured (", d.evals[0].error, "); the heuristic plan");
      } else if (by_measure == 0 && !confirmed) {
        d.chosen = 0;
        d.reason = StrCat("the fastest candidate on the host did not beat the heuristic by more ",
                          "than ", kMeasureMargin * 100, "% again when measured a second time");
      } else if (by_measure == 0) {
        d.chosen = 0;
        d.reason = StrCat("no measured candidate beat the heuristic's ", Us(measured[0]),
                          " us on the host by more than ", kMeasureMargin * 100, "%");
      } else {
        d.chosen = by_measure;
        d.reason = StrCat("fastest on the host of the ", kMeasureTop,
                          " best modeled and the heuristic: ", Us(measured[by_measure]),
                          " us against the heuristic's ", Us(measured[0]), " us (",
                          Percent(measured[by_measure], measured[0]), " less)");
      }
      break;
  }
  if (request.mode != Mode::kOff) {
    CacheEntry e;
    e.label = d.candidates[d.chosen].label;
    e.knobs = d.candidates[d.chosen].knobs;
    e.modeled_us = std::isnan(modeled[d.chosen]) ? -1 : modeled[d.chosen];
    e.measured_us = std::isnan(measured[d.chosen]) ? -1 : measured[d.chosen];
    e.reason = d.reason;
    cache.Store(cache_key, e);  // a failure is a warning; the decision stands
  }
  return d;
}

std::string FormatDecision(const Decision& d) {
  size_t width = 9;
  for (const Candidate& c : d.candidates) width = std::max(width, c.label.size());
  std::string out = StrCat(d.key.op, " ", d.key.shape_class, " ", d.key.dtype, " on ", d.key.chip,
                           ", AICORE_TUNE=", ModeName(d.key.mode), "\n");
  char line[512];
  std::snprintf(line, sizeof(line), "  %-*s %12s %12s\n", static_cast<int>(width), "candidate",
                "modeled_us", "measured_us");
  out += line;
  for (size_t i = 0; i < d.candidates.size(); ++i) {
    const Evaluation& e = d.evals[i];
    std::snprintf(line, sizeof(line), "  %-*s %12s %12s%s%s%s\n", static_cast<int>(width),
                  d.candidates[i].label.c_str(), Us(e.modeled_us).c_str(),
                  Us(e.measured_us).c_str(), i == 0 ? "  (heuristic)" : "",
                  i == d.chosen ? "  <- chosen" : "",
                  e.error.empty() ? "" : ("  error: " + e.error).c_str());
    out += line;
  }
  out += StrCat("chosen: ", d.candidates.empty() ? "-" : d.candidates[d.chosen].label, "\n");
  out += StrCat("why: ", d.reason, "\n");
  return out;
}

}  // namespace aicore::ops::tune
