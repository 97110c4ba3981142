#include "tests/test_data.h"

#include <filesystem>
#include <system_error>

namespace iklab::testing {

std::string ShippedDataFile(const std::string& relative) {
  return std::string(IKLAB_SOURCE_DATA_DIR) + "/" + relative;
}

std::string UpstreamDataDirectory() {
  std::error_code error;
  return std::filesystem::is_directory(IKLAB_SHARED_DATA_DIR "/robots", error)
             ? IKLAB_SHARED_DATA_DIR
             : "";
}

std::string UpstreamDataFile(const std::string& relative) {
  return UpstreamDataDirectory() + "/" + relative;
}

}  // namespace iklab::testing
