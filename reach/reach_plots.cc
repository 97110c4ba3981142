#include "reach/reach_plots.h"

#include <cmath>
#include <sstream>

#include "lab/experiment.h"
#include "lab/plot.h"

namespace iklab {

namespace {

constexpr char kPalette[] =
    "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', "
    "0.75 '#5ec962', 1 '#fde725')\n";

std::string Header(const std::string& name, const std::string& title) {
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,800 enhanced font 'DejaVu Sans,11'\n"
     << "set output '" << name << ".png'\n"
     << "set title \"" << title << "\" noenhanced\n"
     << kPalette;
  return gp.str();
}

// One plane of the grid: axis `normal` (0 x, 1 y, 2 z) fixed at index
// `fixed`; `value(v)` is NaN where nothing was solved.
std::string Slice(const ReachMap& map, int normal, int fixed,
                  const std::string& name, const std::string& title,
                  const std::string& label, double cb_max,
                  double (*value)(const ReachMap&, std::int64_t)) {
  const int a = 0;
  const int b = normal == 2 ? 1 : 2;
  const char* axis_names = "xyz";
  std::ostringstream gp;
  gp.precision(6);
  gp << Header(name, title) << "set xlabel '" << axis_names[a] << " (m)'\n"
     << "set ylabel '" << axis_names[b] << " (m)'\n"
     << "set cblabel '" << label << "'\n"
     << "set size ratio -1\nset cbrange [0:" << cb_max << "]\n"
     << "$d << EOD\n";
  const VoxelGrid& g = map.grid;
  for (int i = 0; i < g.shape[a]; ++i) {
    for (int j = 0; j < g.shape[b]; ++j) {
      Eigen::Vector3i c;
      c[normal] = fixed;
      c[a] = i;
      c[b] = j;
      const std::int64_t v = g.Index(c.x(), c.y(), c.z());
      const Eigen::Vector3d p = g.Centre(v);
      const double x = value(map, v);
      gp << p[a] << " " << p[b] << " ";
      if (std::isnan(x)) {
        gp << "NaN\n";
      } else {
        gp << x << "\n";
      }
    }
    gp << "\n";
  }
  gp << "EOD\nplot $d using 1:2:3 with image notitle\n";
  return gp.str();
}

double Fraction(const ReachMap& map, std::int64_t v) {
  return map.state[v] == static_cast<std::uint8_t>(VoxelState::kSolved)
             ? map.Fraction(v)
             : std::nan("");
}

double Manipulability(const ReachMap& map, std::int64_t v) {
  return map.manipulability_mean[v];
}

}  // namespace

std::vector<std::pair<std::string, std::string>> DrawReachMap(
    const ReachMap& map, const std::filesystem::path& dir) {
  const VoxelGrid& g = map.grid;
  const Eigen::Vector3i c =
      ((map.reach.centre - g.origin) / g.resolution)
          .array()
          .round()
          .cast<int>()
          .matrix()
          .cwiseMax(0)
          .cwiseMin(g.shape - Eigen::Vector3i::Ones());
  const std::string what =
      map.robot + " " + map.site + ", " +
      (map.settings.position_only
           ? std::string("position only")
           : std::to_string(map.settings.orientations_per_voxel()) +
                 " orientations") +
      ", " + FormatNumber(100 * g.resolution, 3) + " cm voxels";
  std::vector<std::pair<std::string, std::string>> pictures;
  const auto draw = [&](const std::string& name, const std::string& script,
                        const std::string& caption) {
    RenderGnuplotScript(script, dir, name);
    pictures.emplace_back(name + ".png", caption);
  };
  std::ostringstream z;
  z.precision(3);
  z << g.Centre(g.Index(c.x(), c.y(), c.z())).z();
  std::ostringstream y;
  y.precision(3);
  y << g.Centre(g.Index(c.x(), c.y(), c.z())).y();
  draw("reach_slice_xy",
       Slice(map, 2, c.z(), "reach_slice_xy",
             "Reachable fraction, plane z = " + z.str() + " m: " + what,
             "reachable fraction", 1.0, Fraction),
       "Reachable fraction of the voxels in the horizontal plane through the "
       "workspace centre (white: not solved)");
  draw("reach_slice_xz",
       Slice(map, 1, c.y(), "reach_slice_xz",
             "Reachable fraction, plane y = " + y.str() + " m: " + what,
             "reachable fraction", 1.0, Fraction),
       "Reachable fraction of the voxels in the vertical plane through the "
       "workspace centre (white: not solved)");
  double w_max = 0.0;
  for (float w : map.manipulability_mean) {
    if (std::isfinite(w)) w_max = std::max(w_max, static_cast<double>(w));
  }
  draw("reach_manipulability_xz",
       Slice(map, 1, c.y(), "reach_manipulability_xz",
             "Mean Yoshikawa manipulability, plane y = " + y.str() + " m: " + what,
             "mean sqrt(det(J J^T))", w_max > 0 ? w_max : 1.0, Manipulability),
       "Mean Yoshikawa manipulability of the reached queries in the vertical "
       "plane through the workspace centre (white: none reached)");

  std::ostringstream gp;
  gp.precision(6);
  gp << Header("reach_scatter", "Voxels with a reachable query: " + what)
     << "set xlabel 'x (m)'\nset ylabel 'y (m)'\nset zlabel 'z (m)'\n"
     << "set view 60, 30\nset view equal xyz\nset cbrange [0:1]\n"
     << "set cblabel 'reachable fraction'\n$d << EOD\n";
  std::int64_t points = 0;
  for (std::int64_t v = 0; v < g.num_voxels(); ++v) {
    if (map.reached[v] == 0) continue;
    const Eigen::Vector3d p = g.Centre(v);
    gp << p.x() << " " << p.y() << " " << p.z() << " " << map.Fraction(v)
       << "\n";
    ++points;
  }
  if (points == 0) gp << "NaN NaN NaN NaN\n";
  gp << "EOD\nsplot $d using 1:2:3:4 with points pt 7 ps 0.5 lc palette "
        "notitle\n";
  draw("reach_scatter", gp.str(),
       "Centres of the voxels with at least one reachable query, coloured by "
       "reachable fraction");
  return pictures;
}

}  // namespace iklab
