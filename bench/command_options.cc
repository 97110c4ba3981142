#include "bench/command_options.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "framework/internal/check.h"
#include "framework/validate.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/solver.h"

namespace iklab {

using internal::StrCat;
using internal::ThrowInvalidArgument;

namespace {

// Shortest readable form of a bound: 60000, 0.001, 1e+20.
std::string Bound(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  return buffer;
}

std::string Quoted(const std::string& s) {
  return "'" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "'";
}

bool AllDigits(const std::string& s, std::size_t from) {
  if (from >= s.size()) return false;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

}  // namespace

CLI::Validator NumberIn(double lower, double upper, bool open_lower) {
  const std::string range = (open_lower ? "(" : "[") + Bound(lower) + ", " +
                            Bound(upper) + "]";
  return CLI::Validator(
      [lower, upper, open_lower, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool whole = !text.empty() && end == text.c_str() + text.size();
        if (!whole || !std::isfinite(v) || v > upper ||
            (open_lower ? !(v > lower) : !(v >= lower))) {
          return "must be a number in " + range + "; got " + Quoted(text);
        }
        return {};
      },
      "NUMBER in " + range);
}

UrdfOptions SolvingUrdfOptions(const std::string& joint_limits) {
  UrdfOptions options;
  options.mimic = UrdfMimicPolicy::kEnforce;
  options.soft_limits = joint_limits == "hard" ? UrdfSoftLimits::kIgnore
                                               : UrdfSoftLimits::kNarrow;
  return options;
}

MjcfFigure LoadSolvingMjcfChain(const std::string& path,
                                const std::string& base_body,
                                const std::string& tip) {
  MjcfFigure mjcf = LoadMjcfChain(path, base_body, tip);
  // Joint equalities are enforced as mimic joints, as URDF <mimic> is: the
  // model's coordinates are the free ones.
  for (const UrdfMimic& m : mjcf.mimics) {
    try {
      mjcf.figure.AddMimic({m.joint, m.leader, m.multiplier, m.offset});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(internal::StrCat(
          path, ": the <equality joint> coupling joint '", m.joint,
          "' to joint '", m.leader, "': ", e.what()));
    }
  }
  return mjcf;
}

CLI::Validator ThreadCount() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::size_t digits =
            !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
        long long v = 0;
        bool ok = AllDigits(text, digits);
        if (ok) {
          errno = 0;
          char* end = nullptr;
          v = std::strtoll(text.c_str(), &end, 10);
          ok = errno != ERANGE && v <= std::numeric_limits<int>::max();
        }
        if (!ok) {
          return "must be an integer >= 1 (worker threads); got " +
                 Quoted(text);
        }
        try {
          CheckThreadCount(v, "the thread count");
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      },
      "INTEGER >= 1");
}

CLI::Validator IntegerIn(std::int64_t lower, std::int64_t upper) {
  const std::string range =
      "[" + std::to_string(lower) + ", " + std::to_string(upper) + "]";
  return CLI::Validator(
      [lower, upper, range](std::string& text) -> std::string {
        const std::size_t digits =
            !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
        bool ok = AllDigits(text, digits);
        if (ok) {
          errno = 0;
          char* end = nullptr;
          const long long v = std::strtoll(text.c_str(), &end, 10);
          ok = errno != ERANGE && v >= lower && v <= upper;
        }
        if (!ok) return "must be an integer in " + range + "; got " + Quoted(text);
        return {};
      },
      "INTEGER in " + range);
}

CLI::Validator UnsignedInteger64() {
  const std::string range =
      "[0, " + std::to_string(std::numeric_limits<std::uint64_t>::max()) + "]";
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        bool ok = AllDigits(text, !text.empty() && text[0] == '+' ? 1 : 0);
        if (ok) {
          errno = 0;
          char* end = nullptr;
          std::strtoull(text.c_str(), &end, 10);
          ok = errno != ERANGE;
        }
        if (!ok) {
          return "must be an integer in " + range + " (2^64 - 1); got " +
                 Quoted(text);
        }
        return {};
      },
      "INTEGER in " + range);
}

void PrepareOutputFolder(const std::string& dir, const std::string& option) {
  namespace fs = std::filesystem;
  if (dir.empty()) {
    ThrowInvalidArgument(option, " is empty; give the name of an output folder");
  }
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (fs::exists(status) && !fs::is_directory(status)) {
    ThrowInvalidArgument(option, " '", dir,
                         "' exists and is not a folder; give a folder name");
  }
  if (!fs::exists(status)) {
    fs::create_directories(dir, error);
    if (error) {
      ThrowInvalidArgument(option, " '", dir, "': cannot create the folder (",
                           error.message(), "); give a writable location");
    }
  }
  // Writable? The only reliable test is to write.
  const fs::path probe =
      fs::path(dir) / (".iklab-write-test-" + std::to_string(::getpid()));
  {
    std::ofstream file(probe);
    file << "x";
    file.flush();
    if (!file) {
      fs::remove(probe, error);
      ThrowInvalidArgument(option, " '", dir,
                           "': cannot write into the folder; give a writable "
                           "location");
    }
  }
  fs::remove(probe, error);
}

void CheckMemoryEstimate(double bytes, const std::string& what,
                         const std::string& fix) {
  const double physical = internal::PhysicalMemoryBytes();
  const double limit = physical > 0.0 ? 0.75 * physical : std::ldexp(1.0, 46);
  if (!(bytes <= limit)) {
    ThrowInvalidArgument(what, " needs about ", Bound(bytes / 1e9),
                         " GB of memory, more than the ", Bound(limit / 1e9),
                         " GB available (3/4 of this machine's memory); ", fix);
  }
}

}  // namespace iklab
