#ifndef IKLAB_LAB_DATA_H_
#define IKLAB_LAB_DATA_H_

/// @file
/// Where the data iklab ships (robot models under robots/, see data/README.md)
/// is found at run time. The first of these that applies:
///
///  1. the folder given to SetDataDirectory (the command line's `--data DIR`,
///     or the data the Python package installed by pip carries);
///  2. the environment variable IKLAB_DATA_DIR, when set and not empty;
///  3. the installed package's folder next to the running program,
///     `<prefix>/share/iklab/data` for `<prefix>/bin/iklab` (found through
///     /proc/self/exe), when it exists;
///  4. the `data/` folder of the source tree the library was built from,
///     when it exists (build-tree programs and tests; before rule 5, so that
///     they never read an older installed copy);
///  5. the installed package's folder `<install prefix>/share/iklab/data` as
///     configured at build time (programs of your own linked to the installed
///     libraries, once the source tree is gone).
///
/// Nothing here depends on any folder outside the project.

#include <filesystem>
#include <string>

namespace iklab {

/// The data folder (see the file comment for the order of the lookup).
std::filesystem::path DataDirectory();

/// Which rule of the lookup chose DataDirectory(), for messages: the origin
/// given to SetDataDirectory ("--data" by default), "IKLAB_DATA_DIR",
/// "installed package" or "source tree".
std::string DataDirectoryOrigin();

/// Points DataDirectory() at `dir` for the rest of the process (what `--data
/// DIR` does); an empty path restores the lookup. Not thread-safe: call it
/// before starting work.
/// @param dir the folder holding robots/ (and whatever else is looked up).
/// @param origin how messages name where `dir` came from (DataDirectoryOrigin).
/// @throws std::invalid_argument if `dir` is not empty and not a folder.
void SetDataDirectory(const std::filesystem::path& dir,
                      const std::string& origin = "--data");

/// DataDirectory() / relative_path, checked to exist.
/// @param relative_path path inside the data folder, e.g. "robots/ur5.urdf".
/// @throws std::invalid_argument naming the missing file, the folder that was
///   searched and where it came from, and how to point iklab at another data
///   folder (`--data DIR` on the command line or IKLAB_DATA_DIR).
std::filesystem::path DataFile(const std::string& relative_path);

}  // namespace iklab

#endif  // IKLAB_LAB_DATA_H_
