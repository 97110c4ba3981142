#include "lab/experiment.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

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
  sections_.push_back(std::move(markdown));
}

namespace {

std::string EscapeCell(const std::string& cell) {
  std::string out;
  for (char c : cell) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

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
  std::ostringstream md;
  if (!caption.empty()) md << "**" << caption << "**\n\n";
  md << "|";
  for (const auto& h : header) md << " " << EscapeCell(h) << " |";
  md << "\n|";
  for (size_t i = 0; i < header.size(); ++i) md << " --- |";
  md << "\n";
  for (const auto& row : rows) {
    md << "|";
    for (const auto& cell : row) md << " " << EscapeCell(cell) << " |";
    md << "\n";
  }
  sections_.push_back(md.str());
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
  sections_.push_back("![" + caption + "](" + file_name + ")\n\n*" + caption +
                      "*");
  figures_.emplace_back(file_name, std::move(caption));
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
  for (const auto& [file, caption] : figures_) {
    summary["figures"].push_back({{"file", file}, {"caption", caption}});
  }
  WriteLines(dir_ / "summary.json", summary.dump(2) + "\n");
}

}  // namespace iklab
