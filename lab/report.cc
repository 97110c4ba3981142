#include "lab/report.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace iklab {
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

// One block in Markdown; `folder` prefixes file links (the report sits one
// level above the experiment's folder).
std::string BlockMarkdown(const ReportBlock& block, const std::string& folder) {
  std::ostringstream md;
  switch (block.kind) {
    case ReportBlock::Kind::kText:
      md << block.text;
      break;
    case ReportBlock::Kind::kTable:
      if (!block.text.empty()) md << "**" << block.text << "**\n\n";
      md << "|";
      for (const auto& h : block.header) md << " " << EscapeCell(h) << " |";
      md << "\n|";
      for (size_t i = 0; i < block.header.size(); ++i) md << " --- |";
      md << "\n";
      for (const auto& row : block.rows) {
        md << "|";
        for (const auto& cell : row) md << " " << EscapeCell(cell) << " |";
        md << "\n";
      }
      break;
    case ReportBlock::Kind::kFigure:
      md << "![" << block.text << "](" << folder << block.file << ")\n\n*"
         << block.text << "*";
      break;
    case ReportBlock::Kind::kScene:
      md << "3D view (in the HTML report): *" << block.text << "* (`"
         << folder << block.file << "`";
      if (!block.gltf.empty()) {
        md << "; animated glTF: `" << folder << block.gltf << "`";
      }
      md << ")";
      break;
  }
  md << "\n\n";
  return md.str();
}

}  // namespace

ExperimentRun RunExperiment(const Experiment& experiment,
                            const ExperimentContext& context,
                            const std::filesystem::path& out_dir) {
  ExperimentRun run{&experiment, ExperimentOutput(out_dir / experiment.name),
                    0.0, ""};
  const auto start = std::chrono::steady_clock::now();
  try {
    experiment.run(context, &run.output);
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  run.wall_seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  run.output.Finish(experiment.name, experiment.title, run.wall_seconds);
  return run;
}

std::string MachineDescription() {
  std::string cpu = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  std::ostringstream out;
  out << cpu << ", " << std::thread::hardware_concurrency()
      << " hardware threads; compiler ";
#if defined(__clang__)
  out << "clang " << __clang_major__ << "." << __clang_minor__;
#elif defined(__GNUC__)
  out << "g++ " << __GNUC__ << "." << __GNUC_MINOR__;
#endif
#ifdef NDEBUG
  out << ", optimized build";
#else
  out << ", debug build (assertions on; timings not representative)";
#endif
  return out.str();
}

std::filesystem::path WriteReport(const std::vector<ExperimentRun>& runs,
                                  const ExperimentContext& context,
                                  const std::filesystem::path& out_dir,
                                  const std::string& title) {
  std::ostringstream md;
  md << "# " << title << "\n\n"
     << "Machine: " << MachineDescription() << ".  \n"
     << "Seed: " << context.seed
     << (context.quick ? " (quick configuration: fewer trials)" : "")
     << ".\n\n"
     << "Each section puts the paper's number or claim next to ours; the "
        "verdict is computed from the measured data. Raw data: the CSV and "
        "JSON files in each experiment's folder.\n\n"
     << "## Summary\n\n"
     << "| experiment | claim | paper | ours | verdict |\n"
     << "| --- | --- | --- | --- | --- |\n";
  int reproduced = 0, differs = 0, failed = 0;
  for (const ExperimentRun& run : runs) {
    const std::string link =
        "[" + run.experiment->name + "](#" + run.experiment->name + ")";
    if (!run.error.empty()) {
      ++failed;
      md << "| " << link << " | (run failed) | | " << run.error
         << " | **failed** |\n";
      continue;
    }
    for (const Claim& c : run.output.claims()) {
      (c.verdict == Verdict::kReproduced ? reproduced : differs) += 1;
      md << "| " << link << " | " << c.text << " | " << c.paper << " | "
         << c.ours << " | " << VerdictName(c.verdict) << " |\n";
    }
  }
  md << "\n" << reproduced << " claims reproduced, " << differs
     << " differ (each explained in its section), " << failed
     << " experiments failed to run.\n\n";

  for (const ExperimentRun& run : runs) {
    const Experiment& e = *run.experiment;
    md << "<a id=\"" << e.name << "\"></a>\n## " << e.name << ": " << e.title
       << "\n\n*Source: " << e.source << ".* Run time "
       << FormatNumber(run.wall_seconds, 3) << " s. Output folder: `" << e.name
       << "/`.\n\n";
    if (!run.error.empty()) {
      md << "**The run failed:** " << run.error << "\n\n";
      continue;
    }
    if (!run.output.parameters().empty()) {
      md << "Parameters:\n\n";
      for (const auto& [key, value] : run.output.parameters().items()) {
        md << "- `" << key << "` = " << value.dump() << "\n";
      }
      md << "\n";
    }
    if (!run.output.claims().empty()) {
      md << "| claim | paper | ours | verdict | why |\n"
         << "| --- | --- | --- | --- | --- |\n";
      for (const Claim& c : run.output.claims()) {
        md << "| " << c.text << " | " << c.paper << " | " << c.ours << " | "
           << VerdictName(c.verdict) << " | " << c.reason << " |\n";
      }
      md << "\n";
    }
    for (const ReportBlock& block : run.output.blocks()) {
      md << BlockMarkdown(block, e.name + "/");
    }
  }
  const std::filesystem::path path = out_dir / "REPORT.md";
  std::ofstream file(path);
  file << md.str();
  if (!file) throw std::runtime_error("cannot write " + path.string());
  return path;
}

}  // namespace iklab
