#include "lab/html_report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include <cmark.h>

#include "lab/internal/web_assets.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;

// Text as HTML (element content and quoted attribute values).
std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// A relative file path as a URL path: bytes other than unreserved ones and
// '/' percent-encoded (names with spaces, '#', '?').
std::string UrlPath(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Markdown to HTML with cmark. CMARK_OPT_DEFAULT is safe mode: raw HTML and
// javascript: links are not passed through.
std::string MarkdownToHtml(const std::string& markdown) {
  std::unique_ptr<char, decltype(&std::free)> html(
      cmark_markdown_to_html(markdown.data(), markdown.size(), CMARK_OPT_DEFAULT),
      &std::free);
  return html ? std::string(html.get()) : std::string();
}

// Scene JSON inside <script type="application/json">: '<', '>' and '&' as
// JSON escapes, so no "</script>" or comment can end the element. (In valid
// JSON these characters occur only inside strings, where the escapes mean
// the same characters; a damaged file stays damaged and the viewer says so.)
std::string EmbeddedScene(const std::string& json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (char c : json_text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string SceneElement(const std::string& json_text) {
  return "<div class=\"iklab-viewer\" data-status=\"loading\">"
         "<script type=\"application/json\" class=\"iklab-scene\">" +
         EmbeddedScene(json_text) +
         "</script><noscript>The 3D view needs JavaScript.</noscript></div>\n";
}

void WriteFile(const fs::path& path, const std::string& content) {
  std::ofstream file(path, std::ios::binary);
  file.write(content.data(), static_cast<std::streamsize>(content.size()));
  file.close();
  if (!file) throw std::runtime_error("cannot write " + path.string());
}

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::string();
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void WriteAssets(const fs::path& out_dir) {
  const fs::path assets = out_dir / "assets";
  fs::create_directories(assets);
  for (const internal::WebAsset& asset : internal::WebAssets()) {
    WriteFile(assets / asset.name,
              std::string(reinterpret_cast<const char*>(asset.data), asset.size));
  }
}

// The page's head and its closing; `viewer` adds the 3D viewer's scripts.
std::string PageStart(const std::string& title, bool viewer) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" + Escape(title) + "</title>\n"
      "<link rel=\"stylesheet\" href=\"assets/report.css\">\n";
  if (viewer) {
    html +=
        "<script src=\"assets/three.min.js\"></script>\n"
        "<script src=\"assets/OrbitControls.js\"></script>\n"
        "<script src=\"assets/GLTFExporter.js\"></script>\n"
        "<script src=\"assets/viewer.js\" defer></script>\n";
  }
  return html + "</head>\n<body>\n";
}
const char kPageEnd[] = "</body>\n</html>\n";

std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::string& caption) {
  std::ostringstream html;
  html << "<table>";
  if (!caption.empty()) html << "<caption>" << Escape(caption) << "</caption>";
  html << "<thead><tr>";
  for (const std::string& h : header) html << "<th>" << Escape(h) << "</th>";
  html << "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    html << "<tr>";
    for (const std::string& cell : row) html << "<td>" << Escape(cell) << "</td>";
    html << "</tr>\n";
  }
  html << "</tbody></table>\n";
  return html.str();
}

std::string VerdictCell(const std::string& verdict) {
  return "<td class=\"verdict-" + verdict + "\">" + verdict + "</td>";
}

std::string ExperimentPageName(const Experiment& e) { return e.name + ".html"; }

// One report block as HTML; files are under `folder/`.
std::string BlockHtml(const ReportBlock& block, const fs::path& out_dir,
                      const std::string& folder, bool* has_scene) {
  std::ostringstream html;
  switch (block.kind) {
    case ReportBlock::Kind::kText:
      html << MarkdownToHtml(block.text);
      break;
    case ReportBlock::Kind::kTable:
      html << Table(block.header, block.rows, block.text);
      if (!block.file.empty()) {
        html << "<p class=\"files\">Data: <a href=\"" << Escape(UrlPath(folder + block.file))
             << "\">" << Escape(block.file) << "</a></p>\n";
      }
      break;
    case ReportBlock::Kind::kFigure:
      html << "<figure><img src=\"" << Escape(UrlPath(folder + block.file)) << "\" alt=\""
           << Escape(block.text) << "\"><figcaption>" << Escape(block.text)
           << "</figcaption></figure>\n";
      break;
    case ReportBlock::Kind::kScene: {
      const fs::path path = out_dir / folder / block.file;
      html << "<figure class=\"scene\">";
      if (fs::is_regular_file(path)) {
        *has_scene = true;
        html << SceneElement(ReadFile(path));
      } else {
        html << "<p class=\"iklab-scene-error\">The scene file " << Escape(block.file)
             << " is missing.</p>";
      }
      html << "<figcaption>" << Escape(block.text) << " (<a href=\""
           << Escape(UrlPath(folder + block.file)) << "\">" << Escape(block.file)
           << "</a>)";
      if (!block.gltf.empty() && fs::is_regular_file(out_dir / folder / block.gltf)) {
        html << " <a class=\"iklab-gltf-file\" href=\"" << Escape(UrlPath(folder + block.gltf))
             << "\" download>download animated glTF (Blender, any glTF viewer)</a>";
      }
      html << "</figcaption></figure>\n";
      break;
    }
  }
  return html.str();
}

std::string ExperimentPage(const ExperimentRun& run, const fs::path& out_dir,
                           const std::string& report_title) {
  const Experiment& e = *run.experiment;
  const std::string folder = e.name + "/";
  std::ostringstream body;
  body << "<p><a href=\"index.html\">" << Escape(report_title) << "</a></p>\n"
       << "<h1>" << Escape(e.name) << ": " << Escape(e.title) << "</h1>\n"
       << "<p>Source: <em>" << Escape(e.source) << "</em>. Run time "
       << Escape(FormatNumber(run.wall_seconds, 3)) << " s. Output folder: <a href=\""
       << Escape(UrlPath(folder)) << "\"><code>" << Escape(folder) << "</code></a>.</p>\n";
  bool has_scene = false;
  if (!run.error.empty()) {
    body << "<p class=\"verdict-failed\">The run failed: " << Escape(run.error) << "</p>\n";
  } else {
    if (!run.output.parameters().empty()) {
      std::vector<std::vector<std::string>> rows;
      for (const auto& [key, value] : run.output.parameters().items()) {
        rows.push_back({key, value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
      }
      body << "<h2>Parameters</h2>\n" << Table({"parameter", "value"}, rows, "");
    }
    if (!run.output.claims().empty()) {
      body << "<h2>Claims</h2>\n<table><thead><tr><th>claim</th><th>paper</th><th>ours</th>"
              "<th>verdict</th><th>why</th></tr></thead><tbody>\n";
      for (const Claim& c : run.output.claims()) {
        body << "<tr><td>" << Escape(c.text) << "</td><td>" << Escape(c.paper) << "</td><td>"
             << Escape(c.ours) << "</td>" << VerdictCell(VerdictName(c.verdict)) << "<td>"
             << Escape(c.reason) << "</td></tr>\n";
      }
      body << "</tbody></table>\n";
    }
    for (const ReportBlock& block : run.output.blocks()) {
      body << BlockHtml(block, out_dir, folder, &has_scene);
    }
  }
  // Every data file of the experiment's folder.
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(out_dir / e.name, ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".csv" || ext == ".json" || ext == ".glb")) {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  if (!files.empty()) {
    body << "<h2>Files</h2>\n<ul class=\"files\">\n";
    for (const std::string& f : files) {
      body << "<li><a href=\"" << Escape(UrlPath(folder + f)) << "\">" << Escape(f)
           << "</a></li>\n";
    }
    body << "</ul>\n";
  }
  return PageStart(e.name + ": " + e.title, has_scene) + body.str() + kPageEnd;
}

// Filters the summary table by the select boxes (our own code; the rows'
// data attributes hold escaped text).
const char kFilterScript[] = R"(<script>
(function () {
  var source = document.getElementById('filter-source');
  var verdict = document.getElementById('filter-verdict');
  function apply() {
    var rows = document.querySelectorAll('#summary tbody tr');
    var shown = 0;
    for (var i = 0; i < rows.length; ++i) {
      var ok = (!source.value || rows[i].getAttribute('data-source') === source.value) &&
               (!verdict.value || rows[i].getAttribute('data-verdict') === verdict.value);
      rows[i].style.display = ok ? '' : 'none';
      shown += ok ? 1 : 0;
    }
    document.getElementById('filter-count').textContent = shown + ' of ' + rows.length + ' shown';
  }
  source.addEventListener('change', apply);
  verdict.addEventListener('change', apply);
  apply();
})();
</script>
)";

std::string IndexPage(const std::vector<ExperimentRun>& runs,
                      const ExperimentContext& context, const std::string& title) {
  std::ostringstream rows;
  std::set<std::string> sources;
  int reproduced = 0, differs = 0, failed = 0;
  for (const ExperimentRun& run : runs) {
    const Experiment& e = *run.experiment;
    sources.insert(e.source);
    const std::string link = "<a href=\"" + Escape(UrlPath(ExperimentPageName(e))) + "\">" +
                             Escape(e.name) + "</a>";
    const std::string source_attribute = " data-source=\"" + Escape(e.source) + "\"";
    if (!run.error.empty()) {
      ++failed;
      rows << "<tr" << source_attribute << " data-verdict=\"failed\"><td>" << link << "</td><td>"
           << Escape(e.source) << "</td><td>(run failed)</td><td></td><td>" << Escape(run.error)
           << "</td>" << VerdictCell("failed") << "</tr>\n";
      continue;
    }
    for (const Claim& c : run.output.claims()) {
      (c.verdict == Verdict::kReproduced ? reproduced : differs) += 1;
      rows << "<tr" << source_attribute << " data-verdict=\"" << VerdictName(c.verdict)
           << "\"><td>" << link << "</td><td>" << Escape(e.source) << "</td><td>"
           << Escape(c.text) << "</td><td>" << Escape(c.paper) << "</td><td>" << Escape(c.ours)
           << "</td>" << VerdictCell(VerdictName(c.verdict)) << "</tr>\n";
    }
  }
  std::ostringstream html;
  html << PageStart(title, false) << "<h1>" << Escape(title) << "</h1>\n"
       << "<p class=\"machine\">Machine: " << Escape(MachineDescription()) << ". Seed: "
       << context.seed << (context.quick ? " (quick configuration: fewer trials)" : "")
       << ".</p>\n"
       << "<p>Each experiment's page puts the paper's number or claim next to ours; the "
          "verdict is computed from the measured data. Raw data: the CSV and JSON files in "
          "each experiment's folder. The same content as text: <a href=\"REPORT.md\">"
          "REPORT.md</a>.</p>\n"
       << "<h2>Summary</h2>\n<p>" << reproduced << " claims reproduced, " << differs
       << " differ (each explained on its page), " << failed
       << " experiments failed to run.</p>\n"
       << "<div class=\"filters\"><label>Source<select id=\"filter-source\">"
          "<option value=\"\">all</option>";
  for (const std::string& s : sources) {
    html << "<option value=\"" << Escape(s) << "\">" << Escape(s) << "</option>";
  }
  html << "</select></label><label>Verdict<select id=\"filter-verdict\">"
          "<option value=\"\">all</option><option>reproduced</option><option>differs</option>"
          "<option>failed</option></select></label><span id=\"filter-count\"></span></div>\n"
       << "<table id=\"summary\"><thead><tr><th>experiment</th><th>source</th><th>claim</th>"
          "<th>paper</th><th>ours</th><th>verdict</th></tr></thead><tbody>\n"
       << rows.str() << "</tbody></table>\n<h2>Experiments</h2>\n<ul>\n";
  for (const ExperimentRun& run : runs) {
    const Experiment& e = *run.experiment;
    html << "<li><a href=\"" << Escape(UrlPath(ExperimentPageName(e))) << "\">"
         << Escape(e.name) << "</a>: " << Escape(e.title) << " <em>(" << Escape(e.source)
         << ")</em></li>\n";
  }
  html << "</ul>\n" << kFilterScript << kPageEnd;
  return html.str();
}

}  // namespace

fs::path WriteHtmlReport(const std::vector<ExperimentRun>& runs,
                         const ExperimentContext& context, const fs::path& out_dir,
                         const std::string& title) {
  fs::create_directories(out_dir);
  WriteAssets(out_dir);
  for (const ExperimentRun& run : runs) {
    WriteFile(out_dir / ExperimentPageName(*run.experiment),
              ExperimentPage(run, out_dir, title));
  }
  const fs::path index = out_dir / "index.html";
  WriteFile(index, IndexPage(runs, context, title));
  return index;
}

fs::path WriteScenePage(const nlohmann::json& scene, const fs::path& out_dir,
                        const std::string& title) {
  fs::create_directories(out_dir);
  WriteAssets(out_dir);
  const fs::path page = out_dir / "scene.html";
  WriteFile(page, PageStart(title, true) + "<h1>" + Escape(title) + "</h1>\n" +
                      SceneElement(scene.dump(-1, ' ', false,
                                              nlohmann::json::error_handler_t::replace)) +
                      kPageEnd);
  return page;
}

}  // namespace iklab
