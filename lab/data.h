#ifndef IKLAB_LAB_DATA_H_
#define IKLAB_LAB_DATA_H_

/// @file
/// Where the data iklab ships (robot models under robots/, motions under
/// motions/) is found at run time.

#include <filesystem>
#include <string>

namespace iklab {

/// The data folder: the environment variable IKLAB_DATA_DIR when set,
/// otherwise the folder the build or the installed package provides.
std::filesystem::path DataDirectory();

/// DataDirectory() / relative_path, checked to exist.
/// @throws std::invalid_argument naming the missing file and how to point
///   iklab at another data folder (IKLAB_DATA_DIR, or `--data` on the
///   command line).
std::filesystem::path DataFile(const std::string& relative_path);

}  // namespace iklab

#endif  // IKLAB_LAB_DATA_H_
