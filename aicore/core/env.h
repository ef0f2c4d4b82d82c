// Every AICORE_* environment variable is read through this module, so each one is parsed and
// validated the same way: a value that is not accepted gives one warning on stderr naming the
// variable, the value and what is accepted, and the documented default is used (docs/environment.md
// lists every variable and whether a bad value is a warning or an error).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace aicore::env {

// Returns the variable's value, or nullopt when it is unset or empty. The first call also warns
// once about any AICORE_* variable in the environment that aicore does not know (a typo such as
// AICORE_THREAD would otherwise be silently ignored).
std::optional<std::string> Get(const char* name);

// Returns the integer in `name` (decimal, or 0x-prefixed hex), or `fallback` when unset. A value
// above `max` is clamped to `max` with a warning; a value below `min` or not an integer warns and
// gives `fallback`. Requires min <= fallback <= max.
int64_t Int(const char* name, int64_t fallback, int64_t min, int64_t max);
// As Int, but returns nullopt where Int returns its fallback; `default_text` describes the default
// in the warning ("a quarter of RAM").
std::optional<int64_t> IntOr(const char* name, int64_t min, int64_t max,
                             std::string_view default_text);

// Returns the value of `name` when it is one of `choices` (exact, case-sensitive), or `fallback`
// when unset; any other value warns (listing the choices) and gives `fallback`.
std::string Choice(const char* name, std::initializer_list<std::string_view> choices,
                   std::string_view fallback);

// Returns the boolean in `name`: 1/true/on/yes or 0/false/off/no (any case); `fallback` when unset
// or, with a warning, when anything else.
bool Bool(const char* name, bool fallback);

// Writes "[aicore warn] <name>=<value>: <problem>; <consequence>" to stderr. Environment warnings
// are always printed, whatever AICORE_LOG_LEVEL says (the level itself is one of them).
void Warn(const char* name, std::string_view value, std::string_view problem);

// Returns the AICORE_* variables aicore reads, in the order docs/environment.md lists them.
std::initializer_list<const char*> KnownVariables();

}  // namespace aicore::env
