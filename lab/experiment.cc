#include "lab/experiment.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "lab/scene_gltf.h"

namespace iklab {

const char* VerdictName(Verdict verdict) {
  return verdict == Verdict::kReproduced ? "reproduced" : "differs";
}

std::string FormatNumber(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
  return buffer;
}

ExperimentOutput::ExperimentOutput(std::filesystem::path dir)
    : dir_(std::move(dir)) {
  std::filesystem::create_directories(dir_);
}

void ExperimentOutput::SetParameter(const std::string& key,
                                    nlohmann::json value) {
  parameters_[key] = std::move(value);
}

void ExperimentOutput::AddClaim(Claim claim) {
  claims_.push_back(std::move(claim));
}

void ExperimentOutput::AddText(std::string markdown) {
  ReportBlock block;
  block.text = std::move(markdown);
  blocks_.push_back(std::move(block));
}

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

void WriteLines(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) {
    throw std::runtime_error("cannot write '" + path.string() + "'");
  }
}

}  // namespace

void ExperimentOutput::AddTable(
    const std::string& caption, const std::vector<std::string>& header,
    const std::vector<std::vector<std::string>>& rows,
    const std::string& csv_name) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kTable;
  block.text = caption;
  block.header = header;
  block.rows = rows;
  block.file = csv_name;
  blocks_.push_back(std::move(block));
  if (csv_name.empty()) return;
  std::ostringstream csv;
  for (size_t i = 0; i < header.size(); ++i) {
    csv << (i ? "," : "") << CsvField(header[i]);
  }
  csv << "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      csv << (i ? "," : "") << CsvField(row[i]);
    }
    csv << "\n";
  }
  WriteLines(dir_ / csv_name, csv.str());
}

void ExperimentOutput::AddFigure(const std::string& file_name,
                                 std::string caption) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kFigure;
  block.text = std::move(caption);
  block.file = file_name;
  blocks_.push_back(std::move(block));
}

void ExperimentOutput::AddScene(const std::string& file_name,
                                std::string caption) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kScene;
  block.text = std::move(caption);
  block.file = file_name;
  const std::filesystem::path scene = dir_ / file_name;
  std::error_code ignored;
  std::filesystem::remove(SceneGltfPath(scene), ignored);  // never a stale one
  try {
    const std::filesystem::path glb = WriteSceneGltfBeside(scene);
    if (!glb.empty()) block.gltf = glb.filename().string();
  } catch (const std::invalid_argument& e) {
    block.gltf_error = e.what();
  }
  blocks_.push_back(std::move(block));
}

void ExperimentOutput::WriteCsv(
    const std::string& file_name, const std::vector<std::string>& header,
    const std::vector<std::vector<double>>& rows) const {
  std::ostringstream csv;
  csv.precision(17);
  for (size_t i = 0; i < header.size(); ++i) {
    csv << (i ? "," : "") << CsvField(header[i]);
  }
  csv << "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) csv << (i ? "," : "") << row[i];
    csv << "\n";
  }
  WriteLines(dir_ / file_name, csv.str());
}

void ExperimentOutput::Finish(const std::string& name, const std::string& title,
                              double wall_seconds) const {
  nlohmann::json summary;
  summary["name"] = name;
  summary["title"] = title;
  summary["parameters"] = parameters_;
  summary["wall_seconds"] = wall_seconds;
  summary["claims"] = nlohmann::json::array();
  for (const Claim& c : claims_) {
    summary["claims"].push_back({{"text", c.text},
                                 {"paper", c.paper},
                                 {"ours", c.ours},
                                 {"verdict", VerdictName(c.verdict)},
                                 {"reason", c.reason}});
  }
  summary["figures"] = nlohmann::json::array();
  summary["scenes"] = nlohmann::json::array();
  for (const ReportBlock& block : blocks_) {
    const bool figure = block.kind == ReportBlock::Kind::kFigure;
    if (!figure && block.kind != ReportBlock::Kind::kScene) continue;
    nlohmann::json entry{{"file", block.file}, {"caption", block.text}};
    if (!block.gltf.empty()) entry["gltf"] = block.gltf;
    if (!block.gltf_error.empty()) entry["gltf_error"] = block.gltf_error;
    summary[figure ? "figures" : "scenes"].push_back(std::move(entry));
  }
  WriteLines(dir_ / "summary.json", summary.dump(2) + "\n");
}

}  // namespace iklab
