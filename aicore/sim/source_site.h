// How errors and deadlock reports name a call site.
#pragma once

#include <source_location>
#include <string>

namespace aicore::sim {

// Returns "file.cc:42" for `loc` (the file's base name and line).
std::string SourceSite(const std::source_location& loc);

}  // namespace aicore::sim
