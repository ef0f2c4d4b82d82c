// Chip descriptions are validated against their schema before use: each bad field is an
// InvalidArgument naming the file, the JSON path, the value and what is allowed; the `aicore` CLI
// reports it and exits 1 instead of aborting on a parser exception.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "aicore/arch/chip.h"

namespace aicore::arch {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json Preset(const char* name = "ascend910b1") { return LoadChip(name).raw; }

// Returns the message ParseChip raises for `j`, or "accepted".
std::string Rejection(const json& j, const char* origin = "my_chip.json") {
  try {
    (void)ParseChip(j.dump(), origin);
    return "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument) << e.what();
    return e.status().message();
  } catch (const std::exception& e) {
    return std::string("foreign exception: ") + e.what();
  }
}

TEST(ChipJsonTest, EveryPresetIsValid) {
  for (const auto& name : PresetNames()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(Rejection(Preset(name.c_str()), name.c_str()), "accepted");
  }
}

TEST(ChipJsonTest, CapabilitiesAreBooleansOfSplitChips) {
  EXPECT_TRUE(LoadChip("ascend950").fixpipe_to_ub);
  EXPECT_FALSE(LoadChip("ascend910b1").fixpipe_to_ub);  // absent: false
  json j = Preset("ascend950");
  j["capabilities"]["fixpipe_to_ub"] = "yes";
  EXPECT_EQ(Rejection(j), "chip description my_chip.json: capabilities.fixpipe_to_ub is \"yes\"; "
                          "allowed: true or false");
  j["capabilities"]["fixpipe_to_ub"] = true;
  j["capabilities"]["fixpipe_to_l2"] = true;
  EXPECT_THAT(Rejection(j), HasSubstr("capabilities.fixpipe_to_l2 is true; allowed: no such field "
                                      "(known: fixpipe_to_ub, cube_fp32, source)"));
  // cube_fp32: the A2-class presets and ascend950 declare it; absent: false.
  for (const char* name : {"ascend910b1", "ascend910b4", "ascend950"}) {
    EXPECT_TRUE(LoadChip(name).cube_fp32) << name;
  }
  EXPECT_FALSE(LoadChip("ascend310p").cube_fp32);
  EXPECT_FALSE(LoadChip("ascend910").cube_fp32);
  j = Preset("ascend950");
  j["capabilities"]["cube_fp32"] = 1;
  EXPECT_EQ(Rejection(j), "chip description my_chip.json: capabilities.cube_fp32 is 1; "
                          "allowed: true or false");
  j = Preset("ascend310p");
  j["capabilities"] = {{"fixpipe_to_ub", true}};
  EXPECT_THAT(Rejection(j), HasSubstr("capabilities.fixpipe_to_ub is true; allowed: false on a "
                                      "coupled chip"));
}

TEST(ChipJsonTest, AlignMustBeAPowerOfTwo) {
  json j = Preset();
  j["buffers"]["UB"]["align"] = 0;
  EXPECT_EQ(Rejection(j), "chip description my_chip.json: buffers.UB.align is 0; allowed: a power "
                          "of two in [1, 4096]");
  j["buffers"]["UB"]["align"] = 48;
  EXPECT_THAT(Rejection(j), HasSubstr("buffers.UB.align is 48; allowed: a power of two"));
  j["buffers"]["UB"]["align"] = 8192;
  EXPECT_THAT(Rejection(j), HasSubstr("buffers.UB.align is 8192"));
}

TEST(ChipJsonTest, EventIdsMustFitTheFlagWord) {
  json j = Preset();
  j["event_ids"] = 64;  // would make SetFlag(40) satisfy WaitFlag(8) through a 32-bit shift
  EXPECT_EQ(Rejection(j), "chip description my_chip.json: event_ids is 64; allowed: an integer in "
                          "[1, 32]");
  j["event_ids"] = "eight";
  EXPECT_EQ(Rejection(j), "chip description my_chip.json: event_ids is \"eight\"; allowed: an "
                          "integer in [1, 32]");
  j["event_ids"] = 0;
  EXPECT_THAT(Rejection(j), HasSubstr("event_ids is 0"));
  j["event_ids"] = 8.5;
  EXPECT_THAT(Rejection(j), HasSubstr("event_ids is 8.5"));
  j["event_ids"] = 32;
  EXPECT_EQ(Rejection(j), "accepted");
}

TEST(ChipJsonTest, BufferSizesArePositiveAndBlamedOnTheFile) {
  json j = Preset();
  for (const json& bad : {json(0), json(-1), json(-196608), json("192K"), json(1.5),
                         json(uint64_t{1} << 40)}) {
    j["buffers"]["UB"]["bytes"] = bad;
    EXPECT_EQ(Rejection(j), "chip description my_chip.json: buffers.UB.bytes is " + bad.dump() +
                                "; allowed: an integer in [1, 1073741824]");
  }
  j["buffers"]["UB"]["bytes"] = 1000;  // not a multiple of align 32
  EXPECT_EQ(Rejection(j), "chip description my_chip.json: buffers.UB.bytes is 1000; allowed: a "
                          "multiple of its align 32");
  j = Preset();
  j["buffers"].erase("L0A");
  EXPECT_THAT(Rejection(j), HasSubstr("buffers.L0A is missing; allowed: an object"));
  j = Preset();
  j["buffers"]["L2"] = {{"bytes", 1024}};
  EXPECT_THAT(Rejection(j), HasSubstr("buffers.L2 is {\"bytes\":1024}; allowed: a buffer named UB"));
  j = Preset();
  j["buffers"]["UB"]["size"] = 1;
  EXPECT_THAT(Rejection(j), HasSubstr("buffers.UB.size is 1; allowed: no such field"));
}

TEST(ChipJsonTest, WrongTypesAndRangesNameTheField) {
  struct Case {
    const char* key;
    json value;
    const char* expected;
  };
  for (const Case& c : {
           Case{"aic_count", "24", "aic_count is \"24\"; allowed: an integer in [1, 65535]"},
           Case{"aic_count", 0, "aic_count is 0; allowed: an integer in [1, 65535]"},
           Case{"aiv_count", -2, "aiv_count is -2; allowed: an integer in [1, 65535]"},
           Case{"clock_mhz", 0, "clock_mhz is 0; allowed: a number in (0, 100000]"},
           Case{"clock_mhz", "fast", "clock_mhz is \"fast\"; allowed: a number in (0, 100000]"},
           Case{"core_mode", "fused", "core_mode is \"fused\"; allowed: split, coupled"},
           Case{"name", 7, "name is 7; allowed: a non-empty string"},
           Case{"npu_arch", 22.01, "npu_arch is 22.01; allowed: an integer in [100, 9999]"},
           Case{"buffers", json::array(), "buffers is []; allowed: an object"},
           Case{"memory", 5, "memory is 5; allowed: an object"},
           Case{"pipes", "none", "pipes is \"none\"; allowed: an object"},
           Case{"event_id", 8,
                "event_id is 8; allowed: no such field (known: name, soc_version, npu_arch, "
                "core_mode, aic_count, aiv_count, clock_mhz, event_ids, buffers, positions, "
                "memory, capabilities, pipes, source)"},
       }) {
    SCOPED_TRACE(c.key);
    json j = Preset();
    j[c.key] = c.value;
    EXPECT_EQ(Rejection(j), std::string("chip description my_chip.json: ") + c.expected);
  }
  json coupled = Preset("ascend310p");
  coupled["aiv_count"] = 4;
  EXPECT_THAT(Rejection(coupled), HasSubstr("aiv_count is 4; allowed: an integer in [0, 0]"));
  json j = Preset();
  j["memory"]["hbm_bytes"] = -1;
  EXPECT_THAT(Rejection(j), HasSubstr("memory.hbm_bytes is -1"));
}

TEST(ChipJsonTest, PositionsMapToDefinedBuffers) {
  json j = Preset();
  j["positions"]["VECIN"] = "L2";
  EXPECT_THAT(Rejection(j), HasSubstr("positions.VECIN is \"L2\"; allowed: GM or a buffer"));
  j = Preset("ascend310p");  // no BT
  j["positions"]["C2"] = "BT";
  EXPECT_THAT(Rejection(j), HasSubstr("positions.C2 is \"BT\""));
  j = Preset();
  j["positions"]["VECTOR"] = "UB";
  EXPECT_THAT(Rejection(j), HasSubstr("positions.VECTOR is \"UB\"; allowed: a position named"));
  j = Preset();
  j["positions"]["A1"] = 3;
  EXPECT_THAT(Rejection(j), HasSubstr("positions.A1 is 3"));
}

TEST(ChipJsonTest, MalformedTextIsAnInvalidArgument) {
  for (const char* text : {"", "{", "[]", "null", "42", "{\"name\": }"}) {
    SCOPED_TRACE(text);
    try {
      (void)ParseChip(text, "bad.json");
      FAIL() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
      EXPECT_THAT(e.status().message(), HasSubstr("chip description bad.json"));
    }
  }
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ChipJsonTest, LoadChipNamesTheFile) {
  json j = Preset();
  j["buffers"]["UB"]["align"] = 0;
  const std::string path = WriteFile("align0_chip.json", j.dump());
  try {
    (void)LoadChip(path);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().message(), "chip description " + path +
                                        ": buffers.UB.align is 0; allowed: a power of two in [1, "
                                        "4096]");
  }
}

struct Outcome {
  int exit_code = -1;
  std::string output;
};

// Runs `command` through the shell with stderr merged into the output.
Outcome Shell(const std::string& command) {
  Outcome r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// The CLI beside this test in the build tree (build/tests/X -> build/tools/aicore).
std::string CliPath() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  return dir.substr(0, dir.rfind('/')) + "/tools/aicore";
}

TEST(ChipJsonTest, CliReportsBadFilesAndExitsOne) {
  const std::string cli = CliPath();
  if (access(cli.c_str(), X_OK) != 0) GTEST_SKIP() << "build the aicore_cli target: " << cli;
  json j = Preset();
  j["event_ids"] = "eight";
  const std::string path = WriteFile("eight_chip.json", j.dump());
  Outcome r = Shell(cli + " chips " + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("aicore chips: InvalidArgument: chip description " + path +
                                  ": event_ids is \"eight\"; allowed: an integer in [1, 32]"));
  r = Shell("AICORE_CHIP=" + path + " " + cli + " info");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("event_ids is \"eight\""));
  r = Shell(cli + " chips ascend910b1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace aicore::arch
