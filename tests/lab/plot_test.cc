// Pictures (lab/plot.h) that stay legible with many series and categories:
// horizontal bars name every category on the axis and grow the canvas,
// noted categories are hatched and carry their note, twenty curves get
// twenty distinct styles, and a note is wrapped under the plot.

#include "lab/plot.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "framework/internal/read_file.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

std::string PlotScript(const std::filesystem::path& path) {
  return internal::ReadFile(path.string());
}

TEST_CASE(
    "A horizontal bar chart names every category on its axis, grows "
    "with them and hatches a noted category",
    "[lab][plot]") {
  const auto dir = testing::ScratchPath("iklab_plot_bars");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  BarChart chart;
  chart.title = "twenty solvers";
  chart.y_label = "success (%)";
  chart.horizontal = true;
  chart.value_unit = " %";
  chart.series_names = {"success"};
  chart.values.resize(1);
  for (int i = 0; i < 20; ++i) {
    chart.categories.push_back("solver-with-a-long-name-" + std::to_string(i));
    chart.values[0].push_back(5.0 * i);
    chart.category_notes.push_back(i == 7 ? "refused: not a planar chain" : "");
  }
  DrawBarChart(chart, dir, "bars");
  CHECK(std::filesystem::exists(dir / "bars.png"));
  const std::string script = PlotScript(dir / "bars.gp");
  for (int i = 0; i < 20; ++i) {
    INFO(i);
    CHECK(script.find("\"solver-with-a-long-name-" + std::to_string(i) + "\" " +
                      std::to_string(i)) != std::string::npos);
  }
  // 20 rows of at least 36 px each, plus the title and axis.
  CHECK(script.find("size 900,870") != std::string::npos);
  CHECK(script.find("fs pattern") != std::string::npos);
  CHECK(script.find("\"refused: not a planar chain\"") != std::string::npos);
  // The value labels carry the unit ('%' doubled for sprintf).
  CHECK(script.find("' %.3g %%'") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("Twenty curves get twenty distinct colour and dash pairs",
          "[lab][plot]") {
  std::set<std::pair<std::string, int>> styles;
  for (int i = 0; i < 20; ++i) {
    Series s;
    SetDistinctStyle(i, &s);
    styles.insert({s.color, s.dash_type});
  }
  CHECK(styles.size() == 20u);
}

TEST_CASE("A line plot's note is wrapped under the plot", "[lab][plot]") {
  const auto dir = testing::ScratchPath("iklab_plot_note");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  LinePlot plot;
  plot.title = "note";
  Series s;
  s.x = {1.0, 2.0};
  s.y = {1.0, 4.0};
  plot.series = {s};
  plot.width_px = 400;
  for (int i = 0; i < 30; ++i) plot.note += "word" + std::to_string(i) + " ";
  DrawLinePlot(plot, dir, "note");
  CHECK(std::filesystem::exists(dir / "note.png"));
  const std::string script = PlotScript(dir / "note.gp");
  // 30 words of about 6 characters in lines of at most 53: four lines.
  CHECK(script.find("word0 word1") != std::string::npos);
  CHECK(script.find("\\nword") != std::string::npos);
  CHECK(script.find("set bmargin 8") != std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iklab
