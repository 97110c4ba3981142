#include "solvers/analytic/two_link_analytic.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "constraints/position_goal.h"
#include "framework/internal/check.h"
#include "framework/internal/constants.h"
#include "framework/kinematics.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {
namespace {

using internal::kPi;

using internal::Invalid;
using internal::StrCat;

// Wraps an angle into (−π, π].
double Wrap(double angle) {
  double a = std::remainder(angle, 2.0 * kPi);
  if (a <= -kPi) a += 2.0 * kPi;
  return a;
}

// Planar geometry of a two-link model, read from FK at q = 0 (see the class
// comment). World points map to the plane by x = e1·(p − o0), y = e2·(p − o0).
struct PlanarGeometry {
  Eigen::Vector3d origin;  // o0, on joint 0's axis
  Eigen::Vector3d normal;  // a0, joint 0's world axis
  Eigen::Vector3d e1, e2;  // in-plane basis, e1 along link 1 at q = 0
  double l1 = 0.0, l2 = 0.0;
  double height = 0.0;     // a0·(p − o0) of the site, constant in q
  double beta2 = 0.0;      // absolute angle of link 2 at q = 0
  double sign1 = 1.0;      // a0·a1 = ±1
};

// True if `step` is `ancestor` or lies below it.
bool Below(const Model& model, int step, int ancestor) {
  for (int s = step; s >= 0; s = s == 0 ? -1 : model.parent(s)) {
    if (s == ancestor) return true;
  }
  return false;
}

// Reads the planar geometry, or explains in `why` why the problem is not a
// planar two-link arm with one position goal.
bool ReadGeometry(const Problem& problem, int* site, Eigen::Vector3d* target,
                  PlanarGeometry* g, std::string* why) {
  const Model& model = problem.model();
  if (model.nq() != 2) {
    *why = StrCat("two-link: the model must have 2 coordinates, got ",
                  model.nq());
    return false;
  }
  if (model.has_mimics()) {
    *why = StrCat("two-link: the model has mimic joints (e.g. '",
                  model.full_dof_joint(model.mimics()[0].joint),
                  "'); the closed form is for two independent joints");
    return false;
  }
  if (problem.goals().size() != 1) {
    *why = StrCat("two-link: the problem must have exactly one goal (a "
                  "PositionGoal), got ",
                  problem.goals().size());
    return false;
  }
  const auto* goal =
      dynamic_cast<const PositionGoal*>(problem.goals().front().get());
  if (goal == nullptr) {
    *why = "two-link: the goal must be a PositionGoal";
    return false;
  }
  const int s0 = model.dof_step(0), s1 = model.dof_step(1);
  if (model.kind(s0) != StepKind::kRevolute ||
      model.kind(s1) != StepKind::kRevolute) {
    *why = "two-link: both coordinates must be revolute";
    return false;
  }
  *site = goal->site();
  *target = goal->target();
  if (!Below(model, s1, s0) || !Below(model, model.site_step(*site), s1)) {
    *why = StrCat("two-link: coordinate 1 must move below coordinate 0 and "
                  "the goal's site \"",
                  goal->site_name(), "\" below both");
    return false;
  }
  Data data(model);
  ForwardKinematics(model, Eigen::Vector2d::Zero(), &data);
  const Eigen::Vector3d a0 = data.X_W(s0).linear() * model.axis(s0);
  const Eigen::Vector3d a1 = data.X_W(s1).linear() * model.axis(s1);
  const Eigen::Vector3d o0 = data.X_W(s0).translation();
  const Eigen::Vector3d o1 = data.X_W(s1).translation();
  const Eigen::Vector3d p = SitePosition(model, data, *site);
  if (a0.cross(a1).norm() > 1e-9) {
    *why = "two-link: the two joint axes must be parallel (a planar arm)";
    return false;
  }
  const auto in_plane = [&a0](const Eigen::Vector3d& v) -> Eigen::Vector3d {
    return v - a0.dot(v) * a0;
  };
  const Eigen::Vector3d link1 = in_plane(o1 - o0);
  const Eigen::Vector3d link2 = in_plane(p - o1);
  g->l1 = link1.norm();
  g->l2 = link2.norm();
  const double scale = std::max({1.0, (o1 - o0).norm(), (p - o1).norm()});
  if (g->l1 <= 1e-12 * scale || g->l2 <= 1e-12 * scale) {
    *why = StrCat("two-link: both links need a length across the axes, got ",
                  g->l1, " and ", g->l2);
    return false;
  }
  g->origin = o0;
  g->normal = a0;
  g->e1 = link1 / g->l1;
  g->e2 = a0.cross(g->e1);
  g->height = a0.dot(p - o0);
  g->beta2 = std::atan2(g->e2.dot(link2), g->e1.dot(link2));
  g->sign1 = a0.dot(a1) > 0.0 ? 1.0 : -1.0;
  return true;
}

// Model coordinates of a planar solution (θ1 absolute, θ2 relative):
// link 1's angle is q0 (zero along e1), link 2's is β2 + q0 + σ q1.
Eigen::VectorXd ToModel(const PlanarGeometry& g, const Eigen::Vector2d& a) {
  Eigen::VectorXd q(2);
  q[0] = Wrap(a[0]);
  q[1] = Wrap(g.sign1 * (a[1] - g.beta2));
  return q;
}

// Shifts each coordinate by a multiple of 2π into [lower, upper] if possible.
// Returns true if q ends inside the bounds.
bool ShiftIntoBounds(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                     Eigen::VectorXd* q) {
  bool inside = true;
  for (Eigen::Index i = 0; i < q->size(); ++i) {
    double& qi = (*q)[i];
    if (qi < lower[i] && std::isfinite(lower[i])) {
      qi += 2.0 * kPi * std::ceil((lower[i] - qi) / (2.0 * kPi));
    } else if (qi > upper[i] && std::isfinite(upper[i])) {
      qi -= 2.0 * kPi * std::ceil((qi - upper[i]) / (2.0 * kPi));
    }
    if (qi < lower[i] || qi > upper[i]) inside = false;
  }
  return inside;
}

}  // namespace

TwoLinkSolutions SolveTwoLinkPlanar(double l1, double l2,
                                    const Eigen::Vector2d& target,
                                    double tolerance) {
  if (!std::isfinite(l1) || !(l1 > 0.0)) {
    internal::ThrowInvalidArgument("SolveTwoLinkPlanar: l1 must be finite and "
                                   "> 0, got ",
                                   l1);
  }
  if (!std::isfinite(l2) || !(l2 > 0.0)) {
    internal::ThrowInvalidArgument("SolveTwoLinkPlanar: l2 must be finite and "
                                   "> 0, got ",
                                   l2);
  }
  if (!target.allFinite()) {
    internal::ThrowInvalidArgument("SolveTwoLinkPlanar: target must be "
                                   "finite, got (",
                                   target.x(), ", ", target.y(), ")");
  }
  if (!(tolerance >= 0.0) || !std::isfinite(tolerance)) {
    internal::ThrowInvalidArgument("SolveTwoLinkPlanar: tolerance must be "
                                   "finite and >= 0, got ",
                                   tolerance);
  }
  TwoLinkSolutions out;
  const double d = target.norm();
  out.distance = d;
  const double reach = l1 + l2;
  const double inner = std::abs(l1 - l2);
  const double slack = tolerance * reach;
  // Direction of the target; any direction will do when it sits on the base.
  const double heading = d > 0.0 ? std::atan2(target.y(), target.x()) : 0.0;
  if (d > reach + slack) {
    out.closest = Eigen::Vector2d(Wrap(heading), 0.0);
    out.residual = d - reach;
    return out;
  }
  if (d < inner - slack) {
    // Folded: the tip sits at |L1 − L2| along link 1 (L1 > L2) or against it.
    out.closest =
        Eigen::Vector2d(Wrap(l1 >= l2 ? heading : heading + kPi), kPi);
    out.residual = inner - d;
    return out;
  }
  out.reachable = true;
  // Law of cosines for the relative elbow angle; the clamp absorbs the
  // rounding of targets on the boundary.
  const double c2 = std::clamp((d * d - l1 * l1 - l2 * l2) / (2.0 * l1 * l2),
                               -1.0, 1.0);
  const double theta2 = std::acos(c2);
  for (int k = 0; k < 2; ++k) {
    const double t2 = k == 0 ? theta2 : -theta2;
    const double t1 =
        heading - std::atan2(l2 * std::sin(t2), l1 + l2 * std::cos(t2));
    out.solutions[k] = Eigen::Vector2d(Wrap(t1), t2);
  }
  out.num_solutions = (theta2 == 0.0 || theta2 == kPi) ? 1 : 2;
  out.closest = out.solutions[0];
  out.residual = 0.0;
  return out;
}

Eigen::Vector2d TwoLinkTip(double l1, double l2,
                           const Eigen::Vector2d& angles) {
  const double a = angles[0], b = angles[0] + angles[1];
  return Eigen::Vector2d(l1 * std::cos(a) + l2 * std::cos(b),
                         l1 * std::sin(a) + l2 * std::sin(b));
}

bool TwoLinkOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (!(reach_tolerance >= 0.0) || !std::isfinite(reach_tolerance)) {
    return Invalid(why,
                   "TwoLinkOptions::reach_tolerance must be finite and >= 0, "
                   "got ",
                   reach_tolerance);
  }
  return true;
}

Result TwoLinkAnalyticSolver::Solve(const Problem& problem,
                                    const Eigen::VectorXd& q0) const {
  internal::SolveScope scope(problem, q0, options_.common, name());
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options_.IsValid(&why)) return scope.Reject(why);
  int site = -1;
  Eigen::Vector3d target;
  PlanarGeometry g;
  if (!ReadGeometry(problem, &site, &target, &g, &why)) {
    return scope.Reject(why);
  }
  const Eigen::Vector3d rel = target - g.origin;
  const double off_plane = g.normal.dot(rel) - g.height;
  const Eigen::Vector2d planar(g.e1.dot(rel), g.e2.dot(rel));
  const TwoLinkSolutions solutions =
      SolveTwoLinkPlanar(g.l1, g.l2, planar, options_.reach_tolerance);
  const double plane_slack =
      options_.reach_tolerance * (g.l1 + g.l2) + 1e-12 * std::abs(g.height);
  const bool reachable =
      solutions.reachable && std::abs(off_plane) <= plane_slack;

  // Candidates in preference order.
  std::vector<Eigen::VectorXd> candidates;
  if (solutions.reachable) {
    Eigen::VectorXd positive = ToModel(g, solutions.solutions[0]);
    Eigen::VectorXd negative = ToModel(g, solutions.solutions[1]);
    // The model's relative angle may run opposite to the planar one (axes
    // antiparallel): prefer by the sign of the planar θ2.
    bool positive_first = options_.elbow != TwoLinkElbow::kNegative;
    if (options_.elbow == TwoLinkElbow::kClosestToStart) {
      positive_first = (positive - scope.start()).norm() <=
                       (negative - scope.start()).norm();
    }
    candidates.push_back(positive_first ? positive : negative);
    if (solutions.num_solutions == 2) {
      candidates.push_back(positive_first ? negative : positive);
    }
  } else {
    candidates.push_back(ToModel(g, solutions.closest));
  }
  const std::string what =
      reachable ? "law of cosines (Parent 5.3.1)"
                : StrCat("target out of reach (",
                         solutions.reachable ? "off the arm's plane by "
                                             : "planar distance to reach ",
                         solutions.reachable ? std::abs(off_plane)
                                             : solutions.residual,
                         "); closest configuration");
  for (Eigen::VectorXd& q : candidates) {
    if (ShiftIntoBounds(scope.lower(), scope.upper(), &q)) {
      return scope.Finish(q, reachable ? SolveStatus::kConverged
                                       : SolveStatus::kUnreachable,
                          what);
    }
  }
  // No analytic answer within the bounds: best effort by L-BFGS-B inside
  // them, from the preferred candidate clamped into the box.
  Eigen::VectorXd start = candidates.front();
  start = start.cwiseMax(scope.lower()).cwiseMin(scope.upper());
  LbfgsbOptions fallback;
  fallback.common = options_.common;
  const Result best = iklab::Solve(problem, start, fallback);
  Result result = scope.Finish(
      best.q,
      reachable ? SolveStatus::kLimitsInfeasible : SolveStatus::kUnreachable,
      StrCat(what, "; no analytic solution inside the bounds, L-BFGS-B best "
                   "effort (",
             SolveStatusName(best.status), ")"));
  result.iterations = best.iterations;
  result.function_evaluations = best.function_evaluations;
  result.jacobian_evaluations = best.jacobian_evaluations;
  return result;
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const TwoLinkOptions& options) {
  return TwoLinkAnalyticSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const TwoLinkOptions& options) {
  return std::make_unique<TwoLinkAnalyticSolver>(options);
}

}  // namespace iklab
