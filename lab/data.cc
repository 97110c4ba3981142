#include "lab/data.h"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

namespace iklab {

namespace {

// Set by SetDataDirectory (`--data`); empty: look up.
std::filesystem::path& DataDirectoryOverride() {
  static std::filesystem::path dir;
  return dir;
}

// Where the override came from, for messages.
std::string& DataDirectoryOverrideOrigin() {
  static std::string origin;
  return origin;
}

bool IsDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  return std::filesystem::is_directory(dir, error);
}

// <prefix>/share/iklab/data for a program at <prefix>/bin/...; empty if the
// running program cannot be found (no /proc) or the folder is absent.
std::filesystem::path NextToProgram() {
  std::error_code error;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || exe.empty()) return {};
  const std::filesystem::path dir =
      exe.parent_path().parent_path() / "share" / "iklab" / "data";
  return IsDirectory(dir) ? dir : std::filesystem::path();
}

struct Lookup {
  std::filesystem::path dir;
  std::string origin;
};

Lookup FindDataDirectory() {
  if (!DataDirectoryOverride().empty()) {
    return {DataDirectoryOverride(), DataDirectoryOverrideOrigin()};
  }
  if (const char* dir = std::getenv("IKLAB_DATA_DIR"); dir && *dir) {
    return {dir, "IKLAB_DATA_DIR"};
  }
  if (std::filesystem::path dir = NextToProgram(); !dir.empty()) {
    return {dir, "installed package"};
  }
  // The source tree before the configured install prefix, so that a
  // build-tree program never reads an older installed copy.
  if (IsDirectory(IKLAB_SOURCE_DATA_DIR) ||
      !IsDirectory(IKLAB_INSTALL_DATA_DIR)) {
    return {IKLAB_SOURCE_DATA_DIR, "source tree"};
  }
  return {IKLAB_INSTALL_DATA_DIR, "installed package"};
}

}  // namespace

std::filesystem::path DataDirectory() { return FindDataDirectory().dir; }

std::string DataDirectoryOrigin() { return FindDataDirectory().origin; }

void SetDataDirectory(const std::filesystem::path& dir,
                      const std::string& origin) {
  if (!dir.empty() && !IsDirectory(dir)) {
    throw std::invalid_argument("data folder '" + dir.string() + "' (" +
                                origin +
                                ") is not a folder; give the folder "
                                "that holds robots/");
  }
  DataDirectoryOverride() = dir;
  DataDirectoryOverrideOrigin() = origin;
}

std::filesystem::path DataFile(const std::string& relative_path) {
  const Lookup lookup = FindDataDirectory();
  const std::filesystem::path path = lookup.dir / relative_path;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw std::invalid_argument(
        "data file '" + path.string() + "' not found (data folder from " +
        lookup.origin +
        "); pass --data DIR on the command line or set the "
        "environment variable IKLAB_DATA_DIR to a folder that holds '" +
        relative_path + "'");
  }
  return path;
}

}  // namespace iklab
