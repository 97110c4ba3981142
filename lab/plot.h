#ifndef IKLAB_LAB_PLOT_H_
#define IKLAB_LAB_PLOT_H_

/// @file
/// Pictures through gnuplot: line plots (effector paths, drawn linkages,
/// error curves) and grouped bar charts (benchmark tables). Each picture is
/// written as a self-contained gnuplot script (`NAME.gp`, data inlined) next to
/// its PNG, so a reader can restyle it without rerunning the experiment.

#include <filesystem>
#include <string>
#include <vector>

namespace iklab {

/// One curve of a line plot.
struct Series {
  std::string title;
  std::vector<double> x;
  std::vector<double> y;
  /// gnuplot style: "lines", "points", "linespoints".
  std::string style = "lines";
  /// Line width and point size; colour is chosen by gnuplot per series
  /// unless `color` is set (e.g. "#1f77b4").
  double width = 2.0;
  std::string color;
  /// Dashed line (gnuplot dashtype 2).
  bool dashed = false;
  /// gnuplot dashtype when > 0 (1 solid, 2 dashed, 3 dotted, 4 dash-dot,
  /// 5 dash-dot-dot); overrides `dashed`.
  int dash_type = 0;
  /// gnuplot point type of the styles with points (7: filled circle).
  int point_type = 7;
};

/// A distinct colour for index i (a fixed palette of ten).
std::string PaletteColor(int i);

/// Styles the i-th of many curves so that each stays distinct: colour
/// PaletteColor(i), the line's dash type and the point type changing every
/// ten curves (solid/circle, dashed/square, dotted/triangle, dash-dot/
/// diamond), e.g. twenty solvers in one picture.
void SetDistinctStyle(int i, Series* series);

struct LinePlot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  /// Same scale on both axes (linkage drawings, paths).
  bool equal_axes = false;
  bool log_x = false;
  bool log_y = false;
  /// Key (legend) position, a gnuplot `set key` argument; e.g. "outside
  /// right top vertical" keeps many entries off the curves.
  std::string key = "top right";
  int width_px = 900;
  int height_px = 600;
  /// Text under the plot, wrapped to the width (e.g. which series are left
  /// out and why); empty: none.
  std::string note;
};

/// Grouped bar chart: one group per category, one bar per series.
struct BarChart {
  std::string title;
  /// The value axis's label (the x axis when `horizontal`).
  std::string y_label;
  std::vector<std::string> categories;
  /// series_names[s] labels values[s][category].
  std::vector<std::string> series_names;
  std::vector<std::vector<double>> values;
  bool log_y = false;
  /// gnuplot range of the value axis, e.g. "[0:100]"; empty = automatic.
  std::string y_range;
  /// Horizontal bars with the category names down the y axis, read
  /// horizontally: legible with many categories (twenty solvers). The canvas
  /// grows with the number of bars (height_px is a minimum) and each bar is
  /// labelled with its value; log_y is ignored.
  bool horizontal = false;
  /// Appended to a horizontal bar's value label (e.g. " %").
  std::string value_unit;
  /// Per category (empty, or one per category): a non-empty note marks a
  /// category that has no values, e.g. "refused: <reason>" — drawn as a
  /// hatched bar across the plot carrying the note (horizontal), or under
  /// the category's name (vertical).
  std::vector<std::string> category_notes;
  /// Text under the chart, wrapped to the width; empty: none.
  std::string note;
  int width_px = 900;
  int height_px = 500;
};

/// A grid of coloured cells (rows × columns), each labelled with its text:
/// e.g. success rate as colour and "100 % / 12 µs" as label.
struct Heatmap {
  std::string title;
  std::vector<std::string> row_names;
  std::vector<std::string> column_names;
  /// values[row][column] sets the colour (NaN: grey, "n/a").
  std::vector<std::vector<double>> values;
  /// labels[row][column], drawn on the cell (may be empty; '\n' breaks the
  /// line).
  std::vector<std::vector<std::string>> labels;
  /// Colour bar title and range (low → red, high → green).
  std::string value_label;
  double min_value = 0.0;
  double max_value = 1.0;
  int width_px = 1200;
  int height_px = 700;
};

/// Writes `dir/name.gp` and renders `dir/name.png`.
/// @throws std::runtime_error if gnuplot is missing or fails (the message
///   says which and how to install it).
void DrawLinePlot(const LinePlot& plot, const std::filesystem::path& dir,
                  const std::string& name);
void DrawBarChart(const BarChart& chart, const std::filesystem::path& dir,
                  const std::string& name);
/// Writes `dir/name.gp` and renders `dir/name.png` of a Heatmap.
/// @throws std::runtime_error as DrawLinePlot.
void DrawHeatmap(const Heatmap& map, const std::filesystem::path& dir,
                 const std::string& name);

/// Writes a gnuplot script of one's own to `dir/name.gp` and runs it in
/// `dir` (for pictures the types above do not cover, e.g. reachability
/// slices and 3D scatters, reach/reach_plots.h). The script sets its own
/// terminal and output (name.png, relative to `dir`).
/// @throws std::runtime_error as DrawLinePlot.
void RenderGnuplotScript(const std::string& script,
                         const std::filesystem::path& dir,
                         const std::string& name);

}  // namespace iklab

#endif  // IKLAB_LAB_PLOT_H_
