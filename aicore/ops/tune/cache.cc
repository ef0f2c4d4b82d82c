// The tune cache file.
//
// Note [Tune cache]
// - Format: {"format": "aicore-tune-1", "entries": {"<key>": {"label": "...", "knobs": {"name":
//   value, ...}, "modeled_us": x, "measured_us": y, "reason": "..."}}}, the key as
//   tune::Key::ToString() writes it ("softmax|cols=4096 rows<=4096|FLOAT|ascend910b1|model").
//   Knob order is the candidate's own, kept as a list of [name, value] pairs.
// - Readers take a shared flock on "<path>.lock", writers an exclusive one. A writer re-reads the
//   file under its lock, merges its entry into what it finds, writes "<path>.tmp.<pid>.<n>" and
//   renames it over the file, so the file is always a whole JSON document and no writer loses
//   another's entries. The lock file stays (removing it would race with a waiting writer).
// - A file that does not parse, or is not of this format, is ignored with one warning per Cache
//   and replaced by the next store; an unreadable or unwritable file is a warning too. Tuning
//   never fails because of its cache.
#include "aicore/ops/tune/cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "aicore/core/env.h"
#include "aicore/core/log.h"

namespace aicore::ops::tune {

namespace {

constexpr const char* kFormat = "aicore-tune-1";

// An flock on "<path>.lock", released on destruction. `ok()` false when the lock file cannot be
// opened (the caller goes on unlocked: a read-only cache directory still serves lookups).
class FileLock {
 public:
  FileLock(const std::string& path, int op) {
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;
    while (::flock(fd_, op) != 0) {
      if (errno != EINTR) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Parses `text` into `out`; returns "" or what is wrong with it.
std::string ParseFile(const std::string& text, std::map<std::string, CacheEntry>* out) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "not valid JSON";
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat) {
    return StrCat("not an aicore tune cache (no \"format\": \"", kFormat, "\")");
  }
  if (!j.contains("entries") || !j["entries"].is_object()) return "\"entries\" is not an object";
  std::map<std::string, CacheEntry> entries;
  for (const auto& [key, v] : j["entries"].items()) {
    if (!v.is_object() || !v.contains("knobs") || !v["knobs"].is_array()) {
      return StrCat("entry \"", key, "\" has no \"knobs\" list");
    }
    CacheEntry e;
    for (const auto& k : v["knobs"]) {
      if (!k.is_array() || k.size() != 2 || !k[0].is_string() || !k[1].is_number_integer()) {
        return StrCat("entry \"", key, "\" has a knob that is not [name, integer]");
      }
      e.knobs.emplace_back(k[0].get<std::string>(), k[1].get<int64_t>());
    }
    e.label = v.value("label", "");
    e.reason = v.value("reason", "");
    e.modeled_us = v.contains("modeled_us") && v["modeled_us"].is_number()
                       ? v["modeled_us"].get<double>()
                       : -1;
    e.measured_us = v.contains("measured_us") && v["measured_us"].is_number()
                        ? v["measured_us"].get<double>()
                        : -1;
    entries.emplace(key, std::move(e));
  }
  *out = std::move(entries);
  return "";
}

std::string Serialize(const std::map<std::string, CacheEntry>& entries) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["entries"] = nlohmann::json::object();
  for (const auto& [key, e] : entries) {
    nlohmann::json v;
    v["label"] = e.label;
    v["knobs"] = nlohmann::json::array();
    for (const auto& [name, value] : e.knobs) v["knobs"].push_back({name, value});
    if (e.modeled_us >= 0) v["modeled_us"] = e.modeled_us;
    if (e.measured_us >= 0) v["measured_us"] = e.measured_us;
    v["reason"] = e.reason;
    j["entries"][key] = std::move(v);
  }
  return j.dump(1) + "\n";
}

// Reads `path`; false when it does not exist or cannot be read (`error` says which).
bool ReadFile(const std::string& path, std::string* text, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno != ENOENT) *error = std::strerror(errno);
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return true;
}

}  // namespace

std::string CachePath() {
  if (auto p = env::Get("AICORE_TUNE_CACHE")) return *p;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/aicore/tune.json";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/aicore/tune.json";
  return "";
}

Cache::Cache(std::string path) : path_(std::move(path)) {}

void Cache::LoadLocked() {
  loaded_ = true;
  if (path_.empty()) return;
  std::string text, error;
  bool found;
  {
    FileLock lock(path_, LOCK_SH);
    found = ReadFile(path_, &text, &error);
  }
  ++loads_;
  if (!found) {
    if (!error.empty()) {
      AICORE_LOG(kWarn) << "tune cache " << path_ << " cannot be read (" << error
                        << "); tuning without it";
    }
    return;
  }
  std::map<std::string, CacheEntry> parsed;
  const std::string problem = ParseFile(text, &parsed);
  if (!problem.empty()) {
    WarnCorruptLocked(problem);
    return;
  }
  for (auto& [key, e] : parsed) entries_[key] = std::move(e);
}

void Cache::WarnCorruptLocked(const std::string& problem) {
  if (warned_corrupt_) return;
  warned_corrupt_ = true;
  AICORE_LOG(kWarn) << "tune cache " << path_ << " is " << problem
                    << "; ignoring it (the next tuning decision rewrites it)";
}

std::optional<CacheEntry> Cache::Find(const std::string& key) {
  std::lock_guard<std::mutex> lk(mu_);
  const bool fresh = !loaded_;
  if (fresh) LoadLocked();
  auto it = entries_.find(key);
  if (it == entries_.end() && !fresh && !path_.empty()) {
    LoadLocked();  // another process may have stored it since
    it = entries_.find(key);
  }
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

Status Cache::Store(const std::string& key, const CacheEntry& entry) {
  std::lock_guard<std::mutex> lk(mu_);
  entries_[key] = entry;
  if (path_.empty()) return Status();
  auto fail = [&](const std::string& what) {
    AICORE_LOG(kWarn) << "tune cache " << path_ << ": " << what
                      << "; the decision is kept for this process only";
    return Status(StatusCode::kFailedPrecondition, StrCat("tune cache ", path_, ": ", what));
  };
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  FileLock lock(path_, LOCK_EX);
  if (!lock.ok()) return fail(StrCat("cannot lock ", path_, ".lock: ", std::strerror(errno)));
  // Merge: what other processes stored wins for their keys, ours for this one.
  std::string text, error;
  std::map<std::string, CacheEntry> on_disk;
  if (ReadFile(path_, &text, &error)) {
    // Corrupt: replaced, with the warning a lookup would have given (a store need not follow
    // a lookup: `aicore tune` explains, then stores).
    const std::string problem = ParseFile(text, &on_disk);
    if (!problem.empty()) {
      on_disk.clear();
      WarnCorruptLocked(problem);
    }
  }
  for (auto& [k, e] : on_disk) {
    if (k != key) entries_[k] = e;
  }
  on_disk = entries_;
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = StrCat(path_, ".tmp.", ::getpid(), ".", counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(StrCat("cannot write ", tmp, ": ", std::strerror(errno)));
    out << Serialize(on_disk);
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return fail(StrCat("cannot write ", tmp));
    }
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return fail(StrCat("cannot rename ", tmp, " to ", path_, ": ", why));
  }
  return Status();
}

Cache& Cache::Process() {
  static std::mutex mu;
  static std::unique_ptr<Cache> cache;
  const std::string path = CachePath();
  std::lock_guard<std::mutex> lk(mu);
  // A cache whose path changed is kept alive (a caller may hold it) and replaced.
  static std::vector<std::unique_ptr<Cache>> retired;
  if (cache == nullptr || cache->path() != path) {
    if (cache != nullptr) retired.push_back(std::move(cache));
    cache = std::make_unique<Cache>(path);
  }
  return *cache;
}

}  // namespace aicore::ops::tune
