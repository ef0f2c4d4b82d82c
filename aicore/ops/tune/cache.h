// The decision cache of strategy selection: a JSON file shared by every process that tunes,
// keyed by tune::Key. See Note [Tune cache] in cache.cc for the file format and the locking.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aicore/core/status.h"

namespace aicore::ops::tune {

// One cached decision: the chosen candidate's knobs and what ranking found.
struct CacheEntry {
  std::string label;
  std::vector<std::pair<std::string, int64_t>> knobs;
  double modeled_us = -1;   // < 0: not modeled
  double measured_us = -1;  // < 0: not measured
  std::string reason;
};

// Returns the cache file's path: $AICORE_TUNE_CACHE when set, else
// $XDG_CACHE_HOME/aicore/tune.json, else $HOME/.cache/aicore/tune.json, else "" (no file:
// decisions are kept in memory only).
std::string CachePath();

// A view of one cache file. Thread-safe. Reads the file at the first lookup and again on a miss
// (another process may have added the entry); writes merge into what is on disk under an
// exclusive flock and replace the file atomically (a temporary file, then rename), so concurrent
// writers never lose each other's entries and readers never see a half-written file. A file
// that does not parse gives one warning (at the first lookup or store that reads it) and is
// treated as empty (the next store replaces it).
class Cache {
 public:
  // `path` "" keeps entries in memory only.
  explicit Cache(std::string path);

  // Returns the entry stored under `key`, or nullopt.
  std::optional<CacheEntry> Find(const std::string& key);
  // Stores `entry` under `key` (replacing one there) in memory and in the file. An unwritable
  // file gives a warning and an error Status; the entry is still kept in memory.
  Status Store(const std::string& key, const CacheEntry& entry);

  const std::string& path() const { return path_; }
  // How many times the file has been read (tests check that a hit reads no more than needed).
  int64_t loads() const { return loads_; }

  // Returns the process's cache for CachePath() (a new Cache when the path changed since the
  // last call, so tests and programs may switch AICORE_TUNE_CACHE).
  static Cache& Process();

 private:
  // Reads the file into entries_ (caller holds mu_). Missing: no entries; corrupt: a warning.
  void LoadLocked();
  // Warns (once per Cache) that the file is `problem` ("not valid JSON") and is ignored.
  void WarnCorruptLocked(const std::string& problem);

  std::mutex mu_;
  std::string path_;
  bool loaded_ = false;
  bool warned_corrupt_ = false;
  int64_t loads_ = 0;
  std::map<std::string, CacheEntry> entries_;
};

}  // namespace aicore::ops::tune
