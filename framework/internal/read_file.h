#ifndef IKLAB_FRAMEWORK_INTERNAL_READ_FILE_H_
#define IKLAB_FRAMEWORK_INTERNAL_READ_FILE_H_

/// @file
/// Opening input files, for every reader (URDF, BVH, target CSV, reach maps,
/// reach journals, scenes): one check and one set of messages for a path
/// that is a folder, does not exist, is too long for the system or cannot be
/// read, made before any parser sees the bytes. Not installed.

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace iklab::internal {

/// Why `path` cannot be read as a file of kind `expected` ("a URDF file"),
/// or "" if it can be opened for reading. The messages name the path:
///   "PATH is a folder; expected a URDF file"
///   "PATH does not exist; expected a URDF file"
///   "PATH: the file name is too long for this system (File name too long)"
///   "PATH: a part of the path is not a folder; expected a URDF file"
///   "PATH: cannot read the file (Permission denied)"
///   "PATH is not a regular file (a device, pipe or socket); expected ..."
///   (pipes such as /dev/stdin are accepted: a reader of a stream).
inline std::string UnreadableFileReason(const std::string& path,
                                        const std::string& expected) {
  if (path.empty()) return "the file name is empty; expected " + expected;
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    const int error = errno;
    switch (error) {
      case ENOENT:
        return path + " does not exist; expected " + expected;
      case ENAMETOOLONG:
        return path + ": the file name is too long for this system (" +
               std::strerror(error) + ")";
      case ENOTDIR:
        return path + ": a part of the path is not a folder; expected " +
               expected;
      default:
        return path + ": cannot read the file (" + std::strerror(error) + ")";
    }
  }
  if (S_ISDIR(status.st_mode)) {
    return path + " is a folder; expected " + expected;
  }
  if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode) &&
      !S_ISCHR(status.st_mode)) {
    return path + " is not a regular file; expected " + expected;
  }
  std::ifstream probe(path, std::ios::binary);
  if (!probe) {
    const int error = errno;
    return path + ": cannot read the file (" +
           (error != 0 ? std::strerror(error) : "cannot open") + ")";
  }
  return "";
}

/// Throws std::invalid_argument with UnreadableFileReason() unless `path`
/// can be read.
inline void CheckReadableFile(const std::string& path,
                              const std::string& expected) {
  const std::string reason = UnreadableFileReason(path, expected);
  if (!reason.empty()) throw std::invalid_argument(reason);
}

/// The bytes of the file at `path`, a file of kind `expected`.
/// @throws std::invalid_argument with UnreadableFileReason() if it cannot be
///   opened, or naming the path on a read error.
inline std::string ReadFile(const std::string& path,
                            const std::string& expected = "a file") {
  CheckReadableFile(path, expected);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::invalid_argument(path + ": cannot open the file for reading");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::invalid_argument(path + ": error while reading");
  return text.str();
}

/// The message for a file that could not be written, with the system's
/// reason (errno of the failed open or write), e.g.
/// "cannot write 'PATH': the file name is too long for this system (File
/// name too long)" or "cannot write 'PATH' (No space left on device)".
/// Call right after the failure, before errno changes.
inline std::string CannotWrite(const std::string& path) {
  const int error = errno;
  if (error == ENAMETOOLONG) {
    return "cannot write '" + path +
           "': the file name is too long for this system (" +
           std::strerror(error) + ")";
  }
  return "cannot write '" + path + "'" +
         (error != 0 ? std::string(" (") + std::strerror(error) + ")" : "");
}

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_READ_FILE_H_
