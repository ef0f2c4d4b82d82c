// Reports over the caching allocator: the memory_summary text table and the snapshot in the
// schema of torch.cuda.memory._snapshot(), written as JSON or as a pickle through one emitter.
#include <cstdio>
#include <fstream>
#include <limits>
#include <type_traits>

#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/memory/pickle.h"

namespace aicore::memory {
namespace {

// Writes JSON with the same calls as PickleWriter, so one function emits both formats.
class JsonWriter {
 public:
  void BeginDict() { Open('{'); }
  void EndDict() { Close('}'); }
  void BeginList() { Open('['); }
  void EndList() { Close(']'); }
  void Int(int64_t v) { Value(std::to_string(v)); }
  void Float(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    Value(buf);
  }
  void Bool(bool v) { Value(v ? "true" : "false"); }
  void None() { Value("null"); }
  void String(std::string_view s) {
    std::string quoted = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') {
        quoted += '\\';
        quoted += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        quoted += buf;
      } else {
        quoted += c;
      }
    }
    quoted += '"';
    Value(quoted);
  }
  std::string Finish() { return std::move(out_); }

 private:
  struct Level {
    bool is_dict;
    int items;
  };
  void Separate() {
    if (levels_.empty()) return;
    Level& l = levels_.back();
    if (l.is_dict) {
      out_ += l.items == 0 ? "" : (l.items % 2 == 1 ? ": " : ", ");
    } else if (l.items > 0) {
      out_ += ", ";
    }
    ++l.items;
  }
  void Value(std::string_view text) {
    Separate();
    out_ += text;
  }
  void Open(char c) {
    Separate();
    out_ += c;
    levels_.push_back({c == '{', 0});
  }
  void Close(char c) {
    levels_.pop_back();
    out_ += c;
  }
  std::string out_;
  std::vector<Level> levels_;
};

template <typename W>
void EmitFrames(W& w, const std::source_location& where, bool has_where) {
  w.BeginList();
  if (has_where) {
    w.BeginDict();
    w.String("filename");
    w.String(where.file_name());
    w.String("line");
    w.Int(where.line());
    w.String("name");
    w.String(where.function_name());
    w.EndDict();
  }
  w.EndList();
}

template <typename W>
void EmitSnapshot(W& w, const MemorySnapshot& snap) {
  w.BeginDict();
  w.String("segments");
  w.BeginList();
  for (const SegmentSnapshot& seg : snap.segments) {
    w.BeginDict();
    w.String("device");
    w.Int(seg.device);
    w.String("address");
    w.Int(static_cast<int64_t>(seg.address));
    w.String("total_size");
    w.Int(static_cast<int64_t>(seg.total_size));
    w.String("allocated_size");
    w.Int(static_cast<int64_t>(seg.allocated_size));
    w.String("active_size");
    w.Int(static_cast<int64_t>(seg.active_size));
    w.String("requested_size");
    w.Int(static_cast<int64_t>(seg.requested_size));
    w.String("stream");
    w.Int(static_cast<int64_t>(seg.stream));
    w.String("segment_type");
    w.String(seg.is_large ? "large" : "small");
    w.String("segment_pool_id");
    if constexpr (std::is_same_v<W, PickleWriter>) {
      w.Int(0);  // (0, 0): the default pool, as a tuple like PyTorch writes it
      w.Int(0);
      w.Tuple2();
    } else {
      w.BeginList();
      w.Int(0);
      w.Int(0);
      w.EndList();
    }
    w.String("is_expandable");
    w.Bool(seg.is_expandable);
    w.String("frames");
    w.BeginList();
    w.EndList();
    w.String("blocks");
    w.BeginList();
    for (const BlockSnapshot& b : seg.blocks) {
      w.BeginDict();
      w.String("address");
      w.Int(static_cast<int64_t>(b.address));
      w.String("size");
      w.Int(static_cast<int64_t>(b.size));
      w.String("requested_size");
      w.Int(static_cast<int64_t>(b.requested_size));
      w.String("state");
      w.String(b.state);
      w.String("frames");
      EmitFrames(w, b.where, b.has_where);
      w.EndDict();
    }
    w.EndList();
    w.EndDict();
  }
  w.EndList();

  w.String("device_traces");
  w.BeginList();
  for (const auto& trace : snap.device_traces) {
    w.BeginList();
    for (const TraceEntry& e : trace) {
      w.BeginDict();
      w.String("action");
      w.String(TraceActionName(e.action));
      w.String("addr");
      w.Int(static_cast<int64_t>(e.addr));
      w.String("size");
      w.Int(static_cast<int64_t>(e.size));
      w.String("stream");
      w.Int(static_cast<int64_t>(e.stream));
      w.String("time_us");
      w.Int(e.time_us);
      if (e.action == TraceEntry::kOom) {
        w.String("device_free");
        w.Int(static_cast<int64_t>(e.device_free));
      }
      w.String("frames");
      EmitFrames(w, e.where, e.has_where);
      w.EndDict();
    }
    w.EndList();
  }
  w.EndList();

  const AllocatorConfig& c = snap.config;
  w.String("allocator_settings");
  w.BeginDict();
  w.String("AICORE_ALLOC_CONF");
  w.String(c.ToString());
  w.String("max_split_size");
  w.Int(c.max_split_size == std::numeric_limits<size_t>::max()
            ? -1
            : static_cast<int64_t>(c.max_split_size));
  w.String("garbage_collection_threshold");
  w.Float(c.garbage_collection_threshold);
  w.String("expandable_segments");
  w.Bool(c.expandable_segments);
  w.String("capacity");
  w.Int(static_cast<int64_t>(snap.capacity));
  w.EndDict();
  w.EndDict();
}

// Formats `bytes` in the unit that suits `scale` (the largest value of its row), 6 digits.
std::string SummarySize(int64_t bytes, int64_t scale) {
  static const char* const kUnits[] = {"B  ", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && scale >= 768 * 1024) {
    bytes /= 1024;
    scale /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%6lld %s", static_cast<long long>(bytes), kUnits[unit]);
  return buf;
}

std::string SummaryCount(int64_t count, int64_t scale) {
  static const char* const kUnits[] = {" ", "K", "M", "G"};
  int unit = 0;
  while (unit < 3 && scale >= 750 * 1000) {
    count /= 1000;
    scale /= 1000;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%7lld %s ", static_cast<long long>(count), kUnits[unit]);
  return buf;
}

}  // namespace

std::string MemorySummary(const DeviceStats& stats, int device) {
  const std::string rule(75, '-');
  const std::string double_rule(75, '=');
  std::string out;
  auto line = [&](const std::string& text) { out += "|" + text + "|\n"; };
  auto centered = [](const std::string& text, size_t width) {
    const size_t pad = text.size() < width ? width - text.size() : 0;
    return std::string(pad / 2, ' ') + text + std::string(pad - pad / 2, ' ');
  };
  char buf[160];
  line(double_rule);
  line(centered("aicore device memory summary, device ID " + std::to_string(device), 75));
  line(rule);
  std::snprintf(buf, sizeof(buf), "OOMs: %lld", static_cast<long long>(stats.num_ooms));
  std::string left = centered(buf, 37);
  std::snprintf(buf, sizeof(buf), "device malloc retries: %lld",
                static_cast<long long>(stats.num_alloc_retries));
  line(left + "|" + centered(buf, 37));
  line(double_rule);
  line("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");

  struct Row {
    const char* name;
    const StatArray* stat;
    bool bytes;
  };
  const Row rows[] = {
      {"Allocated memory", &stats.allocated_bytes, true},
      {"Active memory", &stats.active_bytes, true},
      {"Requested memory", &stats.requested_bytes, true},
      {"Reserved memory", &stats.reserved_bytes, true},
      {"Non-releasable memory", &stats.inactive_split_bytes, true},
      {"Allocations", &stats.allocation, false},
      {"Active allocs", &stats.active, false},
      {"Reserved segments", &stats.segment, false},
      {"Non-releasable allocs", &stats.inactive_split, false},
  };
  auto stat_line = [&](const std::string& label, const Stat& s, bool bytes) {
    auto fmt = [&](int64_t v, int64_t scale) {
      return bytes ? SummarySize(v, scale) : SummaryCount(v, scale);
    };
    line(label + "| " + fmt(s.current, s.peak) + " | " + fmt(s.peak, s.peak) + " | " +
         fmt(s.allocated, s.allocated) + " | " + fmt(s.freed, s.freed) + " ");
  };
  for (const Row& row : rows) {
    line(rule);
    std::snprintf(buf, sizeof(buf), " %-22s", row.name);
    stat_line(buf, (*row.stat)[kAggregate], row.bytes);
    stat_line("       from large pool ", (*row.stat)[kLargePool], row.bytes);
    stat_line("       from small pool ", (*row.stat)[kSmallPool], row.bytes);
  }
  line(rule);
  stat_line(" Oversize allocations  ", stats.oversize_allocations, false);
  stat_line(" Oversize segments     ", stats.oversize_segments, false);
  line(double_rule);
  return out;
}

std::string SnapshotToJson(const MemorySnapshot& snapshot) {
  JsonWriter w;
  EmitSnapshot(w, snapshot);
  return w.Finish();
}

std::string SnapshotToPickle(const MemorySnapshot& snapshot) {
  PickleWriter w;
  EmitSnapshot(w, snapshot);
  return w.Finish();
}

void DumpSnapshot(const MemorySnapshot& snapshot, const std::string& path) {
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  const std::string bytes = json ? SnapshotToJson(snapshot) : SnapshotToPickle(snapshot);
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(),
         "DumpSnapshot: cannot write '", path, "'");
  }
}

}  // namespace aicore::memory
