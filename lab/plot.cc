#include "lab/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/internal/read_file.h"

namespace iklab {

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void Header(std::ostringstream& gp, const std::string& name, int w, int h,
            const std::string& title) {
  gp << "set terminal pngcairo size " << w << "," << h
     << " enhanced font 'DejaVu Sans,11'\n"
     << "set output " << Quote(name + ".png") << "\n"
     << "set title " << Quote(title) << " noenhanced\n"
     << "set grid lc rgb '#dddddd'\n";
}

// `text` in lines of at most `width` characters, broken at spaces (a longer
// word keeps its own line).
std::vector<std::string> Wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// A note under the plot: wrapped to the canvas width, the bottom margin
// grown to hold it. gnuplot anchors a multi-line label at its first line.
void Note(std::ostringstream& gp, const std::string& note, int width_px,
          int height_px) {
  if (note.empty()) return;
  // About 7 px per character of the 10-point note font.
  const std::vector<std::string> lines =
      Wrap(note, static_cast<std::size_t>(std::max(40, width_px / 7 - 4)));
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string quoted = Quote(lines[i]);
    text += (i ? "\\n" : "") + quoted.substr(1, quoted.size() - 2);
  }
  constexpr double kLinePx = 15.0;
  const double first_line_px = 8.0 + kLinePx * (lines.size() - 0.5);
  gp << "set bmargin " << 4 + lines.size() << "\n"
     << "set label 1001 \"" << text << "\" at screen 0.01, screen "
     << first_line_px / height_px << " left front noenhanced font ',10'\n";
}

void Render(const std::ostringstream& gp, const std::filesystem::path& dir,
            const std::string& name) {
  const std::filesystem::path script = dir / (name + ".gp");
  {
    std::ofstream out(script);
    out << gp.str();
    if (!out) throw std::runtime_error(internal::CannotWrite(script.string()));
  }
  // Run in `dir` so the script's relative output name works when rerun by hand.
  const std::string command = "cd " + Quote(dir.string()) + " && gnuplot " +
                              Quote(name + ".gp") + " 2>" +
                              Quote(name + ".gnuplot.log");
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error(
        "gnuplot failed on " + script.string() + " (see " + name +
        ".gnuplot.log in that folder); is it installed? (apt-get install "
        "gnuplot-nox)");
  }
  std::filesystem::remove(dir / (name + ".gnuplot.log"));
}

}  // namespace

std::string PaletteColor(int i) {
  static const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                                        "#d62728", "#9467bd", "#8c564b",
                                        "#e377c2", "#7f7f7f", "#bcbd22",
                                        "#17becf"};
  return kColors[((i % 10) + 10) % 10];
}

void SetDistinctStyle(int i, Series* series) {
  // gnuplot dash types 1 solid, 2 dashed, 3 dotted, 4 dash-dot; point types
  // 7 circle, 5 square, 9 triangle, 13 diamond (all filled).
  static const int kDashTypes[] = {1, 2, 3, 4};
  static const int kPointTypes[] = {7, 5, 9, 13};
  const int group = ((i / 10) % 4 + 4) % 4;
  series->color = PaletteColor(i);
  series->dash_type = kDashTypes[group];
  series->point_type = kPointTypes[group];
}

void DrawLinePlot(const LinePlot& plot, const std::filesystem::path& dir,
                  const std::string& name) {
  std::ostringstream gp;
  gp.precision(12);
  Header(gp, name, plot.width_px, plot.height_px, plot.title);
  gp << "set xlabel " << Quote(plot.x_label) << "\n"
     << "set ylabel " << Quote(plot.y_label) << "\n"
     << "set key " << plot.key << " noenhanced box opaque\n";
  if (plot.equal_axes) gp << "set size ratio -1\n";
  Note(gp, plot.note, plot.width_px, plot.height_px);
  if (plot.log_x) gp << "set logscale x\nset format x '10^{%T}'\n";
  if (plot.log_y) gp << "set logscale y\nset format y '10^{%T}'\n";
  for (size_t s = 0; s < plot.series.size(); ++s) {
    gp << "$d" << s << " << EOD\n";
    const Series& series = plot.series[s];
    for (size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
      // A NaN breaks the line (gnuplot skips blank-line-separated blocks).
      if (std::isnan(series.x[i]) || std::isnan(series.y[i])) {
        gp << "\n";
      } else {
        gp << series.x[i] << " " << series.y[i] << "\n";
      }
    }
    gp << "EOD\n";
  }
  gp << "plot ";
  for (size_t s = 0; s < plot.series.size(); ++s) {
    const Series& series = plot.series[s];
    gp << (s ? ", \\\n     " : "") << "$d" << s << " using 1:2 with "
       << series.style << " lw " << series.width;
    if (series.style != "lines") gp << " pt " << series.point_type << " ps 0.8";
    if (!series.color.empty()) gp << " lc rgb " << Quote(series.color);
    if (series.dash_type > 0) {
      gp << " dt " << series.dash_type;
    } else if (series.dashed) {
      gp << " dt 2";
    }
    gp << (series.title.empty() ? " notitle"
                                : " title " + Quote(series.title));
  }
  gp << "\n";
  Render(gp, dir, name);
}

namespace {

// A string in a data block: double-quoted, with no escapes there (gnuplot
// reads data lines literally), so a double quote in it becomes a single one.
std::string DataString(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

// The note of category c, or "" (category_notes may be empty).
std::string CategoryNote(const BarChart& chart, std::size_t c) {
  return c < chart.category_notes.size() ? chart.category_notes[c] : "";
}

// Horizontal bars (BarChart::horizontal): category c on row c from the top,
// its series side by side within the row, each bar labelled with its value;
// a noted category is a hatched bar across the plot carrying its note.
void HorizontalBars(const BarChart& chart, std::ostringstream& gp) {
  const std::size_t rows = chart.categories.size();
  const std::size_t series = std::max<std::size_t>(1, chart.values.size());
  const double bar = 0.8 / series;  // height of one bar, row pitch 1
  double largest = 0.0;
  for (const auto& values : chart.values) {
    for (double v : values) {
      if (std::isfinite(v)) largest = std::max(largest, v);
    }
  }
  gp << "set xlabel " << Quote(chart.y_label) << "\n"
     << "set grid noytics xtics\n"
     << "set yrange [" << rows - 0.5 << ":-0.5]\n"
     << "set ytics scale 0 noenhanced (";
  for (std::size_t c = 0; c < rows; ++c) {
    gp << (c ? ", " : "") << Quote(chart.categories[c]) << " " << c;
  }
  gp << ")\n"
     << "set style fill solid 0.85 border -1\n"
     << "set style textbox opaque noborder\n";
  if (!chart.y_range.empty()) {
    gp << "set xrange " << chart.y_range << "\n";
  } else {
    // Room at the right for the value labels.
    gp << "set xrange [0:" << (largest > 0.0 ? 1.15 * largest : 1.0) << "]\n";
  }
  if (series == 1) {
    gp << "unset key\n";
  } else {
    gp << "set key outside right top vertical noenhanced\n";
  }
  // Bars: centre x, row y, half-width, half-height, value.
  for (std::size_t s = 0; s < chart.values.size(); ++s) {
    gp << "$bars" << s << " << EOD\n";
    for (std::size_t c = 0; c < rows; ++c) {
      const double v = c < chart.values[s].size() ? chart.values[s][c] : NAN;
      if (!CategoryNote(chart, c).empty() || !std::isfinite(v)) continue;
      const double y = c + (s - 0.5 * (series - 1)) * bar;
      gp << 0.5 * v << " " << y << " " << 0.5 * v << " " << 0.5 * bar << " "
         << v << "\n";
    }
    gp << "EOD\n";
  }
  bool any_note = false;
  gp << "$notes << EOD\n";
  for (std::size_t c = 0; c < rows; ++c) {
    if (!CategoryNote(chart, c).empty()) {
      gp << c << " " << DataString(CategoryNote(chart, c)) << "\n";
      any_note = true;
    }
  }
  gp << "EOD\n";
  // The value labels' format: three significant digits and the unit (a '%'
  // in it doubled for sprintf).
  std::string format = " %.3g";
  for (char ch : chart.value_unit) {
    if (ch == '\'' || ch == '\\') continue;
    format += ch == '%' ? std::string("%%") : std::string(1, ch);
  }
  gp << "plot ";
  for (std::size_t s = 0; s < chart.values.size(); ++s) {
    const std::string color = PaletteColor(static_cast<int>(s));
    const std::string title =
        s < chart.series_names.size() ? chart.series_names[s] : "";
    gp << (s ? ", \\\n     " : "") << "$bars" << s
       << " using 1:2:3:4 with boxxyerror lc rgb " << Quote(color) << " title "
       << Quote(title) << ", \\\n     $bars" << s
       << " using (2*$1):2:(sprintf('" << format
       << "', $5)) with labels left noenhanced notitle";
  }
  if (!any_note) {
    gp << "\n";
    return;
  }
  // The hatched band spans the whole value axis (gnuplot clips it), its
  // note written on it.
  gp << (chart.values.empty() ? "" : ", \\\n     ")
     << "$notes using (0):1:(0):(1e300):($1-0.4):($1+0.4) with boxxyerror "
        "fs pattern 4 border lc rgb '#777777' lc rgb '#aaaaaa' notitle, "
        "\\\n"
     << "     $notes using (0):1:(' '.stringcolumn(2)) with labels left boxed "
        "noenhanced font ',10' notitle\n";
}

// Vertical grouped bars (gnuplot histograms); many categories get slanted
// names, a noted category its note under its name.
void VerticalBars(const BarChart& chart, std::ostringstream& gp) {
  gp << "set ylabel " << Quote(chart.y_label) << "\n"
     << "set style data histograms\n"
     << "set style histogram clustered gap 1\n"
     << "set style fill solid 0.85 border -1\n"
     << "set key above horizontal noenhanced\n"
     << "set xtics noenhanced\n";
  if (chart.categories.size() > 6) gp << "set xtics rotate by 30 right\n";
  if (chart.log_y) gp << "set logscale y\nset format y '10^{%T}'\n";
  if (!chart.y_range.empty()) {
    gp << "set yrange " << chart.y_range << "\n";
  } else if (!chart.log_y) {
    // Bars start at 0; an all-zero chart (e.g. no failures anywhere) gets a
    // visible [0, 1] axis instead of gnuplot's [−1, 1].
    bool any_positive = false, any_negative = false;
    for (const auto& values : chart.values) {
      for (double v : values) {
        any_positive = any_positive || v > 0.0;
        any_negative = any_negative || v < 0.0;
      }
    }
    if (!any_negative) {
      gp << (any_positive ? "set yrange [0:*]\n" : "set yrange [0:1]\n");
    }
  }
  gp << "$d << EOD\n";
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    const std::string note = CategoryNote(chart, c);
    gp << DataString(note.empty() ? chart.categories[c]
                                  : chart.categories[c] + " (" + note + ")");
    for (const auto& values : chart.values) {
      const double v = c < values.size() && note.empty() ? values[c] : NAN;
      gp << " " << (std::isfinite(v) ? v : NAN);
    }
    gp << "\n";
  }
  gp << "EOD\nplot ";
  for (size_t s = 0; s < chart.series_names.size(); ++s) {
    gp << (s ? ", " : "") << "$d using " << s + 2
       << (s == 0 ? ":xtic(1)" : "") << " title "
       << Quote(chart.series_names[s]);
  }
  gp << "\n";
}

}  // namespace

void DrawBarChart(const BarChart& chart, const std::filesystem::path& dir,
                  const std::string& name) {
  std::ostringstream gp;
  gp.precision(12);
  int width = chart.width_px, height = chart.height_px;
  if (chart.horizontal) {
    // About 26 px per bar, at least 36 per category, plus title and axis.
    const int per_row = std::max<int>(
        36,
        26 * static_cast<int>(std::max<std::size_t>(1, chart.values.size())));
    height = std::max(
        height, 150 + per_row * static_cast<int>(chart.categories.size()));
  } else {
    // About 24 px per bar and 30 between groups.
    const int bars =
        static_cast<int>(chart.categories.size() *
                         std::max<std::size_t>(1, chart.values.size()));
    width = std::max(width, 160 + 24 * bars +
                                30 * static_cast<int>(chart.categories.size()));
  }
  Header(gp, name, width, height, chart.title);
  Note(gp, chart.note, width, height);
  if (chart.horizontal) {
    HorizontalBars(chart, gp);
  } else {
    VerticalBars(chart, gp);
  }
  Render(gp, dir, name);
}

void DrawHeatmap(const Heatmap& map, const std::filesystem::path& dir,
                 const std::string& name) {
  const std::size_t rows = map.row_names.size();
  const std::size_t cols = map.column_names.size();
  std::ostringstream gp;
  gp.precision(12);
  Header(gp, name, map.width_px, map.height_px, map.title);
  gp << "unset grid\n"
     << "set palette defined (0 '#d73027', 0.5 '#fee08b', 1 '#1a9850')\n"
     << "set cbrange [" << map.min_value << ":" << map.max_value << "]\n"
     << "set cblabel " << Quote(map.value_label) << " noenhanced\n"
     << "set xrange [-0.5:" << cols - 0.5 << "]\n"
     << "set yrange [" << rows - 0.5 << ":-0.5]\n"
     << "set xtics rotate by 30 right noenhanced\n"
     << "set ytics noenhanced\n"
     << "set tics scale 0\n";
  gp << "set xtics (";
  for (std::size_t c = 0; c < cols; ++c) {
    gp << (c ? ", " : "") << Quote(map.column_names[c]) << " " << c;
  }
  gp << ")\nset ytics (";
  for (std::size_t r = 0; r < rows; ++r) {
    gp << (r ? ", " : "") << Quote(map.row_names[r]) << " " << r;
  }
  gp << ")\n";
  // Cells: x y value; NaN cells are drawn grey by a second layer.
  gp << "$cells << EOD\n";
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = r < map.values.size() && c < map.values[r].size()
                           ? map.values[r][c] : NAN;
      if (std::isfinite(v)) gp << c << " " << r << " " << v << "\n";
    }
  }
  gp << "EOD\n$missing << EOD\n";
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = r < map.values.size() && c < map.values[r].size()
                           ? map.values[r][c] : NAN;
      if (!std::isfinite(v)) gp << c << " " << r << "\n";
    }
  }
  gp << "EOD\n$labels << EOD\n";
  for (std::size_t r = 0; r < rows && r < map.labels.size(); ++r) {
    for (std::size_t c = 0; c < cols && c < map.labels[r].size(); ++c) {
      if (!map.labels[r][c].empty()) {
        // A newline in a label becomes gnuplot's "\n" escape (two lines).
        std::string label = Quote(map.labels[r][c]);
        for (std::size_t i = 0; (i = label.find('\n', i)) != std::string::npos;) {
          label.replace(i, 1, "\\n");
        }
        gp << c << " " << r << " " << label << "\n";
      }
    }
  }
  gp << "EOD\n"
     << "plot $cells using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 "
        "noborder lc palette notitle, \\\n"
     << "     $missing using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 "
        "noborder lc rgb '#cccccc' notitle, \\\n"
     << "     $labels using 1:2:3 with labels font 'DejaVu Sans,8' noenhanced "
        "notitle\n";
  Render(gp, dir, name);
}

void RenderGnuplotScript(const std::string& script,
                         const std::filesystem::path& dir,
                         const std::string& name) {
  std::ostringstream gp;
  gp << script;
  Render(gp, dir, name);
}

}  // namespace iklab
