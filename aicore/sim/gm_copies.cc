// The watched GM regions of Note [GM copies] and the writes that end them.
//
// - Every watch keeps its region and its copy's flag. Beside them, the union of the regions'
//   spans (first byte to last) is kept as a short sorted list of disjoint intervals (the panels of
//   one matrix merge into one interval), so that a write outside every span is turned away by one
//   binary search.
// - NoteGmWrite reads the watch count first (relaxed): a launch that keeps no copies pays one
//   load per GM write. Otherwise it takes the mutex and searches the union; only a write whose
//   span meets it walks the watches, sets the flags of those whose lines its lines overlap (a
//   strided write is tested line by line inside each watch's span), drops them and rebuilds the
//   union from the rest.
// - InvalidateGmCopies sets every flag and forgets every watch.
#include "aicore/sim/gm_copies.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace aicore::sim {

namespace {

struct Interval {
  uintptr_t lo, hi;
};

struct Watch {
  uintptr_t lo, hi;  // the span: the first byte of the first line to the end of the last
  uint64_t lines, line_bytes, pitch;
  std::atomic<bool>* stale;
};

std::mutex g_mu;
std::vector<Interval> g_union;  // guarded by g_mu; sorted, disjoint
std::vector<Watch> g_watches;   // guarded by g_mu
std::atomic<size_t> g_watch_count{0};

// Adds [add.lo, add.hi) to the union, merging every interval it touches.
void AddToUnionLocked(Interval add) {
  auto first = std::lower_bound(g_union.begin(), g_union.end(), add.lo,
                                [](const Interval& r, uintptr_t lo) { return r.hi < lo; });
  auto last = first;
  while (last != g_union.end() && last->lo <= add.hi) {
    add.lo = std::min(add.lo, last->lo);
    add.hi = std::max(add.hi, last->hi);
    ++last;
  }
  first = g_union.erase(first, last);
  g_union.insert(first, add);
}

void RebuildUnionLocked() {
  std::vector<Interval> spans;
  spans.reserve(g_watches.size());
  for (const Watch& w : g_watches) spans.push_back({w.lo, w.hi});
  std::sort(spans.begin(), spans.end(),
            [](const Interval& x, const Interval& y) { return x.lo < y.lo; });
  g_union.clear();
  for (const Interval& s : spans) {
    if (!g_union.empty() && s.lo <= g_union.back().hi) {
      g_union.back().hi = std::max(g_union.back().hi, s.hi);
    } else {
      g_union.push_back(s);
    }
  }
}

// The watch of region `r` (lines at a pitch of 0 are one line: the same bytes again).
Watch SpanOf(const GmRegion& r, std::atomic<bool>* stale) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(r.base);
  const uint64_t lines = r.pitch == 0 ? 1 : r.lines;
  const uint64_t pitch = lines > 1 ? r.pitch : r.line_bytes;
  return {lo, lo + (lines - 1) * pitch + r.line_bytes, lines, r.line_bytes, pitch, stale};
}

// Whether [lo, hi) (non-empty) overlaps one of w's lines.
bool Overlaps(const Watch& w, uintptr_t lo, uintptr_t hi) {
  if (hi <= w.lo || lo >= w.hi) return false;
  if (w.lines <= 1 || lo <= w.lo) return true;
  const uint64_t off = lo - w.lo;
  const uint64_t line = off / w.pitch;  // < lines, as lo < w.hi
  if (off - line * w.pitch < w.line_bytes) return true;
  // lo lies in the gap after `line`: it overlaps the next line, if there is one, when it reaches it
  return line + 1 < w.lines && w.lo + (line + 1) * w.pitch < hi;
}

// Whether one of x's lines overlaps one of w's: x's lines inside w's span, one by one.
bool Overlaps(const Watch& w, const Watch& x) {
  if (x.hi <= w.lo || x.lo >= w.hi) return false;
  if (x.lines <= 1) return Overlaps(w, x.lo, x.hi);
  if (w.lines <= 1) return Overlaps(x, w.lo, w.hi);
  for (uint64_t i = w.lo > x.lo ? (w.lo - x.lo) / x.pitch : 0; i < x.lines; ++i) {
    const uintptr_t lo = x.lo + i * x.pitch;
    if (lo >= w.hi) break;
    if (Overlaps(w, lo, lo + x.line_bytes)) return true;
  }
  return false;
}

}  // namespace

void WatchGmRegion(const GmRegion& region, std::atomic<bool>* stale) {
  if (region.lines == 0 || region.line_bytes == 0) return;
  const Watch w = SpanOf(region, stale);
  std::lock_guard<std::mutex> lk(g_mu);
  g_watches.push_back(w);
  AddToUnionLocked({w.lo, w.hi});
  g_watch_count.store(g_watches.size(), std::memory_order_relaxed);
}

void NoteGmWrite(const void* p, uint64_t bytes) { NoteGmWrite(GmRegion{p, 1, bytes, 0}); }

void NoteGmWrite(const GmRegion& region) {
  if (region.lines == 0 || region.line_bytes == 0 ||
      g_watch_count.load(std::memory_order_relaxed) == 0) {
    return;
  }
  const Watch x = SpanOf(region, nullptr);
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = std::lower_bound(g_union.begin(), g_union.end(), x.lo,
                             [](const Interval& r, uintptr_t v) { return r.hi <= v; });
  if (it == g_union.end() || it->lo >= x.hi) return;
  const size_t before = g_watches.size();
  for (size_t i = 0; i < g_watches.size();) {
    if (Overlaps(g_watches[i], x)) {
      g_watches[i].stale->store(true, std::memory_order_release);
      g_watches[i] = g_watches.back();
      g_watches.pop_back();
    } else {
      ++i;
    }
  }
  if (g_watches.size() != before) {
    RebuildUnionLocked();
    g_watch_count.store(g_watches.size(), std::memory_order_relaxed);
  }
}

void InvalidateGmCopies() {
  std::lock_guard<std::mutex> lk(g_mu);
  for (const Watch& w : g_watches) w.stale->store(true, std::memory_order_release);
  g_watches.clear();
  g_union.clear();
  g_watch_count.store(0, std::memory_order_relaxed);
}

uint64_t WatchedGmRegions() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_watches.size();
}

}  // namespace aicore::sim
