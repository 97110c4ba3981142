#include "experiments/nlp/runs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/QR>

#include "lab/planar_tracking.h"
#include "lab/scene.h"
#include "framework/kinematics.h"
#include "solvers/trajectory.h"

namespace iklab {

SegmentRun FollowSegments(const Solver& solver, Problem* problem,
                          const std::vector<std::shared_ptr<PositionGoal>>& goals,
                          const std::vector<Eigen::Vector2d>& ends,
                          const Eigen::VectorXd& q0, int num_frames,
                          Spacing spacing, const BeforeFrame& before) {
  if (goals.size() != ends.size() || num_frames < 1) {
    throw std::invalid_argument(
        "FollowSegments: need one end per goal and num_frames >= 1, got " +
        std::to_string(goals.size()) + " goals, " +
        std::to_string(ends.size()) + " ends, " + std::to_string(num_frames) +
        " frames");
  }
  const Model& model = problem->model();
  std::vector<int> sites;
  std::vector<PointPath> paths;
  SegmentRun run;
  run.q.push_back(q0);
  run.effector.emplace_back();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    sites.push_back(goals[g]->site());
    const Eigen::Vector2d start = SitePoint(model, q0, sites.back());
    run.effector[0].push_back(start);
    const Eigen::Vector3d a(start.x(), start.y(), 0.0);
    const Eigen::Vector3d b(ends[g].x(), ends[g].y(), 0.0);
    paths.push_back(spacing == Spacing::kLinear ? LinearPath(a, b)
                                                : HermitePath(a, b));
  }
  run.target.push_back(run.effector[0]);
  Eigen::VectorXd q = q0;
  for (int k = 1; k <= num_frames; ++k) {
    const double s = static_cast<double>(k) / num_frames;
    std::vector<Eigen::Vector2d> targets;
    for (std::size_t g = 0; g < goals.size(); ++g) {
      const Eigen::Vector3d p = paths[g](s);
      goals[g]->set_target(p);
      targets.push_back(p.head<2>());
    }
    if (before) before(k, q);
    run.results.push_back(solver.Solve(*problem, q));
    if (run.results.back().status != SolveStatus::kInvalidInput) {
      q = run.results.back().q;
    }
    run.q.push_back(q);
    run.target.push_back(targets);
    std::vector<Eigen::Vector2d> effectors;
    for (int site : sites) effectors.push_back(SitePoint(model, q, site));
    run.effector.push_back(effectors);
  }
  return run;
}

Eigen::MatrixXd PlanarJacobian(const Model& model, const Eigen::VectorXd& q,
                               int site) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  Eigen::Matrix3Xd J(3, model.nq());
  SitePositionJacobian(model, data, site, J);
  return J.topRows<2>();
}

Eigen::MatrixXd PseudoInverse(const Eigen::MatrixXd& A, double threshold) {
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
  cod.setThreshold(threshold);
  return cod.pseudoInverse();
}

double MaxSegmentDeviation(const SegmentRun& run, int g) {
  std::vector<Eigen::Vector2d> points;
  for (const auto& frame : run.effector) points.push_back(frame[g]);
  return MaxDistanceToSegment(points, run.target.front()[g],
                              run.target.back()[g]);
}

double FrameError(const SegmentRun& run, int k) {
  double worst = 0.0;
  for (std::size_t g = 0; g < run.effector[k].size(); ++g) {
    worst = std::max(worst, (run.effector[k][g] - run.target[k][g]).norm());
  }
  return worst;
}

double MaxJointJump(const std::vector<Eigen::VectorXd>& q) {
  const std::vector<double> jumps = JointJumps(q);
  return *std::max_element(jumps.begin(), jumps.end());
}

double MaxJointAcceleration(const std::vector<Eigen::VectorXd>& q) {
  const int n = static_cast<int>(q.size());
  double worst = 0.0;
  for (int k = 0; k < n; ++k) {
    const Eigen::VectorXd& prev = q[std::max(k - 1, 0)];
    const Eigen::VectorXd& next = q[std::min(k + 1, n - 1)];
    worst = std::max(worst, (next - 2.0 * q[k] + prev).cwiseAbs().maxCoeff());
  }
  return worst;
}

LinePlot SegmentRunPlot(const Model& model, const SegmentRun& run,
                        const std::vector<int>& frames,
                        const std::string& title) {
  LinePlot plot = LinkageFramesPlot(model, run.q, frames, title);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Series segments;
  segments.title = "target segments";
  segments.color = "#555555";
  segments.dashed = true;
  segments.width = 1.5;
  Series paths;
  paths.title = "effector paths";
  paths.color = "#000000";
  paths.width = 1.0;
  paths.style = "linespoints";
  Series targets;
  targets.title = "targets X";
  targets.color = "#ff00ff";  // not a frame colour
  targets.style = "points";
  targets.width = 2.5;
  const std::size_t goals = run.effector.front().size();
  for (std::size_t g = 0; g < goals; ++g) {
    segments.x.insert(segments.x.end(), {run.target.front()[g].x(),
                                         run.target.back()[g].x(), nan});
    segments.y.insert(segments.y.end(), {run.target.front()[g].y(),
                                         run.target.back()[g].y(), nan});
    for (const auto& frame : run.effector) {
      paths.x.push_back(frame[g].x());
      paths.y.push_back(frame[g].y());
    }
    paths.x.push_back(nan);
    paths.y.push_back(nan);
    targets.x.push_back(run.target.back()[g].x());
    targets.y.push_back(run.target.back()[g].y());
  }
  plot.series.push_back(segments);
  plot.series.push_back(paths);
  plot.series.push_back(targets);
  return plot;
}

void WriteSegmentScene(const Model& model, const std::string& title,
                       const std::vector<SegmentSceneView>& views,
                       const std::vector<std::string>& sites,
                       const std::string& file, const std::string& caption,
                       ExperimentOutput* out) {
  Scene scene(title, "length units", Eigen::Vector3d::UnitY());
  int figure = -1;
  double extent = 1.0;
  for (const SegmentSceneView& v : views) {
    if (v.runs.empty()) {
      throw std::invalid_argument("WriteSegmentScene: view '" + v.name +
                                  "' has no run");
    }
    const SegmentRun& first = *v.runs.front().second;
    if (figure < 0) {
      extent = FigureExtent(model, first.q.front());
      figure = scene.AddFigure(model, title, 0.015 * extent);
    }
    std::vector<SceneMotion> motions;
    std::vector<std::vector<std::string>> rows;
    for (std::size_t r = 0; r < v.runs.size(); ++r) {
      const SegmentRun& run = *v.runs[r].second;
      motions.push_back({v.runs[r].first, PaletteColor(static_cast<int>(r)), run.q});
      double worst = 0.0;
      for (std::size_t k = 1; k < run.q.size(); ++k) {
        worst = std::max(worst, FrameError(run, static_cast<int>(k)));
      }
      rows.push_back({v.runs[r].first, FormatNumber(worst, 3),
                      FormatNumber(FrameError(run, static_cast<int>(run.q.size()) - 1), 3),
                      FormatNumber(MaxJointJump(run.q), 3)});
    }
    std::vector<std::vector<Eigen::Vector3d>> targets;
    for (const auto& frame : first.target) {
      targets.emplace_back();
      for (const Eigen::Vector2d& t : frame) {
        targets.back().push_back(Eigen::Vector3d(t.x(), t.y(), 0.0));
      }
    }
    SceneView& view = AddMotionView(v.name, figure, motions, sites, targets,
                                    0.02 * extent, v.frame_seconds, &scene);
    // A run whose frames have other targets (another spacing) shows its own
    // in its colour.
    const std::vector<int> drawn =
        ThinnedFrames(static_cast<int>(first.q.size()));
    for (std::size_t r = 1; r < v.runs.size(); ++r) {
      const SegmentRun& run = *v.runs[r].second;
      if (run.target == first.target) continue;
      std::vector<std::vector<Eigen::Vector3d>> moving;
      for (int k : drawn) {
        moving.emplace_back();
        for (const Eigen::Vector2d& t : run.target[k]) {
          moving.back().push_back(Eigen::Vector3d(t.x(), t.y(), 0.0));
        }
      }
      view.AddAnimatedPoints(moving, v.runs[r].first + ": targets",
                             PaletteColor(static_cast<int>(r)), 0.02 * extent);
    }
    view.SetTable({"run", "largest distance to the frame's targets",
                   "final distance", "largest joint change per frame (rad)"},
                  std::move(rows));
  }
  scene.Write(out->dir() / file);
  out->AddScene(file, caption);
}

}  // namespace iklab
