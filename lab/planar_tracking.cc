#include "lab/planar_tracking.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "solvers/trajectory.h"

namespace iklab {

Eigen::Vector2d SitePoint(const Model& model, const Eigen::VectorXd& q,
                          int site) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePosition(model, data, site).head<2>();
}

PlanarTrack TrackLine(const Solver& solver, std::shared_ptr<const Model> model,
                      const std::string& site, const Eigen::VectorXd& q0,
                      const Eigen::Vector2d& end, int num_frames) {
  const int site_index = model->SiteIndex(site);
  const Eigen::Vector2d start = SitePoint(*model, q0, site_index);
  Problem problem(model);
  auto goal = std::make_shared<PositionGoal>(
      *model, site, Eigen::Vector3d(start.x(), start.y(), 0.0));
  problem.AddGoal(goal);
  PlanarTrack track;
  track.results = SolveTrajectory(
      solver, &problem, q0, num_frames,
      MovePositionGoal(goal, LinearPath(Eigen::Vector3d(start.x(), start.y(), 0),
                                        Eigen::Vector3d(end.x(), end.y(), 0))));
  track.q.push_back(q0);
  track.effector.push_back(start);
  track.goal.push_back(start);
  for (int k = 1; k <= num_frames; ++k) {
    const Eigen::VectorXd& q = track.results[k - 1].q;
    track.q.push_back(q);
    track.effector.push_back(SitePoint(*model, q, site_index));
    const double s = static_cast<double>(k) / num_frames;
    track.goal.push_back((1.0 - s) * start + s * end);
  }
  return track;
}

double MaxDistanceToSegment(const std::vector<Eigen::Vector2d>& points,
                            const Eigen::Vector2d& a,
                            const Eigen::Vector2d& b) {
  const Eigen::Vector2d ab = b - a;
  const double length2 = ab.squaredNorm();
  double worst = 0.0;
  for (const Eigen::Vector2d& p : points) {
    double t = length2 > 0.0 ? (p - a).dot(ab) / length2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    worst = std::max(worst, (p - (a + t * ab)).norm());
  }
  return worst;
}

std::vector<double> JointJumps(const std::vector<Eigen::VectorXd>& q) {
  std::vector<double> jumps(q.size(), 0.0);
  for (std::size_t k = 1; k < q.size(); ++k) {
    jumps[k] = (q[k] - q[k - 1]).cwiseAbs().maxCoeff();
  }
  return jumps;
}

std::vector<double> TrackingErrors(const PlanarTrack& track) {
  std::vector<double> errors;
  for (std::size_t k = 0; k < track.effector.size(); ++k) {
    errors.push_back((track.effector[k] - track.goal[k]).norm());
  }
  return errors;
}

Series LinkageSeries(const Model& model, const Eigen::VectorXd& q,
                     const std::string& title, const std::string& color,
                     Projection projection) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  Series series;
  series.title = title;
  series.style = "linespoints";
  series.color = color;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int u = projection == Projection::kYZ ? 1 : 0;
  const int v = projection == Projection::kXY ? 1 : 2;
  auto segment = [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
    if ((a - b).norm() < 1e-12) return;
    series.x.insert(series.x.end(), {a[u], b[u], nan});
    series.y.insert(series.y.end(), {a[v], b[v], nan});
  };
  for (int step = 0; step < model.num_steps(); ++step) {
    const int parent = model.parent(step);
    if (parent < 0) continue;
    segment(data.X_W(parent).translation(), data.X_W(step).translation());
  }
  for (int site = 0; site < model.num_sites(); ++site) {
    segment(data.X_W(model.site_step(site)).translation(),
            SitePosition(model, data, site));
  }
  if (!series.x.empty()) {
    series.x.pop_back();
    series.y.pop_back();
  }
  return series;
}

LinePlot LinkageFramesPlot(const Model& model,
                           const std::vector<Eigen::VectorXd>& poses,
                           const std::vector<int>& frames,
                           const std::string& title, Projection projection) {
  LinePlot plot;
  plot.title = title;
  plot.x_label = projection == Projection::kYZ ? "y" : "x";
  plot.y_label = projection == Projection::kXY ? "y" : "z";
  plot.equal_axes = true;
  plot.key = "outside right top";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const int k = frames[i];
    plot.series.push_back(LinkageSeries(model, poses[k],
                                        "frame " + std::to_string(k),
                                        PaletteColor(static_cast<int>(i)),
                                        projection));
  }
  return plot;
}

LinePlot TrackPlot(const Model& model, const PlanarTrack& track,
                   const std::vector<int>& frames, const std::string& title) {
  LinePlot plot = LinkageFramesPlot(model, track.q, frames, title);
  Series goal;
  goal.title = "goal path";
  goal.color = "#555555";
  goal.dashed = true;
  goal.width = 1.5;
  Series path;
  path.title = "effector path";
  path.color = "#000000";
  path.width = 1.0;
  path.style = "linespoints";
  for (std::size_t k = 0; k < track.effector.size(); ++k) {
    goal.x.push_back(track.goal[k].x());
    goal.y.push_back(track.goal[k].y());
    path.x.push_back(track.effector[k].x());
    path.y.push_back(track.effector[k].y());
  }
  plot.series.push_back(goal);
  plot.series.push_back(path);
  return plot;
}

}  // namespace iklab
