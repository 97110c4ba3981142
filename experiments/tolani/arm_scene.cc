#include "experiments/tolani/arm_scene.h"

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {
namespace tolani {

namespace {

// Points of the drawn swivel circle.
constexpr int kCirclePoints = 48;

}  // namespace

SceneView& AddBranchView(const ArmSetup& arm, const Trial& trial,
                         const std::string& view_name, iklab::Scene* scene) {
  const Model& model = *arm.model;
  const SrsArm& srs = *arm.srs;
  const int figure = scene->AddFigure(model, arm.name, 0.02 * arm.reach);
  SceneView& view = scene->AddView(view_name);
  view.AddFigure(figure, {trial.q_start}, "start", "#999999");

  // The limb frame in the world: X_WL = X_WB X_BL (the arms' bases are
  // fixed).
  const Eigen::Isometry3d X_WL = srs.X_WB() * srs.X_BL();
  const SrsSolutions solutions = srs.AllSolutions(srs.X_WB().inverse() * trial.goal);
  std::vector<std::vector<std::string>> rows;
  for (int root = 0; root < solutions.num_elbow_roots(); ++root) {
    SwivelIntervals::Interval arc{0.0, 0.0};
    const bool valid = solutions.valid(root).LongestArc(&arc);
    const double phi = valid ? 0.5 * (arc.lo + arc.hi) : 0.0;
    std::array<SrsBranch, 8> branches;
    const int count = solutions.Branches(phi, &branches);
    const SrsBranch* chosen = nullptr;
    for (int b = 0; b < count; ++b) {
      if (branches[b].elbow_root != root) continue;
      if (chosen == nullptr || (branches[b].within_limits && !chosen->within_limits)) {
        chosen = &branches[b];
      }
    }
    const std::string color = root == 0 ? "#1f77b4" : "#ff7f0e";
    if (chosen != nullptr) {
      Eigen::VectorXd q = trial.q_goal;
      for (int k = 0; k < 7; ++k) q[srs.coordinate(k)] = chosen->theta[k];
      view.AddFigure(figure, {q}, "analytic, elbow root " + std::to_string(root),
                     color);
      rows.push_back({"analytic, elbow root " + std::to_string(root),
                      FormatNumber(solutions.theta4(root), 4),
                      FormatNumber(phi, 4),
                      chosen->within_limits ? "yes" : "no"});
    }
    const ElbowCircle& circle = solutions.parameterization(root).circle();
    std::vector<Eigen::Vector3d> points;
    for (int i = 0; i < kCirclePoints; ++i) {
      points.push_back(X_WL * circle.Elbow(2.0 * M_PI * i / kCirclePoints));
    }
    view.AddPath(points, true, "swivel circle, root " + std::to_string(root),
                 color);
  }

  Problem problem(arm.model);
  problem.AddGoal(
      std::make_shared<PositionOrientationGoal>(model, arm.site_name, trial.goal));
  const Result numeric = Solve(problem, trial.q_start, LbfgsbOptions{});
  if (numeric.q.size() == model.nq() && numeric.q.allFinite()) {
    view.AddFigure(figure, {numeric.q}, "lbfgsb", "#2ca02c");
    rows.push_back({"lbfgsb (from the start pose)", "", "",
                    model.WithinLimits(numeric.q, 1e-9) ? "yes" : "no"});
  }
  view.AddPoses({trial.goal}, "target frame", "#d62728", 0.1 * arm.reach);
  view.SetTable({"solution", "elbow angle theta4 (rad)", "swivel phi (rad)",
                 "within limits"},
                std::move(rows));
  return view;
}

void WriteBranchScene(const std::vector<const ArmSetup*>& arms,
                      std::uint64_t seed, const std::string& file,
                      ExperimentOutput* out) {
  iklab::Scene scene("Tolani: elbow branches of one pose goal", "m",
              Eigen::Vector3d::UnitZ());
  for (const ArmSetup* arm : arms) {
    std::mt19937_64 rng(seed * 104729 + 17);
    AddBranchView(*arm, arm->RandomTrial(&rng), arm->name, &scene);
  }
  scene.Write(out->dir() / file);
  out->AddScene(file,
                "One pose goal per arm in 3D: the analytic solution's two elbow "
                "branches (roots of Eq. 5, each at the middle of its longest "
                "valid swivel arc), the elbow's swivel circles, L-BFGS-B's "
                "answer from the start pose (grey) and the target frame.");
}

}  // namespace tolani
}  // namespace iklab
