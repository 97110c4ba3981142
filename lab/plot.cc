#include "lab/plot.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

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

void Render(const std::ostringstream& gp, const std::filesystem::path& dir,
            const std::string& name) {
  const std::filesystem::path script = dir / (name + ".gp");
  {
    std::ofstream out(script);
    out << gp.str();
    if (!out) throw std::runtime_error("cannot write " + script.string());
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

void DrawLinePlot(const LinePlot& plot, const std::filesystem::path& dir,
                  const std::string& name) {
  std::ostringstream gp;
  gp.precision(12);
  Header(gp, name, plot.width_px, plot.height_px, plot.title);
  gp << "set xlabel " << Quote(plot.x_label) << "\n"
     << "set ylabel " << Quote(plot.y_label) << "\n"
     << "set key " << plot.key << " noenhanced box opaque\n";
  if (plot.equal_axes) gp << "set size ratio -1\n";
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
    if (series.style != "lines") gp << " pt 7 ps 0.8";
    if (!series.color.empty()) gp << " lc rgb " << Quote(series.color);
    if (series.dashed) gp << " dt 2";
    gp << (series.title.empty() ? " notitle"
                                : " title " + Quote(series.title));
  }
  gp << "\n";
  Render(gp, dir, name);
}

void DrawBarChart(const BarChart& chart, const std::filesystem::path& dir,
                  const std::string& name) {
  std::ostringstream gp;
  gp.precision(12);
  Header(gp, name, chart.width_px, chart.height_px, chart.title);
  gp << "set ylabel " << Quote(chart.y_label) << "\n"
     << "set style data histograms\n"
     << "set style histogram clustered gap 1\n"
     << "set style fill solid 0.85 border -1\n"
     << "set key above horizontal noenhanced\n"
     << "set xtics noenhanced\n";
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
    gp << Quote(chart.categories[c]);
    for (const auto& values : chart.values) {
      const double v = c < values.size() ? values[c] : NAN;
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
