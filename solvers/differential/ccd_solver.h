#ifndef IKLAB_SOLVERS_DIFFERENTIAL_CCD_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_CCD_SOLVER_H_

/// @file
/// Cyclic coordinate descent (Parent §5.3.3 "Procedurally determining the
/// angles", after Wang & Chen 1991 / Welman 1993).

#include <memory>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of cyclic coordinate descent.
struct CcdOptions {
  SolveOptions common;
  /// Stopping rules and clamps of the shared loop. One iteration is one
  /// sweep over all coordinates; max_task_error has no effect (CCD uses no
  /// linearization) and max_joint_step limits the whole sweep's change.
  StepControl step;

  /// True if every field is in range; otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Cyclic coordinate descent: "considers each joint one at a time,
/// sequentially from the outermost inward. At each joint, an angle is chosen
/// that best gets the end effector to the goal position" (Parent).
///
/// Order: coordinates from the last to the first (Model order is depth-first
/// with parents before children, so on a chain this is tip → base, Parent's
/// order; on a tree, children before their parents). Forward kinematics is
/// recomputed after each coordinate, so every choice sees the previous ones.
///
/// Per-coordinate optimum, exact (closed form) for the potential of these
/// goals — each is a sum of "vector matching" terms w ‖t − v‖² where v moves
/// rigidly with the coordinate's subtree:
///   * PositionGoal: point term, v = p_WS, t = target;
///   * OrientationGoal: two direction terms, the site's x and y axes;
///   * AxisGoal: one direction term, the site axis R_WS a_S;
///   * PositionOrientationGoal: a point term with weight w·w_p and the two
///     direction terms with w·w_o·c_dx² and w·w_o·c_dy².
/// Revolute coordinate, world axis a through o: with t', v' the components
/// perpendicular to a (of t − o, v − o for points), rotating by θ leaves
/// Σ w ‖t − R(θ)v‖² = const − 2 (A cos θ + B sin θ), A = Σ w t'·v',
/// B = Σ w a·(v' × t'), so θ* = atan2(B, A). Prismatic coordinate along a:
/// only point terms move, d* = Σ w a·(t − v) / Σ w.
/// Goals of other kinds (aiming, plane, composites) and regularizers are not
/// supported: the solve returns kInvalidInput.
///
/// Joint limits (SolveOptions::respect_limits): the new value of each
/// coordinate is kept in [l_i, u_i]. For a prismatic coordinate the cost is
/// a parabola in d, so clamping d* into the interval is the exact bounded
/// optimum (a unimodal function on an interval is minimized at the clamped
/// unconstrained minimizer). For a revolute one the cost ρ cos(θ − θ*) is
/// unimodal on the circle: the bounded optimum is θ* (or θ* ± 2π) when in
/// the interval, else the end of the interval nearer to θ* in angle — the
/// same clamping rule measured around the circle. Iterates never leave the
/// bounds. Name "ccd".
class CcdSolver final : public Solver {
 public:
  explicit CcdSolver(CcdOptions options = {}) : options_(std::move(options)) {}
  std::string name() const override { return "ccd"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const CcdOptions& options() const { return options_; }

 private:
  CcdOptions options_;
};

/// Solves by cyclic coordinate descent.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const CcdOptions& options);
std::unique_ptr<Solver> MakeSolver(const CcdOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_CCD_SOLVER_H_
