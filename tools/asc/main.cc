// aicore-asc: compiles AscendC .asc (and C++) sources for the CPU, or runs as a compiler launcher.
#include <string>
#include <vector>

#include "tools/asc/driver.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return aicore::asc::RunDriver(args, aicore::asc::FindInstall());
}
