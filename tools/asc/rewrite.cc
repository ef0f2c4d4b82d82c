// The <<<>>> rewriter.
//
// - A small lexer splits the unit into identifiers, numbers, string/character literals (raw
//   strings and digit separators included) and single punctuation characters; comments and
//   preprocessor lines are skipped, and `# <line> "<file>" <flags>` markers keep every token's
//   presumed file and line (and whether it comes from a system header, flag 3).
// - Declarations: a kernel is the function whose name precedes the first `(` after a __global__
//   marker within one declaration (no `;`, `{` or `}` in between); the __vector__ / __cube__ /
//   __mix__(c, v) markers of that declaration give its kernel type.
// - Launches: three adjacent `<` (not after `operator`) start a launch. Its callee is read
//   backwards (an identifier with optional template arguments, optionally qualified); its launch
//   arguments run to three adjacent `>` outside parentheses, brackets and braces; an argument
//   list `(` must follow. `callee<<<a, b, c>>>` becomes
//   `::aicore::detail::AscLaunch(callee, ::aicore::AscKernelInfo{...}, a, b, c)`; the original
//   argument list then calls the returned launcher. Only text on launch sites changes, and launch
//   arguments are copied verbatim, so every line keeps its number.
// - Kernel printf: see Note [printf in kernel bodies].
//
// Note [printf in kernel bodies]
// bisheng compiles a kernel body for the device, where the only printf is the kernel one
// (AscendC::printf, exported to the global namespace by utils/debug/asc_printf.h), so
// `printf("Hello\n")` in a kernel prints with the core prefix. On the CPU the same unqualified
// call also sees C's ::printf, and with no arguments after the format C's non-template
// declaration wins the tie against the variadic template: the line would come out bare. So, in
// the body of a __global__ kernel defined in the unit (not in system headers), an unqualified
// call `printf(` becomes `::AscendC::printf(` when the unit includes aicore's kernel printf.
// Member calls (`x.printf(`), qualified calls and host code (main, helpers) are left alone;
// __aicore__ helper functions are not kernels and keep C's printf for a call without arguments.
//
// Note [Undecorated kernels]
// CANN's compiler infers the type of a `__global__ __aicore__` kernel without a core qualifier
// from the instructions it compiles to (vector only: AIV; cube only: AIC; both, or the Matmul
// API's AIV-AIC messages: a 1:2 mix), and refuses to infer with several kernels in one unit. The
// rewriter applies the same rule to what it can see without a compiler: the unit's own code
// (outside system headers, which include aicore's) using the Matmul API, or naming both cube
// positions (A1, A2, B1, B2, CO1, CO2, Hardware::L1/L0A/L0B/L0C) and vector positions (VECIN,
// VECOUT, VECCALC, Hardware::UB), is a 1:2 mix; cube positions or Mmad/LoadData/Fixpipe alone
// give AIC only; anything else (vector code, pure scalar code) gives AIV only. Every
// undecorated kernel of a unit gets the unit's type. docs/asc-language.md states the rule.
#include "tools/asc/rewrite.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace aicore::asc {

namespace {

enum class TokKind { kIdent, kNumber, kString, kPunct };

struct Token {
  TokKind kind;
  size_t begin;
  size_t end;
  int line;        // presumed line in `file`
  int file;        // index into Lexer::files
  bool system;     // from a system header (line marker flag 3)
};

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) { files.push_back("<input>"); }

  std::vector<Token> Run() {
    bool line_start = true;
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
        line_start = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
        continue;
      }
      if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
        continue;
      }
      if (line_start && c == '#') {
        Directive();
        continue;
      }
      line_start = false;
      if (c == '/' && Peek(1) == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '/' && Peek(1) == '*') {
        pos_ += 2;
        while (pos_ < src_.size() && !(src_[pos_] == '*' && Peek(1) == '/')) {
          if (src_[pos_] == '\n') ++line_;
          ++pos_;
        }
        pos_ = std::min(src_.size(), pos_ + 2);
        continue;
      }
      const size_t begin = pos_;
      const int line = line_;
      TokKind kind;
      if (IsIdentStart(c)) {
        while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
        const std::string_view word = src_.substr(begin, pos_ - begin);
        if (pos_ < src_.size() && (src_[pos_] == '"' || src_[pos_] == '\'') && IsPrefix(word)) {
          if (word.back() == 'R' && src_[pos_] == '"') {
            RawString();
          } else {
            Quoted(src_[pos_]);
          }
          kind = TokKind::kString;
        } else {
          kind = TokKind::kIdent;
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(Peek(1))))) {
        Number();
        kind = TokKind::kNumber;
      } else if (c == '"' || c == '\'') {
        Quoted(c);
        kind = TokKind::kString;
      } else {
        ++pos_;
        kind = TokKind::kPunct;
      }
      tokens_.push_back({kind, begin, pos_, line, file_, system_});
    }
    return std::move(tokens_);
  }

  std::vector<std::string> files;

 private:
  char Peek(size_t ahead) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  static bool IsPrefix(std::string_view w) {
    return w == "u8" || w == "u" || w == "U" || w == "L" || w == "R" || w == "u8R" ||
           w == "uR" || w == "UR" || w == "LR";
  }

  void Quoted(char quote) {
    ++pos_;
    while (pos_ < src_.size() && src_[pos_] != quote && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) ++pos_;
      ++pos_;
    }
    if (pos_ < src_.size() && src_[pos_] == quote) ++pos_;
  }

  void RawString() {
    // R"delim( ... )delim"
    const size_t open = src_.find('(', pos_);
    if (open == std::string_view::npos) {
      pos_ = src_.size();
      return;
    }
    const std::string close =
        ")" + std::string(src_.substr(pos_ + 1, open - pos_ - 1)) + "\"";
    const size_t end = src_.find(close, open + 1);
    const size_t stop = end == std::string_view::npos ? src_.size() : end + close.size();
    for (size_t i = pos_; i < stop; ++i) line_ += src_[i] == '\n' ? 1 : 0;
    pos_ = stop;
  }

  void Number() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (IsIdentChar(c) || c == '.') {
        ++pos_;
      } else if (c == '\'' && IsIdentChar(Peek(1))) {
        pos_ += 2;  // digit separator
      } else if ((c == '+' || c == '-') && pos_ > 0 &&
                 std::string_view("eEpP").find(src_[pos_ - 1]) != std::string_view::npos) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  // A preprocessor line: a line marker updates the presumed position; others are skipped.
  void Directive() {
    size_t end = pos_;
    while (end < src_.size() && src_[end] != '\n') {
      if (src_[end] == '\\' && end + 1 < src_.size() && src_[end + 1] == '\n') ++end;
      ++end;
    }
    std::string text(src_.substr(pos_ + 1, end - pos_ - 1));
    for (size_t i = pos_; i < end; ++i) line_ += src_[i] == '\n' ? 1 : 0;
    pos_ = end;
    std::istringstream in(text);
    std::string first;
    in >> first;
    if (first == "line") in >> first;
    if (first.empty() || !std::isdigit(static_cast<unsigned char>(first[0]))) return;
    const int number = std::atoi(first.c_str());
    std::string rest;
    std::getline(in, rest);
    const size_t q0 = rest.find('"');
    const size_t q1 = q0 == std::string::npos ? q0 : rest.find('"', q0 + 1);
    if (q1 != std::string::npos) {
      const std::string name = rest.substr(q0 + 1, q1 - q0 - 1);
      file_ = -1;
      for (size_t i = 0; i < files.size(); ++i) {
        if (files[i] == name) file_ = static_cast<int>(i);
      }
      if (file_ < 0) {
        files.push_back(name);
        file_ = static_cast<int>(files.size()) - 1;
      }
      std::istringstream flags(rest.substr(q1 + 1));
      int flag = 0;
      system_ = false;
      while (flags >> flag) system_ = system_ || flag == 3;
    }
    // The line after the marker (which ends at `end`, before its newline) is `number`.
    line_ = number - 1;
  }

  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  int file_ = 0;
  bool system_ = false;
  std::vector<Token> tokens_;
};

// A kernel type as the runtime spells it (aicore::KernelMode) plus how it was chosen.
struct KernelType {
  std::string mode;  // "kAiv", "kAic", "kMix", "kMix1To1"
  std::string how;   // "__vector__", "__mix__(1, 2)", "undecorated: ..."
};

class Rewriter {
 public:
  Rewriter(std::string_view src, const RewriteOptions& options)
      : src_(src), options_(options), lexer_(src) {
    toks_ = lexer_.Run();
  }

  RewriteResult Run() {
    for (const std::string& f : lexer_.files) {
      if (f.ends_with("aicore/kernel/debug/print.h")) has_kernel_printf_ = true;
    }
    ScanDeclarations();
    InferUnitType();
    ScanLaunches();
    RewriteResult result;
    result.errors = std::move(errors_);
    result.launches = launches_;
    result.printf_calls = printf_calls_;
    std::sort(edits_.begin(), edits_.end(),
              [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    size_t at = 0;
    for (const Edit& e : edits_) {
      if (e.begin < at) continue;  // nested in an earlier edit (a marker inside a launch)
      result.text.append(src_.substr(at, e.begin - at));
      result.text.append(e.text);
      at = e.end;
    }
    result.text.append(src_.substr(at));
    return result;
  }

 private:
  struct Edit {
    size_t begin;
    size_t end;
    std::string text;
  };

  std::string_view Text(const Token& t) const { return src_.substr(t.begin, t.end - t.begin); }
  std::string_view Text(size_t from_tok, size_t to_tok) const {  // [from, to)
    if (from_tok >= to_tok) return {};
    return src_.substr(toks_[from_tok].begin, toks_[to_tok - 1].end - toks_[from_tok].begin);
  }
  bool IsPunct(size_t i, char c) const {
    return i < toks_.size() && toks_[i].kind == TokKind::kPunct && src_[toks_[i].begin] == c;
  }
  bool IsIdent(size_t i) const { return i < toks_.size() && toks_[i].kind == TokKind::kIdent; }
  bool Adjacent(size_t i) const { return toks_[i].begin == toks_[i - 1].end; }
  bool IsScope(size_t i) const {  // tokens i-1, i are "::"
    return i >= 1 && IsPunct(i - 1, ':') && IsPunct(i, ':') && Adjacent(i);
  }

  void Error(size_t tok, const std::string& message) {
    const Token& t = toks_[std::min(tok, toks_.size() - 1)];
    errors_.push_back(lexer_.files[t.file] + ":" + std::to_string(t.line) + ": " + message);
  }

  void ScanDeclarations() {
    bool global = false;
    std::string kind;  // "__vector__", "__cube__", "__mix__(c, v)" or empty
    std::string mode;
    size_t global_tok = 0;
    for (size_t i = 0; i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.kind == TokKind::kPunct) {
        const char c = src_[t.begin];
        if (c == ';' || c == '{' || c == '}') {
          global = false;
          kind.clear();
          mode.clear();
        } else if (c == '(' && global && IsIdent(i - 1) && !IsAttribute(Text(toks_[i - 1]))) {
          RecordKernel(std::string(Text(toks_[i - 1])), kind, mode, global_tok);
          QualifyKernelPrintf(i);
          global = false;
          kind.clear();
          mode.clear();
        }
        continue;
      }
      if (t.kind != TokKind::kIdent) continue;
      const std::string_view w = Text(t);
      if (w == kGlobalMarker) {
        global = true;
        global_tok = i;
        edits_.push_back({t.begin, t.end, ""});
      } else if (w == kVectorMarker) {
        kind = "__vector__";
        mode = "kAiv";
        edits_.push_back({t.begin, t.end, ""});
      } else if (w == kCubeMarker) {
        kind = "__cube__";
        mode = "kAic";
        edits_.push_back({t.begin, t.end, ""});
      } else if (w == kMixMarker) {
        // __mix__ ( cube , vector )
        if (!(IsPunct(i + 1, '(') && i + 5 < toks_.size() &&
              toks_[i + 2].kind == TokKind::kNumber && IsPunct(i + 3, ',') &&
              toks_[i + 4].kind == TokKind::kNumber && IsPunct(i + 5, ')'))) {
          Error(i, "__mix__ takes two integer literals: __mix__(1, 2), (1, 1), (1, 0) or (0, 1)");
          edits_.push_back({t.begin, t.end, ""});
          continue;
        }
        const int c = std::atoi(std::string(Text(toks_[i + 2])).c_str());
        const int v = std::atoi(std::string(Text(toks_[i + 4])).c_str());
        kind = "__mix__(" + std::to_string(c) + ", " + std::to_string(v) + ")";
        if (c == 1 && v == 2) {
          mode = "kMix";
        } else if (c == 1 && v == 1) {
          mode = "kMix1To1";
        } else if (c == 1 && v == 0) {
          mode = "kAic";
        } else if (c == 0 && v == 1) {
          mode = "kAiv";
        } else {
          Error(i, kind + " is not a kernel type: the ratios are (1, 2), (1, 1), (1, 0), (0, 1)");
          kind.clear();
          mode.clear();
        }
        edits_.push_back({t.begin, toks_[i + 5].end, ""});
        i += 5;
      }
    }
  }

  // Returns the token that closes the bracket opened at token `open` ('(' or '{'), or npos.
  size_t Matching(size_t open) const {
    const char o = src_[toks_[open].begin];
    const char c = o == '(' ? ')' : '}';
    int depth = 0;
    for (size_t k = open; k < toks_.size(); ++k) {
      if (IsPunct(k, o)) ++depth;
      if (IsPunct(k, c) && --depth == 0) return k;
    }
    return std::string_view::npos;
  }

  // See Note [printf in kernel bodies]. `paren` is the `(` of a kernel's parameter list.
  void QualifyKernelPrintf(size_t paren) {
    if (!has_kernel_printf_) return;
    size_t k = Matching(paren);
    if (k == std::string_view::npos) return;
    // Past attributes and specifiers to the body's `{` (a bare declaration ends at `;`).
    for (++k; k < toks_.size(); ++k) {
      if (IsPunct(k, '(')) {
        k = Matching(k);
        if (k == std::string_view::npos) return;
        continue;
      }
      if (IsPunct(k, ';') || IsPunct(k, '}') || IsPunct(k, '=')) return;
      if (IsPunct(k, '{')) break;
    }
    if (k >= toks_.size() || toks_[k].system) return;
    const size_t close = Matching(k);
    if (close == std::string_view::npos) return;
    for (size_t j = k + 1; j < close; ++j) {
      if (!IsIdent(j) || Text(toks_[j]) != "printf" || !IsPunct(j + 1, '(')) continue;
      if (IsScope(j - 1) || IsPunct(j - 1, '.') || (IsPunct(j - 1, '>') && IsPunct(j - 2, '-'))) {
        continue;  // already qualified, or a member
      }
      edits_.push_back({toks_[j].begin, toks_[j].end, "::AscendC::printf"});
      ++printf_calls_;
    }
  }

  static bool IsAttribute(std::string_view w) {
    return w == "__attribute__" || w == "__declspec" || w == "alignas" || w == "decltype" ||
           w == "__global__" || w == "noexcept";
  }

  void RecordKernel(const std::string& name, const std::string& kind, const std::string& mode,
                    size_t tok) {
    auto it = kernels_.find(name);
    if (kind.empty()) {
      if (it == kernels_.end()) kernels_[name] = {};
      return;
    }
    if (it != kernels_.end() && !it->second.how.empty() && it->second.how != kind) {
      Error(tok, "kernel " + name + " is declared both " + it->second.how + " and " + kind);
      return;
    }
    kernels_[name] = {mode, kind};
  }

  void InferUnitType() {
    bool cube = false;
    bool vector = false;
    bool matmul = false;
    static const std::set<std::string_view> kCubePositions = {"A1", "A2", "B1", "B2", "CO1",
                                                              "CO2", "L1", "L0A", "L0B", "L0C"};
    static const std::set<std::string_view> kVectorPositions = {"VECIN", "VECOUT", "VECCALC",
                                                                "UB"};
    static const std::set<std::string_view> kCubeApis = {"Mmad", "LoadData", "Fixpipe",
                                                         "MmadWithSparse", "LoadDataWithTranspose"};
    static const std::set<std::string_view> kMatmulApis = {"Matmul", "MatmulImpl",
                                                           "REGIST_MATMUL_OBJ", "MatmulType"};
    for (size_t i = 0; i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.kind != TokKind::kIdent || t.system) continue;
      const std::string_view w = Text(t);
      const bool scoped = i >= 2 && IsScope(i - 1);
      if (scoped && kCubePositions.count(w)) cube = true;
      if (scoped && kVectorPositions.count(w)) vector = true;
      if (kCubeApis.count(w)) cube = true;
      if (kMatmulApis.count(w)) matmul = true;
    }
    if (matmul || (cube && vector)) {
      unit_type_ = {"kMix", matmul ? "undecorated: inferred __mix__(1, 2) from the Matmul API"
                                   : "undecorated: inferred __mix__(1, 2) from cube and vector "
                                     "code in this unit"};
    } else if (cube) {
      unit_type_ = {"kAic", "undecorated: inferred __cube__ from cube-only code in this unit"};
    } else {
      unit_type_ = {"kAiv", "undecorated: inferred __vector__ (no cube code in this unit)"};
    }
  }

  // Returns the index of the first token of the callee ending at token `last`, or npos.
  size_t CalleeStart(size_t last, size_t* name_tok) {
    size_t j = last;
    for (;;) {
      if (IsPunct(j, '>')) {
        int depth = 0;
        size_t k = j;
        for (;; --k) {
          if (IsPunct(k, '>') || IsPunct(k, ')') || IsPunct(k, ']')) ++depth;
          if (IsPunct(k, '<') || IsPunct(k, '(') || IsPunct(k, '[')) --depth;
          if (depth == 0 || k == 0) break;
        }
        if (depth != 0 || k == 0 || !IsPunct(k, '<')) return std::string_view::npos;
        j = k - 1;
      }
      if (!IsIdent(j)) return std::string_view::npos;
      if (*name_tok == std::string_view::npos) *name_tok = j;
      size_t q = j;
      if (q >= 3 && IsIdent(q - 1) && Text(toks_[q - 1]) == "template" && IsScope(q - 2)) --q;
      if (q >= 2 && IsScope(q - 1)) {
        if (q >= 3 && (IsIdent(q - 3) || IsPunct(q - 3, '>'))) {
          j = q - 3;
          continue;
        }
        return q - 2;  // leading ::
      }
      return j;
    }
  }

  void ScanLaunches() {
    for (size_t i = 0; i + 2 < toks_.size(); ++i) {
      if (!(IsPunct(i, '<') && IsPunct(i + 1, '<') && IsPunct(i + 2, '<') && Adjacent(i + 1) &&
            Adjacent(i + 2))) {
        continue;
      }
      if (i == 0 || (IsIdent(i - 1) && Text(toks_[i - 1]) == "operator")) continue;
      size_t name_tok = std::string_view::npos;
      const size_t start = CalleeStart(i - 1, &name_tok);
      if (start == std::string_view::npos) {
        Error(i, "a <<<>>> launch needs a kernel name before <<< (an identifier, optionally "
                 "qualified or with template arguments)");
        i += 2;
        continue;
      }
      // Launch arguments up to >>> at depth 0.
      std::vector<std::pair<size_t, size_t>> args;  // token ranges [b, e)
      size_t arg_begin = i + 3;
      size_t k = i + 3;
      int depth = 0;
      bool closed = false;
      for (; k < toks_.size(); ++k) {
        if (depth == 0 && k + 2 < toks_.size() && IsPunct(k, '>') && IsPunct(k + 1, '>') &&
            IsPunct(k + 2, '>') && Adjacent(k + 1) && Adjacent(k + 2)) {
          closed = true;
          break;
        }
        if (IsPunct(k, '(') || IsPunct(k, '[') || IsPunct(k, '{')) ++depth;
        if (IsPunct(k, ')') || IsPunct(k, ']') || IsPunct(k, '}')) {
          if (--depth < 0) break;
        }
        if (IsPunct(k, ';')) break;
        if (depth == 0 && IsPunct(k, ',')) {
          args.push_back({arg_begin, k});
          arg_begin = k + 1;
        }
      }
      const std::string name(Text(toks_[name_tok]));
      if (!closed) {
        Error(i, "the <<<>>> launch of " + name + " has no closing >>>");
        i += 2;
        continue;
      }
      args.push_back({arg_begin, k});
      const size_t close_end = k + 3;  // first token after >>>
      if (!IsPunct(close_end, '(')) {
        Error(k, "the <<<>>> launch of " + name + " needs the kernel's argument list after >>>");
        i = k + 2;
        continue;
      }
      if (args.size() > 3 || args.front().first == args.front().second) {
        Error(i, "the <<<>>> launch of " + name +
                     " takes numBlocks[, dynUBufSize or l2ctrl[, stream]]; got " +
                     std::to_string(args.size()) + " argument(s)");
        i = k + 2;
        continue;
      }
      for (const auto& a : args) {
        if (a.first == a.second) {
          Error(i, "the <<<>>> launch of " + name + " has an empty launch argument");
        }
      }
      KernelType type = unit_type_;
      auto it = kernels_.find(name);
      if (it != kernels_.end() && !it->second.how.empty()) type = it->second;
      std::string text = "::aicore::detail::AscLaunch(";
      text += Text(start, i);
      text += ", ::aicore::AscKernelInfo{\"" + name + "\", ::aicore::KernelMode::" + type.mode +
              ", \"" + type.how + "\", " + std::to_string(options_.npu_arch) + "}, ";
      text += Text(i + 3, k);
      text += ")";
      edits_.push_back({toks_[start].begin, toks_[k + 2].end, std::move(text)});
      ++launches_;
      i = k + 2;
    }
  }

  std::string_view src_;
  RewriteOptions options_;
  Lexer lexer_;
  std::vector<Token> toks_;
  std::vector<Edit> edits_;
  std::vector<std::string> errors_;
  std::map<std::string, KernelType> kernels_;
  KernelType unit_type_;
  int launches_ = 0;
  int printf_calls_ = 0;
  bool has_kernel_printf_ = false;  // the unit includes AscendC::printf (kernel/debug/print.h)
};

}  // namespace

RewriteResult Rewrite(std::string_view source, const RewriteOptions& options) {
  return Rewriter(source, options).Run();
}

}  // namespace aicore::asc
