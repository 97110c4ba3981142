#include "solvers/analytic/tolani/tolani_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <typeinfo>
#include <vector>

#include "constraints/aiming_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/internal/warm_up.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {
namespace {
using internal::FormatVector;
using internal::Invalid;
using internal::StrCat;
}  // namespace

LimbIkOptions TolaniSolverIkDefaults() {
  LimbIkOptions options;
  options.up_axis = Eigen::Vector3d::UnitZ();
  return options;
}

bool TolaniLimbOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (!(geometry_tolerance > 0.0 && geometry_tolerance <= 1e-3)) {
    return Invalid(
        why,
        "TolaniLimbOptions::geometry_tolerance must be in (0, 1e-3], "
        "got ",
        geometry_tolerance);
  }
  if (ik.parameter_samples < 1) {
    return Invalid(why,
                   "TolaniLimbOptions::ik.parameter_samples must be >= 1, got ",
                   ik.parameter_samples);
  }
  if (ik.refine_iterations < 0) {
    return Invalid(why,
                   "TolaniLimbOptions::ik.refine_iterations must be >= 0, got ",
                   ik.refine_iterations);
  }
  if (!ik.swivel_axis.allFinite() || ik.swivel_axis.norm() < 1e-9) {
    return Invalid(why,
                   "TolaniLimbOptions::ik.swivel_axis must be finite and "
                   "non-zero, got ",
                   FormatVector(ik.swivel_axis));
  }
  if (!ik.up_axis.allFinite() || ik.up_axis.norm() < 1e-9) {
    return Invalid(why,
                   "TolaniLimbOptions::ik.up_axis must be finite and non-zero, "
                   "got ",
                   FormatVector(ik.up_axis));
  }
  if (!std::isfinite(ik.desired_swivel) || !std::isfinite(ik.desired_psi) ||
      !ik.desired_elbow.allFinite() || !ik.desired_wrist.allFinite() ||
      std::isinf(ik.aiming_theta4)) {
    return Invalid(why,
                   "TolaniLimbOptions::ik: desired_swivel, desired_psi, "
                   "desired_elbow, desired_wrist and aiming_theta4 must be "
                   "finite (aiming_theta4 may be NaN), got desired_swivel = ",
                   ik.desired_swivel, ", desired_psi = ", ik.desired_psi,
                   ", aiming_theta4 = ", ik.aiming_theta4);
  }
  if (!wrist_angles.allFinite()) {
    return Invalid(why, "TolaniLimbOptions::wrist_angles must be finite, got ",
                   FormatVector(wrist_angles));
  }
  return true;
}

// The arm and the task kind of one goal layout (model, goal types, site).
struct TolaniLimbSolver::Setup {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const SrsArm> arm;
  Task task = Task::kPose;
  // The goal layout it was read for: types in order, and the site.
  std::vector<const std::type_info*> types;
  int site = -1;
  // Partial orientation: which goal is the position, which the axis.
  int position_goal = 0;
  int axis_goal = 1;
};

namespace {

constexpr const char* kSupportedGoals =
    "tolani: supported goals are one PositionOrientationGoal, one "
    "PositionGoal, a PositionGoal and an AxisGoal on the same site, or one "
    "AimingGoal";

// Reads the task kind from the goals (once per layout).
bool ReadTask(const Problem& problem, TolaniLimbSolver::Task* task, int* site,
              int* position_goal, int* axis_goal) {
  using Task = TolaniLimbSolver::Task;
  const auto& goals = problem.goals();
  if (goals.size() == 1) {
    const Goal* goal = goals[0].get();
    if (const auto* g = dynamic_cast<const PositionOrientationGoal*>(goal)) {
      *task = Task::kPose;
      *site = g->site();
      return true;
    }
    if (const auto* g = dynamic_cast<const PositionGoal*>(goal)) {
      *task = Task::kPosition;
      *site = g->site();
      return true;
    }
    if (const auto* g = dynamic_cast<const AimingGoal*>(goal)) {
      *task = Task::kAiming;
      *site = g->site();
      return true;
    }
  } else if (goals.size() == 2) {
    for (int i = 0; i < 2; ++i) {
      const auto* p = dynamic_cast<const PositionGoal*>(goals[i].get());
      const auto* a = dynamic_cast<const AxisGoal*>(goals[1 - i].get());
      if (p != nullptr && a != nullptr && p->site() == a->site()) {
        *task = Task::kPartialOrientation;
        *site = p->site();
        *position_goal = i;
        *axis_goal = 1 - i;
        return true;
      }
    }
  }
  return false;
}

// The site of the goal layout (same types as when prepared).
int SiteOf(const Problem& problem, TolaniLimbSolver::Task task,
           int position_goal) {
  const Goal* goal = problem.goals()[position_goal].get();
  switch (task) {
    case TolaniLimbSolver::Task::kPose:
      return static_cast<const PositionOrientationGoal*>(goal)->site();
    case TolaniLimbSolver::Task::kAiming:
      return static_cast<const AimingGoal*>(goal)->site();
    default:
      return static_cast<const PositionGoal*>(goal)->site();
  }
}

}  // namespace

std::shared_ptr<const TolaniLimbSolver::Setup> TolaniLimbSolver::Prepared(
    const Problem& problem, std::string* why) const {
  const auto& goals = problem.goals();
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_ != nullptr && cached_->model == problem.shared_model() &&
      cached_->types.size() == goals.size()) {
    bool same = true;
    for (size_t i = 0; i < goals.size() && same; ++i) {
      same = *cached_->types[i] == typeid(*goals[i]);
    }
    if (same &&
        SiteOf(problem, cached_->task, cached_->position_goal) ==
            cached_->site &&
        (cached_->task != Task::kPartialOrientation ||
         static_cast<const AxisGoal*>(goals[cached_->axis_goal].get())
                 ->site() == cached_->site)) {
      return cached_;
    }
  }
  auto setup = std::make_shared<Setup>();
  setup->model = problem.shared_model();
  for (const auto& goal : goals) setup->types.push_back(&typeid(*goal));
  if (!ReadTask(problem, &setup->task, &setup->site, &setup->position_goal,
                &setup->axis_goal)) {
    *why = kSupportedGoals;
    return nullptr;
  }
  setup->arm = SrsArm::Create(problem.model(), setup->site, why,
                              options_.geometry_tolerance);
  if (setup->arm == nullptr) return nullptr;
  cached_ = setup;
  return cached_;
}

void TolaniLimbSolver::Prepare(const Problem& problem) const {
  first_solve_.Claim();
  if (!options_.IsValid(nullptr)) return;  // never throws: Solve says why
  std::string why;
  if (Prepared(problem, &why) != nullptr) {
    internal::WarmUp(*this, problem);  // a closed form: cheap
  }
}

namespace {

// The limb IK options in the limb frame L (the solver's options give the
// directions and points in the arm's base frame B).
LimbIkOptions LimbFrameOptions(const TolaniLimbOptions& options,
                               const Eigen::Isometry3d& X_BL) {
  const Eigen::Matrix3d R_LB = X_BL.linear().transpose();
  const Eigen::Isometry3d X_LB = X_BL.inverse(Eigen::Isometry);
  LimbIkOptions ik_options = options.ik;
  ik_options.respect_limits = options.common.respect_limits;
  ik_options.swivel_axis = R_LB * options.ik.swivel_axis;
  ik_options.up_axis = R_LB * options.ik.up_axis;
  ik_options.desired_elbow = X_LB * options.ik.desired_elbow;
  ik_options.desired_wrist = X_LB * options.ik.desired_wrist;
  return ik_options;
}

// The fixed wrist angles of position-only and aiming goals, per
// options.wrist.
Eigen::Vector3d FixedWristAngles(const TolaniLimbOptions& options,
                                 const Model& model, const SrsArm& arm,
                                 const Vector7d& arm_lower,
                                 const Vector7d& arm_upper,
                                 const Vector7d& arm_start,
                                 bool respect_limits) {
  Eigen::Vector3d wrist = options.wrist_angles;
  if (options.wrist == TolaniLimbOptions::WristAngles::kMidLimits) {
    for (int n = 0; n < 3; ++n) {
      const double lo = model.lower()[arm.coordinate(4 + n)];
      const double hi = model.upper()[arm.coordinate(4 + n)];
      wrist[n] = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * (lo + hi) : 0.0;
      if (respect_limits) {
        wrist[n] = std::clamp(wrist[n], arm_lower[4 + n], arm_upper[4 + n]);
      }
    }
  } else if (options.wrist == TolaniLimbOptions::WristAngles::kStart) {
    wrist = arm_start.tail<3>();
  }
  return wrist;
}

// The analytic solution of the task in the limb frame (X_LW maps the world
// into it); for a pose goal *G is the goal pose in that frame.
LimbSolution SolveLimbTask(TolaniLimbSolver::Task task, const Problem& problem,
                           int position_goal, int axis_goal,
                           const TolaniLimbIk& ik,
                           const Eigen::Isometry3d& X_LW,
                           const Eigen::Isometry3d& E,
                           const Eigen::Vector3d& wrist,
                           const LimbIkOptions& ik_options,
                           Eigen::Isometry3d* G) {
  using Task = TolaniLimbSolver::Task;
  const auto& goals = problem.goals();
  const Goal* first = goals[position_goal].get();
  LimbSolution s;
  switch (task) {
    case Task::kPose:
      *G = X_LW * static_cast<const PositionOrientationGoal*>(first)->target();
      s = ik.SolvePose(*G, E, ik_options);
      break;
    case Task::kPosition:
      s = ik.SolvePosition(
          X_LW * static_cast<const PositionGoal*>(first)->target(),
          E.translation(), wrist, ik_options);
      break;
    case Task::kPartialOrientation: {
      const auto* axis = static_cast<const AxisGoal*>(goals[axis_goal].get());
      s = ik.SolvePartialOrientation(
          X_LW * static_cast<const PositionGoal*>(first)->target(), E,
          axis->axis(), X_LW.linear() * axis->target(), ik_options);
      break;
    }
    case Task::kAiming: {
      const auto* aim = static_cast<const AimingGoal*>(first);
      s = ik.SolveAiming(X_LW * aim->target(), E, aim->direction(), wrist,
                         ik_options);
      break;
    }
  }
  return s;
}

// The whole pose: the arm's coordinates from the limb solution, the others
// from the start.
Eigen::VectorXd FullPose(const Eigen::VectorXd& start, const SrsArm& arm,
                         const Vector7d& theta) {
  Eigen::VectorXd q = start;
  for (int k = 0; k < 7; ++k) q[arm.coordinate(k)] = theta[k];
  return q;
}

// What a closed-form verdict other than kSolved proves about the problem
// (solver.h: a status claims no more than its evidence). `reach_decided`:
// the closed form decided reach over every pose of the limb within the box,
// so kUnreachable holds; `limits_decided`: it examined every exact solution
// against the limits, so kLimitsInfeasible holds. Otherwise the verdict is
// about a reduced problem and the pose goes to Finish as a local minimum,
// which decides on the evidence at that pose (solve_scope.h rule 3); the
// message says which reduced problem.
SolveStatus VerdictStatus(LimbIkStatus verdict, bool reach_decided,
                          bool limits_decided, const char* reduced,
                          std::string* message) {
  if (verdict == LimbIkStatus::kUnreachable && reach_decided) {
    return SolveStatus::kUnreachable;
  }
  if (verdict == LimbIkStatus::kLimitsInfeasible && limits_decided) {
    return SolveStatus::kLimitsInfeasible;
  }
  *message = StrCat("reduced problem (", reduced, "): ", *message);
  return SolveStatus::kLocalMinimum;
}

// A bounded optimization of the whole problem from the best analytic effort
// q (status and message that effort's); the better of the two is returned.
Result WholeProblemFallback(const Problem& problem, const SrsArm& arm,
                            const Eigen::VectorXd& q, SolveStatus status,
                            const std::string& message,
                            const SolveOptions& common,
                            internal::SolveScope* scope) {
  const Model& model = problem.model();
  LbfgsbOptions fallback;
  fallback.common = common;
  // Only the arm moves: a limb of a bigger figure keeps the other
  // coordinates at the start pose (bounds pinned there).
  Problem arm_problem = problem;
  if (model.nq() > 7) {
    std::vector<bool> in_arm(model.nq(), false);
    for (int k = 0; k < 7; ++k) in_arm[arm.coordinate(k)] = true;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    for (int i = 0; i < model.nq(); ++i) {
      if (!in_arm[i]) {
        arm_problem.mutable_bounds()->Set(i, scope->start()[i],
                                          scope->start()[i]);
      } else if (!fallback.common.respect_limits) {
        arm_problem.mutable_bounds()->Set(i, -kInf, kInf);
      }
    }
    fallback.common.respect_limits = true;
  }
  const Result best = iklab::Solve(arm_problem, q, fallback);
  const bool better = best.final_potential <
                      problem.EvaluatePotential(q, scope->workspace(), nullptr);
  Result result =
      scope->Finish(better ? best.q : q, status,
                    StrCat(message, "; whole-problem L-BFGS-B fallback: ",
                           SolveStatusName(best.status)));
  result.iterations = best.iterations;
  result.function_evaluations = best.function_evaluations;
  result.jacobian_evaluations = best.jacobian_evaluations;
  return result;
}

}  // namespace

Result TolaniLimbSolver::Solve(const Problem& problem,
                               const Eigen::VectorXd& q0) const {
  if (first_solve_.Claim()) Prepare(problem);  // outside the clock
  internal::SolveScope scope(problem, q0, options_.common, name());
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options_.IsValid(&why)) return scope.Reject(why);
  const std::shared_ptr<const Setup> setup = Prepared(problem, &why);
  if (setup == nullptr) return scope.Reject(why);
  const SrsArm& arm = *setup->arm;
  const Eigen::VectorXd& lower = scope.lower();
  const Eigen::VectorXd& upper = scope.upper();
  // The limb frame in the world: fixed, or (a limb of a figure) from the
  // start pose of the coordinates before the arm.
  Eigen::Isometry3d X_WB = arm.X_WB();
  if (arm.base_moves()) {
    ProblemWorkspace* ws = scope.workspace();
    ForwardKinematics(problem.model(), scope.start(), &ws->mutable_data());
    X_WB = ws->data().X_W(arm.base_step());
  }
  const Eigen::Isometry3d X_WL = X_WB * arm.X_BL();
  const Eigen::Isometry3d X_LW = X_WL.inverse(Eigen::Isometry);
  // The arm was read for the goals' site: E is that site in the wrist frame.
  const Eigen::Isometry3d E = arm.X_WristSite();

  TolaniLimbIk ik = arm.ik();
  const LimbIkOptions ik_options = LimbFrameOptions(options_, arm.X_BL());
  Vector7d arm_lower, arm_upper, arm_start;
  for (int k = 0; k < 7; ++k) {
    arm_lower[k] = lower[arm.coordinate(k)];
    arm_upper[k] = upper[arm.coordinate(k)];
    arm_start[k] = scope.start()[arm.coordinate(k)];
  }
  if (ik_options.respect_limits) ik.set_limits(arm_lower, arm_upper);
  const Eigen::Vector3d wrist =
      FixedWristAngles(options_, problem.model(), arm, arm_lower, arm_upper,
                       arm_start, ik_options.respect_limits);
  Eigen::Isometry3d G = Eigen::Isometry3d::Identity();
  LimbSolution s =
      SolveLimbTask(setup->task, problem, setup->position_goal,
                    setup->axis_goal, ik, X_LW, E, wrist, ik_options, &G);
  Eigen::VectorXd q = FullPose(scope.start(), arm, s.q);
  if (s.status == LimbIkStatus::kSolved) {
    return scope.Finish(q, SolveStatus::kConverged, std::move(s.message));
  }
  // Which verdicts hold for the whole problem. Eq. 5 decides the reach of a
  // pose goal's wrist, and of a position goal on the wrist centre (which
  // the held wrist angles do not move); Eq. 10 that of a partial
  // orientation goal over every ψ. Only a pose goal's swivel analysis
  // examines every exact solution against the limits. Position goals on
  // another site and aiming goals hold the wrist angles, and a limb whose
  // base moves is solved with the base held at the start pose: there the
  // verdict is the reduced problem's.
  const bool whole_limb = !arm.base_moves();
  const bool wrist_centre = E.translation().norm() <= 1e-12;
  const bool reach_decided =
      whole_limb && (setup->task == Task::kPose ||
                     setup->task == Task::kPartialOrientation ||
                     (setup->task == Task::kPosition && wrist_centre));
  const bool limits_decided = whole_limb && setup->task == Task::kPose;
  const char* reduced = !whole_limb ? "the limb's base held at the start pose"
                        : setup->task == Task::kPartialOrientation
                            ? "a scan of psi"
                            : "the wrist angles held";
  const SolveStatus status = VerdictStatus(s.status, reach_decided,
                                           limits_decided, reduced, &s.message);
  q = q.cwiseMax(lower).cwiseMin(upper);
  if (!options_.fallback) return scope.Finish(q, status, s.message);
  if (setup->task == Task::kPose) {
    if (!ik_options.respect_limits) {
      // Out of reach without limits: the analytic answer (stretched toward
      // the goal, the goal's orientation) is already the closest.
      return scope.Finish(q, status, s.message);
    }
    // Table 3: the reduced problem over (φ, θ5, θ6, θ7).
    LimbSolution r = ik.ApproximatePose(G, E, ik_options);
    if (r.reduced) {
      // Its verdicts are SolvePose's (Eq. 5 and the swivel analysis): the
      // wrist goal out of reach, or no exact solution within the limits.
      const SolveStatus reduced_status =
          r.status == LimbIkStatus::kSolved
              ? SolveStatus::kConverged
              : VerdictStatus(r.status, reach_decided, limits_decided,
                              reduced, &r.message);
      Result result = scope.Finish(FullPose(scope.start(), arm, r.q),
                                   reduced_status, r.message);
      result.iterations = r.iterations;
      return result;
    }
  }
  // Table 3's reduced problem does not apply (position-only, partial
  // orientation and aiming goals, or no θ4 / shoulder swivel within the
  // limits): a bounded optimization of the whole problem from the best
  // analytic effort.
  return WholeProblemFallback(problem, arm, q, status, s.message,
                              options_.common, &scope);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const TolaniLimbOptions& options) {
  return TolaniLimbSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const TolaniLimbOptions& options) {
  return std::make_unique<TolaniLimbSolver>(options);
}

}  // namespace iklab
