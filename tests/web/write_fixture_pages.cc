// Writes the pages the browser test (viewer_test.js) opens: one scene page
// per fixture scene of fixtures/ (WriteScenePage), and an HTML report of two
// made-up experiments whose blocks hold a scene, a damaged scene file,
// Markdown with raw HTML, a table and hostile names (WriteHtmlReport).
//
// Usage: iklab_web_fixture_pages FIXTURES_DIR OUT_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/html_report.h"
#include "lab/report.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FIXTURES_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path fixtures = argv[1], out = argv[2];
  fs::remove_all(out);
  for (const char* name : {"chain", "animated", "voxels", "damaged", "version99", "xss"}) {
    std::ifstream file(fixtures / (std::string(name) + ".json"));
    const nlohmann::json scene = nlohmann::json::parse(file);
    iklab::WriteScenePage(scene, out / name, std::string("fixture: ") + name);
  }

  const fs::path report = out / "report";
  const std::string hostile = "<img src=x onerror=alert(1)>";
  const iklab::Experiment chain{"chain-trials", "Three-link chain " + hostile,
                                "Fixture, Fig. 1", nullptr};
  const iklab::Experiment other{"other", "A second source", "Other paper, Table 2", nullptr};
  iklab::ExperimentContext context;
  std::vector<iklab::ExperimentRun> runs;
  runs.push_back({&chain, iklab::ExperimentOutput(report / chain.name), 0.5, ""});
  iklab::ExperimentOutput& output = runs.back().output;
  output.SetParameter("trials", 2);
  output.SetParameter(hostile, hostile);
  output.AddClaim({"the effector reaches the target", "yes", "yes",
                   iklab::Verdict::kReproduced, "both solvers converged"});
  output.AddClaim({hostile, hostile, hostile, iklab::Verdict::kDiffers, hostile});
  output.AddText("Some *Markdown* with `code`, a [link](chain-trials/scene.json) and raw "
                 "HTML that must not pass: <script>alert(1)</script> " + hostile);
  output.AddTable("Per solver", {"solver", hostile}, {{"bounded-lm", hostile}}, "");
  fs::copy_file(fixtures / "chain.json", report / chain.name / "scene.json");
  output.AddScene("scene.json", "both solvers' answers");
  fs::copy_file(fixtures / "truncated_scene.txt", report / chain.name / "broken.json");
  output.AddScene("broken.json", "a scene file cut short");
  runs.push_back({&other, iklab::ExperimentOutput(report / other.name), 0.1, ""});
  runs.back().output.AddClaim({"a second claim", "1", "2", iklab::Verdict::kDiffers, "2 > 1"});
  iklab::WriteHtmlReport(runs, context, report, "fixture report");
  std::printf("%s\n", out.c_str());
  return 0;
}
