#include "cli/view_command.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "cli/scene_files.h"
#include "lab/html_report.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;

// Single-quotes `text` for /bin/sh.
std::string ShellQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// Starts a browser on `page` in the background; false when there is none to
// start (no display, or neither $BROWSER nor xdg-open).
bool OpenInBrowser(const fs::path& page) {
  if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) return false;
  const char* browser = std::getenv("BROWSER");
  std::string opener = browser && *browser ? browser : "xdg-open";
  if (!browser && std::system("command -v xdg-open >/dev/null 2>&1") != 0) {
    return false;
  }
  const std::string command =
      opener + " " + ShellQuoted(page.string()) + " >/dev/null 2>&1 &";
  return std::system(command.c_str()) == 0;
}

}  // namespace

void AddViewOptions(CLI::App* command, ViewCommandOptions* options) {
  command
      ->add_option("path", options->path,
                   "A report or experiment folder, a scene .json, a URDF, a "
                   "BVH motion or a reachability map .h5")
      ->required();
  command->add_option("--out,-o", options->out_dir,
                      "Where to write the page (default: under the temporary "
                      "directory)");
  command->add_flag("--no-open", options->no_open,
                    "Write the page and print its address; start no browser");
}

int RunViewCommand(const ViewCommandOptions& options) {
  const fs::path path(options.path);
  if (!fs::exists(path)) {
    throw std::invalid_argument("'" + options.path + "' does not exist");
  }
  // "runs/out/" and "runs/out" name the same folder.
  fs::path full = fs::absolute(path).lexically_normal();
  if (full.filename().empty()) full = full.parent_path();
  const std::string name = full.filename().string();
  // A report folder has index.html; an experiment's folder has its page,
  // <name>.html, beside it (lab/html_report.h).
  fs::path page;
  if (fs::is_directory(full) && fs::exists(full / "index.html")) {
    page = full / "index.html";
  } else if (fs::is_directory(full) &&
             fs::exists(full.parent_path() / (name + ".html"))) {
    page = full.parent_path() / (name + ".html");
  } else {
    const nlohmann::json scene = SceneFromFile(full);
    const fs::path out =
        options.out_dir.empty()
            ? fs::temp_directory_path() / ("iklab-view-" + name)
            : fs::path(options.out_dir);
    page = fs::absolute(WriteScenePage(scene, out, name));
  }
  const std::string address = "file://" + page.string();
  if (!options.no_open && OpenInBrowser(page)) {
    std::printf("Opened %s\n", address.c_str());
  } else {
    std::printf("Open %s in a browser\n", address.c_str());
  }
  return 0;
}

}  // namespace iklab
