#include "lab/data.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// Restores the environment variable and the --data override on scope exit.
class DataDirectoryGuard {
 public:
  DataDirectoryGuard() {
    if (const char* v = std::getenv("IKLAB_DATA_DIR")) {
      had_ = true;
      value_ = v;
    }
  }
  ~DataDirectoryGuard() {
    SetDataDirectory({});
    if (had_) {
      setenv("IKLAB_DATA_DIR", value_.c_str(), 1);
    } else {
      unsetenv("IKLAB_DATA_DIR");
    }
  }

 private:
  bool had_ = false;
  std::string value_;
};

TEST_CASE(
    "The data folder is --data, else IKLAB_DATA_DIR, else the shipped data, "
    "and never a folder outside the project",
    "[lab][data]") {
  DataDirectoryGuard guard;
  unsetenv("IKLAB_DATA_DIR");
  SetDataDirectory({});
  // A build-tree test binary: no installed package next to it, so the
  // source tree's data/, even when a package is installed at the configured
  // prefix.
  const std::filesystem::path found = DataDirectory();
  CHECK(std::filesystem::exists(found / "robots" / "panda.urdf"));
  CHECK(found.string().find("shared") == std::string::npos);
  CHECK(DataDirectoryOrigin() == "source tree");
  CHECK(std::filesystem::equivalent(found, testing::ShippedDataFile("")));
  CHECK(DataFile("robots/ur5.urdf") == found / "robots/ur5.urdf");

  const std::filesystem::path elsewhere =
      std::filesystem::temp_directory_path();
  setenv("IKLAB_DATA_DIR", elsewhere.c_str(), 1);
  CHECK(DataDirectory() == elsewhere);
  CHECK(DataDirectoryOrigin() == "IKLAB_DATA_DIR");
  REQUIRE_THROWS_WITH(
      DataFile("robots/no_such_robot.urdf"),
      Contains("no_such_robot.urdf' not found (data folder from "
               "IKLAB_DATA_DIR); pass --data DIR on the command line or set "
               "the environment variable IKLAB_DATA_DIR"));

  const std::string shipped = testing::ShippedDataFile("");
  SetDataDirectory(shipped);
  CHECK(DataDirectory() == shipped);  // --data wins over the variable
  CHECK(DataDirectoryOrigin() == "--data");
  REQUIRE_THROWS_WITH(SetDataDirectory("/nonexistent/data"),
                      Contains("data folder '/nonexistent/data' (--data) is "
                               "not a folder"));
}

}  // namespace
}  // namespace iklab
