// What the `aicore` command's subcommands share: the table of commands and options (the one place
// help text, suggestions and bash completion come from), the usage-error convention and the lookup
// of bundled examples by name.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace aicore::cli {

// Exit status of a command-line mistake (unknown command or option, missing argument), as git,
// cmake and getopt-based tools use.
inline constexpr int kUsageExitCode = 2;

struct Option {
  const char* spelling;  // "--chip", or "-h, --help"
  const char* value;     // "NAME|FILE.json", "" when the option takes none
  const char* help;      // one line
};

struct Command {
  const char* name;
  const char* synopsis;  // what follows the name: "[OPTIONS] PROGRAM [ARGS...]"
  const char* summary;   // one line, for `aicore --help`
  const char* details;   // a paragraph for `aicore <name> --help`, may be ""
  std::vector<Option> options;
  int (*run)(int argc, char** argv);  // argv[1] is the command's name
};

// Returns every command, in the order `aicore --help` lists them.
const std::vector<Command>& Commands();
// Returns the command named `name`, or nullptr.
const Command* FindCommand(std::string_view name);
// Returns the options `aicore` itself takes (before any command).
const std::vector<Option>& GlobalOptions();

// Writes the top-level help (commands and global options, one line each) to `out`.
void PrintHelp(std::FILE* out);
// Writes `command`'s help (synopsis, description, options one line each) to `out`.
void PrintCommandHelp(const Command& command, std::FILE* out);

// Returns true for "-h" and "--help".
bool IsHelpFlag(std::string_view arg);

// Returns the Levenshtein distance between `a` and `b`.
int EditDistance(std::string_view a, std::string_view b);
// Returns the candidate closest to `given` when it is close enough to be a likely typo (edit
// distance at most 2, or at most a third of the word's length for longer words, or `given` a
// prefix of exactly one candidate), else "".
std::string ClosestMatch(std::string_view given, const std::vector<std::string>& candidates);

// Reports an unknown option of `command` ("" for aicore itself) on stderr, with the closest
// option of that command as a suggestion and a pointer to its --help; returns kUsageExitCode.
int UnknownOption(std::string_view command, std::string_view option);
// Reports a usage mistake of `command` (message, then "see 'aicore <command> --help'") on stderr;
// returns kUsageExitCode.
int UsageError(std::string_view command, std::string_view message);

// Returns the directories `aicore` looks in for bundled examples, in search order: the build
// tree's examples/ next to the tool's own directory, then an install's share/aicore/examples.
// Only existing directories are returned.
std::vector<std::string> ExampleDirs();
// Returns the path of the example binary named `name` in ExampleDirs(), or "".
std::string FindExample(std::string_view name);
// Returns the program to execute for `arg`: `arg` itself when it contains a '/' or names a file
// in the working directory, else the bundled example of that name when there is one, else `arg`
// (for execvp to search PATH).
std::string ResolveProgram(const std::string& arg);

// The commands' entry points; argv[1] is the command's name. Each returns the exit status.
int CmdCheck(int argc, char** argv);       // cmd_check.cc
int CmdProfile(int argc, char** argv);     // cmd_profile.cc
int CmdTune(int argc, char** argv);        // cmd_tune.cc
int CmdChips(int argc, char** argv);       // aicore_main.cc, as are the four below
int CmdInfo(int argc, char** argv);
int CmdExamples(int argc, char** argv);
int CmdHelp(int argc, char** argv);
int CmdCompletion(int argc, char** argv);

// Writes a bash completion script for `aicore` (commands, each command's options, chip names
// after --chip, example names and files for PROGRAM) to `out`.
void PrintBashCompletion(std::FILE* out);

}  // namespace aicore::cli
