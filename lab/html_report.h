#ifndef IKLAB_LAB_HTML_REPORT_H_
#define IKLAB_LAB_HTML_REPORT_H_

/// @file
/// The HTML report: the same content as REPORT.md (report.h) as pages that
/// open from file:// with no network, with the experiments' 3D scenes
/// (docs/scene-format.md) drawn by an embedded three.js viewer
/// (web/viewer.js). The pages' scripts and styles are written into an
/// `assets/` folder next to them from copies compiled into the library, so a
/// report needs nothing installed at run time. See docs/reproductions.md.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/experiment.h"
#include "lab/report.h"

namespace iklab {

/// Writes the HTML report into `out_dir`:
/// - `index.html`: the machine, and a summary table of every claim with its
///   verdict (select boxes filter it by source and by verdict), each row
///   linking to its experiment's page;
/// - `<name>.html` per experiment: its parameters, its claims, then its
///   report blocks in order (Markdown text rendered by cmark in safe mode,
///   tables, pictures, 3D scenes) and links to the files of `<name>/`;
/// - `assets/`: three.min.js, OrbitControls.js, GLTFExporter.js, viewer.js,
///   report.css.
/// Every string taken from an experiment is HTML-escaped.
/// @param runs the experiments' outcomes, as RunExperiment returned them; their
///   folders are `out_dir/<name>/`.
/// @param context the seed and configuration the runs used.
/// @param out_dir the folder the runs wrote into.
/// @param title the report's heading.
/// @return the path of `index.html`.
/// @throws std::runtime_error if a file cannot be written.
std::filesystem::path WriteHtmlReport(const std::vector<ExperimentRun>& runs,
                                      const ExperimentContext& context,
                                      const std::filesystem::path& out_dir,
                                      const std::string& title =
                                          "iklab: reproduction report");

/// Writes `out_dir/scene.html`, a page that shows one scene in the 3D
/// viewer, and the `assets/` folder beside it. The viewer, not this
/// function, checks the scene: a scene it cannot read is shown as a message
/// in words.
/// @param scene a scene (docs/scene-format.md).
/// @param out_dir the folder to write into (created if needed).
/// @param title the page's heading.
/// @return the page's path.
/// @throws std::runtime_error if a file cannot be written.
std::filesystem::path WriteScenePage(const nlohmann::json& scene,
                                     const std::filesystem::path& out_dir,
                                     const std::string& title);

}  // namespace iklab

#endif  // IKLAB_LAB_HTML_REPORT_H_
