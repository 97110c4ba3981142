#ifndef IKLAB_CLI_VIEW_COMMAND_H_
#define IKLAB_CLI_VIEW_COMMAND_H_

/// @file
/// `iklab view`: a result in the browser, drawn in 3D.
///
///     iklab view PATH [--out DIR] [--no-open]
///
/// PATH is a report folder (its index.html is opened as it is), an
/// experiment's folder of a report (its page beside it), or what
/// SceneFromFile (cli/scene_files.h) reads: a scene (.json), a URDF, a BVH
/// motion, a reachability map (.h5), a study folder with scene files. The page is written to DIR (default: a folder
/// under the system's temporary directory named after PATH) with everything
/// it needs beside it, then opened with $BROWSER or xdg-open where a display
/// exists; otherwise its file:// address is printed.

#include <string>

#include <CLI/CLI.hpp>

namespace iklab {

struct ViewCommandOptions {
  std::string path;
  /// Where the page is written; empty: under the temporary directory.
  std::string out_dir;
  /// Write the page and print its address without starting a browser.
  bool no_open = false;
};

/// Declares the options of `view` on `command`.
void AddViewOptions(CLI::App* command, ViewCommandOptions* options);

/// Writes (or finds) the page and opens it; returns 0. Throws
/// std::invalid_argument naming PATH when it is missing or of a kind iklab
/// does not draw (the command line's error boundary makes that exit code 2).
int RunViewCommand(const ViewCommandOptions& options);

}  // namespace iklab

#endif  // IKLAB_CLI_VIEW_COMMAND_H_
