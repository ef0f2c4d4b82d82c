// Tests of the aicore-asc <<<>>> rewriter: launch syntax, kernel types from qualifier markers,
// literals and comments left alone, line numbers kept, malformed launches reported.
#include "tools/asc/rewrite.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace aicore::asc {
namespace {

constexpr char kPrefix[] = "::aicore::detail::AscLaunch(";

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(Rewrite, PlainLaunch) {
  const std::string src = "void f(){ add_custom<<<8, 0, stream>>>(x, y, z); }\n";
  const RewriteResult r = Rewrite(src);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(r.launches, 1);
  EXPECT_NE(r.text.find(std::string(kPrefix) + "add_custom, ::aicore::AscKernelInfo{\"add_custom\""),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("2201}, 8, 0, stream)(x, y, z);"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("<<<"), std::string::npos);
}

TEST(Rewrite, TemplateQualifiedAndNestedArguments) {
  const std::string src =
      "void f(){ ::ns::add_custom<float, Tile<2048>><<<Blocks(n, (m)), sizeof(int), s[0]>>>"
      "(x, g(y, z<int>{}), cast<int*>(p)); }\n";
  const RewriteResult r = Rewrite(src);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  EXPECT_NE(r.text.find(std::string(kPrefix) +
                        "::ns::add_custom<float, Tile<2048>>, ::aicore::AscKernelInfo{"
                        "\"add_custom\""),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("}, Blocks(n, (m)), sizeof(int), s[0])(x, g(y, z<int>{}), cast<int*>(p));"),
            std::string::npos)
      << r.text;
}

TEST(Rewrite, OneAndTwoArgumentForms) {
  const RewriteResult r = Rewrite("k<<<4>>>(a); k<<<4, nullptr>>>(a);");
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(r.launches, 2);
  EXPECT_NE(r.text.find("}, 4)(a);"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("}, 4, nullptr)(a);"), std::string::npos) << r.text;
}

TEST(Rewrite, StringsCommentsAndCharsAreLeftAlone) {
  const std::string src =
      "const char* s = \"k<<<1, 0, s>>>(x)\"; // k<<<1>>>(x)\n"
      "/* k<<<2>>>(y) */ char c = '<'; auto r = R\"x(k<<<3>>>(z))x\";\n"
      "int n = 1'000 << 2; std::cout << x; a<b<c<int>>> v;\n";
  const RewriteResult r = Rewrite(src);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.launches, 0);
  EXPECT_EQ(r.text, src);
}

TEST(Rewrite, OperatorShiftIsNotALaunch) {
  const std::string src = "template <class T> S& operator<<<T>(S& s, T v);\n";
  const RewriteResult r = Rewrite(src);
  EXPECT_EQ(r.launches, 0);
  EXPECT_EQ(r.text, src);
}

TEST(Rewrite, MultiLineLaunchKeepsLineNumbers) {
  const std::string src = "void f() {\n  k<<<8,\n    0,\n    stream>>>(x,\n    y);\n}\nint after;\n";
  const RewriteResult r = Rewrite(src);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(Lines(r.text), Lines(src));
  EXPECT_EQ(r.text.substr(r.text.rfind("int after")), "int after;\n");
}

std::string ModeOf(const std::string& text) {
  const size_t at = text.find("::aicore::KernelMode::");
  if (at == std::string::npos) return "";
  const size_t b = at + std::string("::aicore::KernelMode::").size();
  return text.substr(b, text.find(',', b) - b);
}

TEST(Rewrite, QualifierMarkersSetTheKernelType) {
  struct Case {
    const char* decl;
    const char* mode;
  } cases[] = {
      {"__aicore_asc_vector__ __aicore_asc_global__ void k(int*);", "kAiv"},
      {"__aicore_asc_global__ __aicore_asc_cube__ void k(int*);", "kAic"},
      {"__aicore_asc_global__ __aicore_asc_mix__(1, 2) void k(int*);", "kMix"},
      {"__aicore_asc_global__ __aicore_asc_mix__(1,1) void k(int*);", "kMix1To1"},
      {"__aicore_asc_global__ __aicore_asc_mix__(1, 0) void k(int*);", "kAic"},
      {"__aicore_asc_global__ __aicore_asc_mix__(0, 1) void k(int*);", "kAiv"},
      {"template <int N> __aicore_asc_global__ __aicore_asc_cube__ void k(int*) {}", "kAic"},
      {"extern \"C\" __aicore_asc_global__ __attribute__((used)) __aicore_asc_cube__ void k(int*);",
       "kAic"},
  };
  for (const Case& c : cases) {
    const RewriteResult r = Rewrite(std::string(c.decl) + "\nvoid h() { k<<<2, 0, s>>>(p); }\n");
    ASSERT_TRUE(r.errors.empty()) << c.decl << ": " << r.errors[0];
    EXPECT_EQ(ModeOf(r.text), c.mode) << c.decl;
    EXPECT_EQ(r.text.find("__aicore_asc_"), std::string::npos) << r.text;
  }
}

TEST(Rewrite, DeclarationInAHeaderAndRedeclaration) {
  // The header's declaration carries the type; the definition repeats only __global__.
  const std::string src =
      "# 1 \"kernel.h\"\n__aicore_asc_global__ __aicore_asc_mix__(1, 2) void mm(int*);\n"
      "# 1 \"main.asc\"\n__aicore_asc_global__ void mm(int* p) { }\n"
      "void run() { mm<<<1, 0, nullptr>>>(nullptr); }\n";
  const RewriteResult r = Rewrite(src);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(ModeOf(r.text), "kMix");
  EXPECT_NE(r.text.find("\"__mix__(1, 2)\""), std::string::npos);
}

TEST(Rewrite, ConflictingDeclarationsAreAnError) {
  const RewriteResult r = Rewrite(
      "__aicore_asc_global__ __aicore_asc_vector__ void k();\n"
      "__aicore_asc_global__ __aicore_asc_cube__ void k();\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("declared both __vector__ and __cube__"), std::string::npos);
}

TEST(Rewrite, UnsupportedMixRatioIsAnError) {
  const RewriteResult r = Rewrite("__aicore_asc_global__ __aicore_asc_mix__(2, 1) void k();\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("(1, 2), (1, 1), (1, 0), (0, 1)"), std::string::npos);
}

TEST(Rewrite, UndecoratedKernelsFollowTheUnitsCode) {
  const std::string launch = "\nvoid h() { k<<<2, 0, s>>>(p); }\n";
  const std::string decl = "__aicore_asc_global__ void k(int* p) { ";
  EXPECT_EQ(ModeOf(Rewrite(decl + "Add(z, x, y, n); }" + launch).text), "kAiv");
  EXPECT_EQ(ModeOf(Rewrite(decl + "}" + launch).text), "kAiv");
  EXPECT_EQ(ModeOf(Rewrite(decl + "TQue<TPosition::A1, 1> q; Mmad(c, a, b, p); }" + launch).text),
            "kAic");
  EXPECT_EQ(ModeOf(Rewrite(decl + "TQue<TPosition::A1, 1> a; TQue<TPosition::VECIN, 1> b; }" +
                           launch).text),
            "kMix");
  EXPECT_EQ(ModeOf(Rewrite(decl + "Matmul<A, B, C> mm; }" + launch).text), "kMix");
  // Names in system headers (line marker flag 3) do not count.
  EXPECT_EQ(ModeOf(Rewrite("# 1 \"/inc/matmul.h\" 1 3\nvoid Mmad(); class Matmul;\n"
                           "# 5 \"k.asc\" 2\n" + decl + "}" + launch).text),
            "kAiv");
}

// Note [printf in kernel bodies]: unqualified printf calls in kernel bodies name the kernel
// printf; host code, members, qualified calls and units without aicore's printf are untouched.
TEST(Rewrite, KernelBodyPrintfIsTheKernelPrintf) {
  const std::string head = "# 1 \"/p/include/aicore/kernel/debug/print.h\" 1 3\nint x;\n"
                           "# 2 \"hello.asc\"\n";
  const std::string body =
      "__aicore_asc_global__ __aicore_asc_vector__ void hello() __attribute__((used)) {\n"
      "  printf(\"Hello World!!!\\n\"); ::printf(\"c\"); AscendC::printf(\"q\");\n"
      "  s.printf(\"m\"); p->printf(\"m\"); { printf(\"%d\", 1); }\n"
      "}\n"
      "__aicore_asc_global__ void decl_only(int);\n"
      "int main() { printf(\"host\\n\"); hello<<<8, 0, nullptr>>>(); }\n";
  const RewriteResult r = Rewrite(head + body);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(r.printf_calls, 2);
  EXPECT_NE(r.text.find("{\n  ::AscendC::printf(\"Hello World!!!\\n\"); ::printf(\"c\"); "
                        "AscendC::printf(\"q\");\n  s.printf(\"m\"); p->printf(\"m\"); "
                        "{ ::AscendC::printf(\"%d\", 1); }\n}"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("int main() { printf(\"host\\n\");"), std::string::npos) << r.text;
  EXPECT_EQ(Lines(r.text), Lines(head + body));
  const RewriteResult plain = Rewrite(body);  // no kernel printf declared: left alone
  EXPECT_EQ(plain.printf_calls, 0);
  EXPECT_EQ(plain.text.find("::AscendC::printf"), std::string::npos);
}

TEST(Rewrite, ErrorsNameTheUsersLine) {
  const RewriteResult a = Rewrite("# 10 \"main.asc\"\nint x;\nvoid f() { k<<<1, 0, s>>>; }\n");
  ASSERT_EQ(a.errors.size(), 1u);
  EXPECT_EQ(a.errors[0].rfind("main.asc:11: ", 0), 0u) << a.errors[0];
  EXPECT_NE(a.errors[0].find("argument list"), std::string::npos);
  const RewriteResult b = Rewrite("void f() { k<<<1, 0, s, t>>>(x); }");
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_NE(b.errors[0].find("got 4 argument(s)"), std::string::npos);
  const RewriteResult c = Rewrite("void f() { k<<<1, 0, s(x); }");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].find("no closing >>>"), std::string::npos);
}

}  // namespace
}  // namespace aicore::asc
