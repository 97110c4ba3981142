#ifndef IKLAB_LAB_EXPERIMENT_H_
#define IKLAB_LAB_EXPERIMENT_H_

/// @file
/// Experiments: C++ code registered by name that reproduces one published
/// figure or table, writes its data, pictures and a summary, and puts the
/// paper's number or claim next to ours.
///
/// An experiment is a function `void Run(const ExperimentContext&,
/// ExperimentOutput*)`. It states its parameters (SetParameter), writes CSV
/// files of everything it measured (WriteCsv), draws pictures (plot.h), and
/// adds claims whose verdicts are computed from the measured data (AddClaim).
/// ExperimentOutput::Finish() writes `summary.json`; the report (report.h)
/// collects every experiment's output into one REPORT.md.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace iklab {

/// Whether our measurement agrees with the paper's claim.
enum class Verdict { kReproduced, kDiffers };

/// Returns "reproduced" or "differs".
const char* VerdictName(Verdict verdict);

/// One claim of the paper checked against our data.
struct Claim {
  /// The claim in words, e.g. "the effector tracks a straight line".
  std::string text;
  /// What the paper reports (a number with units, or the qualitative claim).
  std::string paper;
  /// What we measured, formatted from the data.
  std::string ours;
  Verdict verdict = Verdict::kDiffers;
  /// One line computed from the measured data: why the verdict.
  std::string reason;
};

/// What a running experiment may use.
struct ExperimentContext {
  /// Seed for every random draw of the experiment: the same seed gives the
  /// same numbers.
  std::uint64_t seed = 1;
  /// A reduced configuration (fewer trials) for the test suite.
  bool quick = false;
  /// Worker threads an experiment may use for independent solves (studies
  /// hand trials out to them); results do not depend on it.
  int threads = 1;
  /// Reports progress in [0, 1] with a short status; may be empty.
  std::function<void(double, const std::string&)> progress;

  void Progress(double fraction, const std::string& what) const {
    if (progress) progress(fraction, what);
  }
};

/// One piece of an experiment's report section, kept as data so that each
/// report format (REPORT.md, the HTML report) renders it its own way.
struct ReportBlock {
  enum class Kind {
    kText,    ///< `text`: a Markdown paragraph.
    kTable,   ///< `text`: caption; `header`, `rows`; `file`: its CSV, if saved.
    kFigure,  ///< `text`: caption; `file`: the picture in the folder.
    kScene,   ///< `text`: caption; `file`: a 3D scene (docs/scene-format.md).
  };
  Kind kind = Kind::kText;
  std::string text;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string file;
  /// kScene: the scene's animated glTF written beside it (lab/scene_gltf.h),
  /// or empty, with `gltf_error` saying why when it could not be written.
  std::string gltf;
  std::string gltf_error;
};

/// A text field of a CSV row as RFC 4180 writes it: unchanged unless it holds
/// a comma, a double quote or a line break; then quoted, its quotes doubled.
std::string CsvField(const std::string& field);

/// Everything one experiment writes to its folder `DIR/<name>/`.
class ExperimentOutput {
 public:
  /// Creates (if needed) and uses `dir` as the experiment's folder.
  explicit ExperimentOutput(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }

  /// Records a parameter used by the run (goes to summary.json and the
  /// report). Use it for every parameter the paper leaves out and we chose.
  void SetParameter(const std::string& key, nlohmann::json value);

  /// Adds a claim with its computed verdict.
  void AddClaim(Claim claim);

  /// Adds a Markdown paragraph to the experiment's report section.
  void AddText(std::string markdown);

  /// Adds a Markdown table to the report section (also saved as CSV when
  /// `csv_name` is not empty).
  void AddTable(const std::string& caption, const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows,
                const std::string& csv_name = "");

  /// Registers a picture already written into dir() (plot.h) with a caption.
  void AddFigure(const std::string& file_name, std::string caption);

  /// Registers a 3D scene already written into dir() (lab/scene.h,
  /// docs/scene-format.md) with a caption; the HTML report draws it. Writes
  /// its animated glTF beside it (same base name, .glb; WriteSceneGltfBeside)
  /// when the scene carries a figure or targets; a file that is not a valid
  /// scene is still registered (the report's page says why it cannot draw
  /// it) and gets no .glb.
  void AddScene(const std::string& file_name, std::string caption);

  /// Writes a CSV file in dir(); values are formatted with full precision.
  /// @throws std::runtime_error if the file cannot be written.
  void WriteCsv(const std::string& file_name,
                const std::vector<std::string>& header,
                const std::vector<std::vector<double>>& rows) const;

  const std::vector<Claim>& claims() const { return claims_; }
  const nlohmann::json& parameters() const { return parameters_; }
  /// The report section's body in order: text, tables, figures and scenes.
  const std::vector<ReportBlock>& blocks() const { return blocks_; }

  /// Writes summary.json: parameters, claims, figures, scenes, wall time.
  void Finish(const std::string& name, const std::string& title,
              double wall_seconds) const;

 private:
  std::filesystem::path dir_;
  nlohmann::json parameters_ = nlohmann::json::object();
  std::vector<Claim> claims_;
  std::vector<ReportBlock> blocks_;
};

/// A registered experiment.
struct Experiment {
  /// Command-line name, e.g. "parent-fig-5.20".
  std::string name;
  /// Human title, e.g. "Pseudo-inverse and DLS tracking a straight line".
  std::string title;
  /// The source: paper and figure/table, e.g. "Parent, Fig. 5.20".
  std::string source;
  std::function<void(const ExperimentContext&, ExperimentOutput*)> run;
};

/// Formats a double with `digits` significant digits (for claims and tables).
std::string FormatNumber(double value, int digits = 4);

}  // namespace iklab

#endif  // IKLAB_LAB_EXPERIMENT_H_
