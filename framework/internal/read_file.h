#ifndef IKLAB_FRAMEWORK_INTERNAL_READ_FILE_H_
#define IKLAB_FRAMEWORK_INTERNAL_READ_FILE_H_

/// @file
/// Reading a whole file, for the model and motion loaders. Not installed.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace iklab::internal {

/// The bytes of the file at `path`.
/// @throws std::invalid_argument naming the path if it cannot be opened or
///   read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::invalid_argument(path + ": cannot open the file for reading");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::invalid_argument(path + ": error while reading");
  return text.str();
}

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_READ_FILE_H_
