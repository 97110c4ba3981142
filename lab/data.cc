#include "lab/data.h"

#include <cstdlib>
#include <stdexcept>

namespace iklab {

std::filesystem::path DataDirectory() {
  if (const char* dir = std::getenv("IKLAB_DATA_DIR"); dir && *dir) {
    return dir;
  }
  return IKLAB_SHARED_DATA_DIR;
}

std::filesystem::path DataFile(const std::string& relative_path) {
  const std::filesystem::path path = DataDirectory() / relative_path;
  if (!std::filesystem::exists(path)) {
    throw std::invalid_argument(
        "data file '" + path.string() + "' not found; set the environment "
        "variable IKLAB_DATA_DIR (or pass --data DIR) to the folder that "
        "holds '" + relative_path + "'");
  }
  return path;
}

}  // namespace iklab
