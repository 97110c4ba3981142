#ifndef IKLAB_TESTS_CLI_RUN_IKLAB_H_
#define IKLAB_TESTS_CLI_RUN_IKLAB_H_

#include <string>
#include <vector>

#include "cli/command_line.h"

namespace iklab {

/// `iklab ARGS...` in this process, with no experiments; returns the exit
/// code.
inline int RunIklab(std::vector<std::string> args) {
  args.insert(args.begin(), "iklab");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return RunCommandLine(static_cast<int>(argv.size()), argv.data(), {});
}

}  // namespace iklab

#endif  // IKLAB_TESTS_CLI_RUN_IKLAB_H_
