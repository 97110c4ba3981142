#include "solvers/internal/solve_scope.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <Eigen/QR>

#include "constraints/reach_certificate.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::StrCat;

namespace {

// Index of the first non-finite entry of v, or −1.
Eigen::Index FirstNonFinite(const Eigen::VectorXd& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return i;
  }
  return -1;
}

}  // namespace

namespace internal {

double PhysicalMemoryBytes() {
  // Read once: sysconf(_SC_PHYS_PAGES) is a system call (sysinfo), a
  // microsecond that solvers checking their workspace size would otherwise
  // pay on every solve.
  static const double bytes = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 0.0;
    return static_cast<double>(pages) * static_cast<double>(page);
  }();
  return bytes;
}

SolveScope::SolveScope(const Problem& problem, const Eigen::VectorXd& q0,
                       const SolveOptions& options, std::string solver_name,
                       bool honours_constraints)
    : problem_(problem),
      options_(options),
      start_time_(std::chrono::steady_clock::now()) {
  result_.solver = std::move(solver_name);
  result_.q = q0;
  const int nq = problem.nq();
  if (nq == 0) {
    // Nothing to solve, and several back ends (L-BFGS-B, KDL) fail on empty
    // vectors: say so instead.
    result_.q.resize(0);
    Fail("the problem has no coordinates (model nq = 0: the tip is the base, "
         "or only fixed joints lie between them); nothing to solve");
    return;
  }
  if (q0.size() != nq) {
    result_.q.resize(0);
    Fail(StrCat("q0: expected ", nq, " coordinates (model nq), got ",
                q0.size()));
    return;
  }
  if (const Eigen::Index i = FirstNonFinite(q0); i >= 0) {
    result_.q.resize(0);
    Fail(StrCat("q0: coordinate ", i, " (", problem.model().dof_name(i),
                ") is not finite (", q0[i], ")"));
    return;
  }
  std::string why;
  if (!options.IsValid(&why)) {
    Fail(why);
    return;
  }
  if (problem.has_constraints() && !honours_constraints) {
    Fail(StrCat(result_.solver, " cannot honour hard constraints; the problem "
                "has ", problem.num_equality_constraints(), " equality and ",
                problem.num_inequality_constraints(),
                " inequality constraint rows. Use a constrained-NLP solver "
                "(ipopt, slsqp) or pose them as penalties with "
                "Problem::WithConstraintsAsGoals()"));
    return;
  }
  const Bounds& bounds = problem.bounds();
  if (!bounds.IsValid(&why)) {
    Fail(why);
    return;
  }
  if (bounds.size() != nq) {
    Fail(StrCat("bounds: expected ", nq, " coordinates, got ", bounds.size()));
    return;
  }
  if (options.respect_limits) {
    lower_ = &bounds.lower;
    upper_ = &bounds.upper;
  } else {
    unbounded_lower_ = Eigen::VectorXd::Constant(nq, -kInfinity);
    unbounded_upper_ = Eigen::VectorXd::Constant(nq, kInfinity);
    lower_ = &unbounded_lower_;
    upper_ = &unbounded_upper_;
  }
  start_ = q0.cwiseMax(*lower_).cwiseMin(*upper_);
  result_.q = start_;
  errors_.reserve(problem.goals().size());
  constraint_errors_.reserve(problem.equality_constraints().size() +
                             problem.inequality_constraints().size());
  result_.message = "Solving.";
  if (problem.num_residuals() == 0 && !problem.has_constraints()) {
    // No goal and no constraint: the start pose is the answer. Deciding it
    // here keeps every back end away from 0-row Jacobians, which some
    // factorizations (damped least squares' eigen-solver) do not survive.
    result_ = Finish(start_, SolveStatus::kConverged,
                     "nothing to solve: the problem has no goals and no "
                     "constraints; the start pose is returned");
    ok_ = false;
  }
}

void SolveScope::SetInitialPotential(double potential) {
  result_.initial_potential = potential;
  initial_potential_set_ = true;
}

void SolveScope::SetFinalEvaluation(const Eigen::VectorXd* q,
                                    double potential,
                                    const std::vector<GoalError>& goal_errors) {
  known_q_ = q;
  known_potential_ = potential;
  result_.goal_errors = goal_errors;
}

Result SolveScope::Reject(std::string message) {
  Fail(std::move(message));
  return std::move(result_);
}

bool SolveScope::Fail(std::string message) {
  ok_ = false;
  result_.status = SolveStatus::kInvalidInput;
  result_.message = std::move(message);
  result_.wall_time_seconds = Elapsed();
  return false;
}

double SolveScope::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_time_)
      .count();
}

bool SolveScope::OutOfTime() const {
  return options_.time_budget_seconds > 0.0 &&
         Elapsed() >= options_.time_budget_seconds;
}

bool SolveScope::WithinTolerance(const std::vector<GoalError>& errors) const {
  for (const GoalError& e : errors) {
    // Written so that a NaN error is never "within tolerance".
    if (!(e.position <= options_.position_tolerance) ||
        !(e.angle <= options_.angle_tolerance) ||
        !(e.aim <= options_.angle_tolerance)) {
      return false;
    }
  }
  return true;
}

bool SolveScope::WithinToleranceAt(const Eigen::VectorXd& q) {
  problem_.GoalErrors(q, workspace(), &errors_);
  if (!WithinTolerance(errors_)) return false;
  if (!problem_.has_constraints()) return true;
  problem_.ConstraintErrors(q, workspace(), &constraint_errors_);
  return WithinTolerance(constraint_errors_);
}

void SolveScope::Trace(int iteration, const Eigen::VectorXd& q,
                       double potential) {
  if (!options_.record_trace) return;
  problem_.GoalErrors(q, workspace(), &errors_);
  const ErrorSummary summary = Summarize(errors_);
  IterationRecord record;
  record.iteration = iteration;
  record.potential = potential;
  record.max_position_error = summary.max_position;
  record.max_angle_error = summary.max_angle;
  record.q = q;
  result_.trace.push_back(std::move(record));
}

double SolveScope::RelativeProjectedGradient(const Eigen::VectorXd& q) {
  Eigen::VectorXd residuals(problem_.num_residuals());
  Eigen::MatrixXd jacobian(problem_.num_residuals(), problem_.nq());
  Eigen::Ref<Eigen::MatrixXd> jacobian_ref(jacobian);
  problem_.EvaluateResiduals(q, workspace(), residuals, &jacobian_ref);
  const Eigen::VectorXd gradient = jacobian.transpose() * residuals;
  const double scale = jacobian.norm() * residuals.norm();
  if (!(scale > 0.0)) return 0.0;
  const Eigen::VectorXd projected =
      (q - gradient).cwiseMax(*lower_).cwiseMin(*upper_) - q;
  return projected.lpNorm<Eigen::Infinity>() / scale;
}

Eigen::MatrixXd SolveScope::ActiveConstraintGradients() {
  const int equalities = problem_.num_equality_constraints();
  const int inequalities = problem_.num_inequality_constraints();
  Eigen::VectorXd h(equalities), c(inequalities);
  Eigen::MatrixXd A(equalities, problem_.nq());
  Eigen::MatrixXd C(inequalities, problem_.nq());
  Eigen::Ref<Eigen::MatrixXd> A_ref(A), C_ref(C);
  problem_.EvaluateConstraints(result_.q, workspace(), h, c, &A_ref, &C_ref);
  int rows = equalities;
  for (int i = 0; i < inequalities; ++i) {
    rows += c[i] >= -options_.position_tolerance;
  }
  Eigen::MatrixXd N(problem_.nq(), rows);
  N.leftCols(equalities) = A.transpose();
  for (int i = 0, col = equalities; i < inequalities; ++i) {
    if (c[i] >= -options_.position_tolerance) {
      N.col(col++) = C.row(i).transpose();
    }
  }
  return N;
}

void SolveScope::BlockedGradient(const Eigen::VectorXd& gradient,
                                 const Eigen::MatrixXd& active,
                                 double* free_squared,
                                 double* unbalanced_squared) const {
  const Bounds& bounds = problem_.bounds();
  const Eigen::VectorXd& q = result_.q;
  // Least-squares residual of g over the columns of M.
  const auto residual = [&](const Eigen::MatrixXd& M) {
    if (M.cols() == 0) return gradient.squaredNorm();
    const Eigen::VectorXd x = M.colPivHouseholderQr().solve(gradient);
    return (gradient - M * x).squaredNorm();
  };
  *free_squared = residual(active);
  // Bound i blocks when its multiplier μ_i in g ≈ Nᵀλ + Σ μ_i e_i pushes
  // out of the box (μ_i > 0 at a lower bound, < 0 at an upper one: −g
  // points out). Without constraints μ_i = g_i; with them the sign comes
  // from a first fit over every bound at hand, and the wrong-signed ones
  // are dropped.
  std::vector<int> at_bound;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    if (q[i] <= bounds.lower[i] || q[i] >= bounds.upper[i]) {
      at_bound.push_back(static_cast<int>(i));
    }
  }
  const auto with_bounds = [&](const std::vector<int>& coordinates) {
    const Eigen::Index k = static_cast<Eigen::Index>(coordinates.size());
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(q.size(), active.cols() + k);
    M.leftCols(active.cols()) = active;
    for (std::size_t j = 0; j < coordinates.size(); ++j) {
      M(coordinates[j], active.cols() + static_cast<Eigen::Index>(j)) = 1.0;
    }
    return M;
  };
  std::vector<int> blocking;
  if (!at_bound.empty()) {
    const Eigen::MatrixXd M = with_bounds(at_bound);
    const Eigen::VectorXd x = M.colPivHouseholderQr().solve(gradient);
    for (std::size_t j = 0; j < at_bound.size(); ++j) {
      const int i = at_bound[j];
      const double mu = x[active.cols() + static_cast<Eigen::Index>(j)];
      if ((q[i] <= bounds.lower[i] && mu > 0.0) ||
          (q[i] >= bounds.upper[i] && mu < 0.0)) {
        blocking.push_back(i);
      }
    }
  }
  *unbalanced_squared =
      blocking.empty() ? *free_squared : residual(with_bounds(blocking));
}

void SolveScope::ClassifyStationary(SolveStatus* status,
                                    std::string* message) {
  std::vector<GoalError> all = result_.goal_errors;
  all.insert(all.end(), result_.constraint_errors.begin(),
             result_.constraint_errors.end());
  const ErrorSummary summary = Summarize(all);
  const std::string errors =
      StrCat("max position error ", summary.max_position,
             ", max angle error ", summary.max_angle);
  // a. Evidence that the goal is out of reach, whatever the point.
  if (const std::optional<std::string> evidence = OutOfReachCertificate(
          problem_, *lower_, *upper_, options_.position_tolerance)) {
    *status = SolveStatus::kUnreachable;
    *message = StrCat("stationary with ", errors, ": goal out of reach (",
                      *evidence, "); ", *message);
    return;
  }
  // b. Limits or a local minimum? The gradient of the potential at q
  // decides — of the penalty form when there are hard constraints.
  ProblemWorkspace* ws = workspace();
  Eigen::VectorXd residuals(problem_.num_residuals());
  Eigen::MatrixXd jacobian(problem_.num_residuals(), problem_.nq());
  Eigen::Ref<Eigen::MatrixXd> jacobian_ref(jacobian);
  problem_.EvaluateResiduals(result_.q, ws, residuals, &jacobian_ref);
  if (problem_.has_constraints()) {
    const Problem penalty = problem_.WithConstraintsAsGoals();
    ProblemWorkspace penalty_ws(penalty);
    residuals.resize(penalty.num_residuals());
    jacobian.resize(penalty.num_residuals(), penalty.nq());
    Eigen::Ref<Eigen::MatrixXd> penalty_jacobian(jacobian);
    penalty.EvaluateResiduals(result_.q, &penalty_ws, residuals,
                              &penalty_jacobian);
  }
  const Eigen::VectorXd gradient = jacobian.transpose() * residuals;
  // The part of g that no active constraint balances, ‖g − Nᵀλ‖ (N the
  // active constraints' Jacobian, λ least squares), and the part that
  // neither they nor the blocking bounds balance (BlockedGradient).
  Eigen::MatrixXd active(problem_.nq(), 0);
  if (problem_.has_constraints()) active = ActiveConstraintGradients();
  double free_squared = 0.0;
  double unbalanced_squared = 0.0;
  if (options_.respect_limits) {
    BlockedGradient(gradient, active, &free_squared, &unbalanced_squared);
  }
  const double blocked_squared =
      std::max(0.0, free_squared - unbalanced_squared);
  const double blocked = std::sqrt(blocked_squared);
  const double scale = jacobian.norm() * residuals.norm();
  const bool blocks = blocked_squared > 0.0 &&
                      blocked_squared >= 0.5 * free_squared &&
                      blocked >= kBlockedGradientRatio * scale;
  if (blocks) {
    *status = SolveStatus::kLimitsInfeasible;
    *message = StrCat("stationary within the bounds with ", errors,
                      ": joint limits block the descent here (blocked "
                      "gradient ",
                      blocked, " of ", std::sqrt(free_squared),
                      active.cols() > 0
                          ? StrCat(" left by ", active.cols(),
                                   " active constraint rows")
                          : std::string(),
                      "); ", *message);
  } else {
    // c. Nothing shows the goal out of reach: a fact about this point only.
    *status = SolveStatus::kLocalMinimum;
    *message = StrCat("stopped with ", errors,
                      " at a local minimum or stall, not a solution "
                      "(nothing shows the goal out of reach: another start "
                      "may reach it); best effort returned; ",
                      *message);
  }
}

std::string SolveScope::OutsideLimitsMessage(bool goals_met,
                                             const std::string& stop) const {
  const Bounds& bounds = problem_.bounds();
  const Eigen::VectorXd& q = result_.q;
  int outside = 0;
  int first = -1;
  for (int i = 0; i < q.size(); ++i) {
    if (q[i] < bounds.lower[i] || q[i] > bounds.upper[i]) {
      if (first < 0) first = i;
      ++outside;
    }
  }
  std::string where;
  if (first >= 0) {
    where = StrCat(": ", problem_.model().dof_name(first), " = ", q[first],
                   " outside [", bounds.lower[first], ", ",
                   bounds.upper[first], "]");
    if (outside > 1) where += StrCat(" and ", outside - 1, " more");
  }
  return StrCat("ended outside the joint limits", where, " with ",
                goals_met ? "every goal within tolerance"
                          : "goals above tolerance",
                " (solver stop: ", stop,
                ")");
}

Result SolveScope::Finish(const Eigen::VectorXd& q, SolveStatus status,
                          std::string message) {
  if (!ok_) return std::move(result_);
  if (q.size() != problem_.nq() || FirstNonFinite(q) >= 0) {
    result_.q = start_;
    status = SolveStatus::kNumericalFailure;
    message = "the solver produced a non-finite pose (" + message +
              "); returning the start pose";
  } else {
    result_.q = q;
  }
  if (!initial_potential_set_) {
    SetInitialPotential(
        problem_.EvaluatePotential(start_, workspace(), nullptr));
  }
  const bool known = known_q_ != nullptr && !problem_.has_constraints() &&
                     *known_q_ == result_.q;
  if (known) {
    result_.final_potential = known_potential_;  // goal_errors set too
  } else {
    // Residuals at the final pose (its potential); the goal errors read the
    // FK this evaluation leaves in the workspace.
    ProblemWorkspace* ws = workspace();
    Eigen::VectorXd residuals(problem_.num_residuals());
    problem_.EvaluateResiduals(result_.q, ws, residuals, nullptr);
    result_.final_potential = 0.5 * residuals.squaredNorm();
    problem_.GoalErrorsFromWorkspace(result_.q, *ws, &result_.goal_errors);
  }
  if (!std::isfinite(result_.final_potential)) {
    // Rule 6: nothing about a pose is known from an overflowed residual.
    const ErrorSummary summary = Summarize(result_.goal_errors);
    result_.status = SolveStatus::kNumericalFailure;
    result_.message = StrCat(
        "the residual overflows double precision: 1/2 |R|^2 = ",
        result_.final_potential, " at the solver's pose (max position error ",
        summary.max_position, ", max angle error ", summary.max_angle,
        "); a target beyond ~1e154 length units from the model cannot be "
        "solved in double precision: bring the targets to the model's scale "
        "(solver stop: ",
        SolveStatusName(status), ": ", message, ")");
    if (options_.respect_limits && !problem_.bounds().Contains(result_.q)) {
      // Never a pose outside the limits: the start pose, with its errors.
      result_.q = start_;
      ProblemWorkspace* ws = workspace();
      Eigen::VectorXd residuals(problem_.num_residuals());
      problem_.EvaluateResiduals(result_.q, ws, residuals, nullptr);
      result_.final_potential = 0.5 * residuals.squaredNorm();
      problem_.GoalErrorsFromWorkspace(result_.q, *ws, &result_.goal_errors);
      result_.message += "; it left the bounds, the start pose is returned";
    }
    result_.wall_time_seconds = Elapsed();
    return std::move(result_);
  }
  bool within = WithinTolerance(result_.goal_errors);
  if (problem_.has_constraints()) {
    problem_.ConstraintErrors(result_.q, workspace(),
                              &result_.constraint_errors);
    within = within && WithinTolerance(result_.constraint_errors);
  }

  const bool inside = !options_.respect_limits ||
                      problem_.bounds().Contains(result_.q);
  if (within && inside) {
    if (status != SolveStatus::kConverged) {
      message = std::string("every goal is within tolerance (solver stop: ") +
                SolveStatusName(status) + ": " + message + ")";
    }
    status = SolveStatus::kConverged;
  } else if (!inside) {
    // A solver that failed keeps its failure; the limits are a detail of it.
    if (status != SolveStatus::kNumericalFailure) {
      status = SolveStatus::kOutsideLimits;
    }
    message = OutsideLimitsMessage(within, message);
  } else if (status == SolveStatus::kConverged ||
             status == SolveStatus::kLocalMinimum) {
    ClassifyStationary(&status, &message);
  }
  result_.status = status;
  result_.message = std::move(message);
  result_.wall_time_seconds = Elapsed();
  return std::move(result_);
}

}  // namespace internal
}  // namespace iklab
