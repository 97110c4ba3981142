#include "lab/html_report.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "lab/report.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

const char kHostile[] = "<img src=x onerror=alert(1)>";

std::string Read(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

int Count(const std::string& text, const std::string& what) {
  int count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

// A fresh folder under the system's temporary directory.
fs::path FreshFolder(const std::string& name) {
  const fs::path dir = testing::ScratchPath("iklab_html_report_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Two experiments (three claims, hostile names, a scene whose strings try to
// close the script element) and one failed run.
struct FakeReport {
  Experiment first{"first", std::string("First ") + kHostile, "Paper A, Fig. 1", nullptr};
  Experiment second{"second", "Second", std::string("Paper ") + kHostile, nullptr};
  Experiment broken{"broken", "Broken", "Paper A, Fig. 2", nullptr};
  std::vector<ExperimentRun> runs;

  explicit FakeReport(const fs::path& out) {
    runs.push_back({&first, ExperimentOutput(out / first.name), 1.0, ""});
    ExperimentOutput& o = runs.back().output;
    o.SetParameter("trials", 10);
    o.AddClaim({"claim one", "1", "1", Verdict::kReproduced, "equal"});
    o.AddClaim({kHostile, kHostile, kHostile, Verdict::kDiffers, kHostile});
    o.AddText("Text with *emphasis* and raw HTML <script>alert(2)</script>.");
    o.AddTable("caption", {"a", kHostile}, {{"1", kHostile}}, "table.csv");
    o.WriteCsv("table.csv", {"a"}, {{1.0}});
    nlohmann::json scene = {{"format", "iklab-scene"}, {"version", 1},
                            {"title", "</script><script>alert(3)</script>"},
                            {"figures", nlohmann::json::array()},
                            {"views", nlohmann::json::array()}};
    std::ofstream(out / first.name / "scene.json") << scene.dump();
    o.AddScene("scene.json", "a scene");
    runs.push_back({&second, ExperimentOutput(out / second.name), 2.0, ""});
    runs.back().output.AddClaim({"claim three", "2", "3", Verdict::kDiffers, "3 > 2"});
    runs.push_back({&broken, ExperimentOutput(out / broken.name), 0.0, "it threw"});
  }
};

TEST_CASE("iklab's HTML report writes an index, one page per experiment and its assets", "[lab]") {
  const fs::path out = FreshFolder("files");
  FakeReport report(out);
  const fs::path index = WriteHtmlReport(report.runs, ExperimentContext(), out, "title");
  CHECK(index == out / "index.html");
  for (const char* file : {"index.html", "first.html", "second.html", "broken.html",
                           "assets/three.min.js", "assets/OrbitControls.js",
                           "assets/viewer.js", "assets/report.css"}) {
    INFO(file);
    CHECK(fs::file_size(out / file) > 0);
  }
  CHECK_THAT(Read(out / "assets/three.min.js"), Contains("REVISION=\"111\""));
  CHECK_THAT(Read(out / "assets/viewer.js"), Contains("iklab-scene"));
  const std::string page = Read(out / "first.html");
  CHECK_THAT(page, Contains("href=\"first/table.csv\""));
  CHECK_THAT(page, Contains("href=\"first/scene.json\""));
  CHECK_THAT(page, Contains("<script src=\"assets/viewer.js\" defer></script>"));
  // Pages without a scene load no three.js.
  CHECK(Read(out / "second.html").find("three.min.js") == std::string::npos);
}

TEST_CASE("iklab's HTML report's summary has one row per claim and per failed run, with filters",
          "[lab]") {
  const fs::path out = FreshFolder("summary");
  FakeReport report(out);
  const std::string index = Read(WriteHtmlReport(report.runs, ExperimentContext(), out, "t"));
  CHECK(Count(index, "<tr data-source=") == 4);
  CHECK(Count(index, "data-verdict=\"reproduced\"") == 1);
  CHECK(Count(index, "data-verdict=\"differs\"") == 2);
  CHECK(Count(index, "data-verdict=\"failed\"") == 1);
  CHECK_THAT(index, Contains("<select id=\"filter-source\">"));
  CHECK_THAT(index, Contains("<select id=\"filter-verdict\">"));
  CHECK_THAT(index, Contains("<a href=\"second.html\">second</a>"));
  CHECK_THAT(index, Contains("it threw"));
}

TEST_CASE("iklab's HTML report escapes every name and passes no raw HTML from Markdown", "[lab]") {
  const fs::path out = FreshFolder("escape");
  FakeReport report(out);
  WriteHtmlReport(report.runs, ExperimentContext(), out, kHostile);
  for (const char* file : {"index.html", "first.html", "second.html"}) {
    INFO(file);
    const std::string page = Read(out / file);
    CHECK(page.find(kHostile) == std::string::npos);
    CHECK_THAT(page, Contains("&lt;img src=x onerror=alert(1)&gt;"));
  }
  const std::string page = Read(out / "first.html");
  CHECK_THAT(page, Contains("<em>emphasis</em>"));
  CHECK(page.find("<script>alert(2)") == std::string::npos);
  // The scene's strings cannot end its script element.
  CHECK(page.find("</script><script>alert(3)") == std::string::npos);
  CHECK_THAT(page, Contains("\\u003c/script\\u003e\\u003cscript\\u003ealert(3)"));
}

TEST_CASE("iklab's WriteScenePage writes one page that embeds the scene, with its assets", "[lab]") {
  const fs::path out = FreshFolder("scene");
  const nlohmann::json scene = {{"format", "iklab-scene"}, {"version", 1},
                                {"title", kHostile}, {"figures", nlohmann::json::array()},
                                {"views", nlohmann::json::array()}};
  const fs::path page = WriteScenePage(scene, out, kHostile);
  CHECK(page == out / "scene.html");
  CHECK(fs::file_size(out / "assets/three.min.js") > 0);
  const std::string html = Read(page);
  CHECK_THAT(html, Contains("<script type=\"application/json\" class=\"iklab-scene\">"));
  CHECK_THAT(html, Contains("\"format\":\"iklab-scene\""));
  CHECK_THAT(html, Contains("<h1>&lt;img src=x onerror=alert(1)&gt;</h1>"));
  CHECK(html.find(kHostile) == std::string::npos);
}

}  // namespace
}  // namespace iklab
