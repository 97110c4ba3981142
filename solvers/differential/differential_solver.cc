#include "solvers/differential/differential_solver.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "framework/internal/check.h"
#include "solvers/differential/internal/differential_loop.h"
#include "solvers/internal/solve_scope.h"

namespace iklab {

using internal::Invalid;

bool StepControl::IsValid(std::string* why) const {
  if (std::isnan(max_task_error)) {
    return Invalid(why, "StepControl::max_task_error must not be NaN, got NaN");
  }
  if (std::isnan(max_joint_step)) {
    return Invalid(why, "StepControl::max_joint_step must not be NaN, got NaN");
  }
  if (!(step_tolerance >= 0.0) || !std::isfinite(step_tolerance)) {
    return Invalid(why,
                   "StepControl::step_tolerance must be finite and >= 0, got ",
                   step_tolerance);
  }
  if (stall_iterations < 1) {
    return Invalid(why, "StepControl::stall_iterations must be >= 1, got ",
                   stall_iterations);
  }
  return true;
}

bool DifferentialMethod::AcceptStep(double /*potential*/,
                                    double /*trial_potential*/) {
  return true;
}

namespace internal {
namespace {

// One evaluated iterate: FK workspace, residual, task Jacobian, potential.
struct Iterate {
  explicit Iterate(const Problem& problem)
      : workspace(problem),
        q(problem.nq()),
        R(problem.num_residuals()),
        J(problem.num_residuals(), problem.nq()) {}

  ProblemWorkspace workspace;
  Eigen::VectorXd q;
  Eigen::VectorXd R;
  Eigen::MatrixXd J;
  double potential = 0.0;
};

// Evaluates R(q) and, if asked, J = −∂R/∂q at it.q. Allocation-free.
void Evaluate(const Problem& problem, bool with_jacobian, Iterate* it) {
  if (with_jacobian) {
    Eigen::Ref<Eigen::MatrixXd> jacobian(it->J);
    problem.EvaluateResiduals(it->q, &it->workspace, it->R, &jacobian);
    it->J *= -1.0;  // task Jacobian: J = −∂R/∂q
  } else {
    problem.EvaluateResiduals(it->q, &it->workspace, it->R, nullptr);
  }
  it->potential = 0.5 * it->R.squaredNorm();
}

// Goal errors at the FK state of `it` (no extra FK run). Allocation-free.
void GoalErrorsAt(const Problem& problem, const Iterate& it,
                  std::vector<GoalError>* errors) {
  const auto& goals = problem.goals();
  for (std::size_t i = 0; i < goals.size(); ++i) {
    (*errors)[i] = goals[i]->Error(problem.model(), it.workspace.data());
  }
}

void AppendTrace(int iteration, const Iterate& it,
                 const std::vector<GoalError>& errors,
                 const DifferentialMethod& method, Result* result) {
  const ErrorSummary summary = Summarize(errors);
  IterationRecord record;
  record.iteration = iteration;
  record.potential = it.potential;
  record.max_position_error = summary.max_position;
  record.max_angle_error = summary.max_angle;
  record.q = it.q;
  record.condition_number = method.condition_number();
  record.damping = method.damping();
  result->trace.push_back(std::move(record));
}

}  // namespace

namespace {

// One iteration's joint step from the task error at `current`: V = R (scaled
// down to max_task_error), the method's Δq, its finiteness, the step clamp
// max_joint_step, and the stationarity test |Δq|_inf ≤ step_tolerance.
enum class StepOutcome { kStep, kFailed, kStationary };

StepOutcome JointStep(const Problem& problem, const Iterate& current,
                      const StepControl& control, const Bounds* bounds,
                      int iteration, DifferentialMethod* method,
                      Eigen::VectorXd* V, Eigen::VectorXd* dq,
                      std::ostringstream* message) {
  *V = current.R;
  if (control.max_task_error > 0.0) {
    const double norm = V->norm();
    if (norm > control.max_task_error) *V *= control.max_task_error / norm;
  }
  const Linearization lin{problem, current.workspace, current.q, *V,
                          current.J, bounds};
  std::string why;
  if (!method->ComputeStep(lin, dq, &why)) {
    *message << "Iteration " << iteration << ": " << why;
    return StepOutcome::kFailed;
  }
  if (!dq->allFinite()) {
    *message << "Iteration " << iteration
             << ": the step has a NaN or infinite entry.";
    return StepOutcome::kFailed;
  }
  double step = dq->lpNorm<Eigen::Infinity>();
  if (control.max_joint_step > 0.0 && step > control.max_joint_step) {
    *dq *= control.max_joint_step / step;
    step = control.max_joint_step;
  }
  if (step <= control.step_tolerance) {
    *message << "Stationary after " << iteration - 1
             << " iterations: the step |dq|_inf = " << step
             << " <= step_tolerance.";
    return StepOutcome::kStationary;
  }
  return StepOutcome::kStep;
}

// What the message adds after the solve: the last condition number, and a
// pose outside the limits of a method that does not enforce them.
void AppendNotes(const Problem& problem, const SolveOptions& common,
                 const std::string& solver_name,
                 const DifferentialMethod& method,
                 const Eigen::VectorXd& final_q, std::ostringstream* message) {
  if (method.condition_number() > 0.0) {
    *message << " Last condition number " << method.condition_number()
             << ".";
  }
  if (common.respect_limits && !method.enforces_limits() &&
      !problem.bounds().Contains(final_q)) {
    *message << " The pose is outside the joint limits: " << solver_name
             << " does not enforce them.";
  }
}

// The lowest potential so far and the iterations since it last dropped by
// more than a relative 1e-12 (the stall test's count).
struct Progress {
  double best_potential;
  Eigen::VectorXd best_q;
  int iterations_without_progress = 0;

  void Update(const Iterate& now) {
    if (now.potential < best_potential * (1.0 - 1e-12)) {
      iterations_without_progress = 0;
    } else {
      ++iterations_without_progress;
    }
    if (now.potential < best_potential) {
      best_potential = now.potential;
      best_q = now.q;
    }
  }
};

}  // namespace

Result RunDifferentialSolve(const Problem& problem, const Eigen::VectorXd& q0,
                            const SolveOptions& common,
                            const StepControl& control,
                            const std::string& solver_name,
                            DifferentialMethod* method) {
  SolveScope scope(problem, q0, common, solver_name);
  if (!scope.ok()) return scope.result();
  // Options the scope does not know, or a problem the method is not defined
  // for: kInvalidInput with the pose q0 (not through Finish, which would
  // report a start pose that happens to be within tolerance as converged).
  std::string why;
  if (!control.IsValid(&why) || !method->Prepare(problem, &why)) {
    Result result = scope.Reject(why);
    result.q = q0;
    return result;
  }

  // Bounds are handed to the method only when it enforces them and the user
  // asked for limits; other methods run unconstrained (documented per method).
  Bounds box;
  const bool use_bounds = common.respect_limits && method->enforces_limits();
  if (use_bounds) {
    box.lower = scope.lower();
    box.upper = scope.upper();
  }
  const Bounds* bounds = use_bounds ? &box : nullptr;
  const bool with_jacobian = method->needs_jacobian();

  Iterate first(problem);
  Iterate second(problem);
  Iterate* current_ptr = &first;  // the accepted iterate
  Iterate* trial_ptr = &second;   // scratch for q + dq
  Eigen::VectorXd V(problem.num_residuals());
  Eigen::VectorXd dq(problem.nq());
  std::vector<GoalError> errors(problem.goals().size());
  Result& result = scope.result();

  first.q = scope.start();
  Evaluate(problem, with_jacobian, &first);
  ++result.function_evaluations;
  if (with_jacobian) ++result.jacobian_evaluations;
  scope.SetInitialPotential(first.potential);
  GoalErrorsAt(problem, first, &errors);
  if (common.record_trace) {
    AppendTrace(0, first, errors, *method, &result);
  }
  if (scope.WithinTolerance(errors)) {
    return scope.Finish(first.q, SolveStatus::kConverged,
                        "The start pose is within tolerance.");
  }

  Progress progress{first.potential, scope.start()};
  SolveStatus status = SolveStatus::kMaxIterations;
  std::ostringstream message;
  bool converged = false;

  for (int iteration = 1; iteration <= common.max_iterations; ++iteration) {
    Iterate& current = *current_ptr;
    Iterate& trial = *trial_ptr;
    if (scope.OutOfTime()) {
      status = SolveStatus::kTimeBudget;
      message << "The time budget of " << common.time_budget_seconds
              << " s was spent after " << iteration - 1 << " iterations.";
      break;
    }
    result.iterations = iteration;
    const StepOutcome outcome = JointStep(problem, current, control, bounds,
                                          iteration, method, &V, &dq, &message);
    if (outcome == StepOutcome::kFailed) {
      status = SolveStatus::kNumericalFailure;
      break;
    }
    if (outcome == StepOutcome::kStationary) {
      status = SolveStatus::kLocalMinimum;
      result.iterations = iteration - 1;
      break;
    }

    trial.q = current.q + dq;
    if (bounds != nullptr) {
      // Rounding hygiene only: the method chose a step inside the box, but
      // q + (u − q) can round one ulp past u. Not a clamp of the step.
      trial.q = trial.q.cwiseMax(bounds->lower).cwiseMin(bounds->upper);
    }
    Evaluate(problem, with_jacobian, &trial);
    ++result.function_evaluations;
    if (with_jacobian) ++result.jacobian_evaluations;

    // A rejected trial leaves `current` (and its FK state) untouched.
    if (method->AcceptStep(current.potential, trial.potential)) {
      std::swap(current_ptr, trial_ptr);
    }
    const Iterate& now = *current_ptr;
    GoalErrorsAt(problem, now, &errors);
    if (common.record_trace) {
      AppendTrace(iteration, now, errors, *method, &result);
    }
    progress.Update(now);
    if (scope.WithinTolerance(errors)) {
      converged = true;
      status = SolveStatus::kConverged;
      message << "Converged after " << iteration << " iterations.";
      break;
    }
    if (progress.iterations_without_progress >= control.stall_iterations) {
      status = SolveStatus::kLocalMinimum;
      message << "Stalled: the potential did not decrease in "
              << control.stall_iterations << " iterations (stopped after "
              << iteration << ").";
      break;
    }
  }
  if (status == SolveStatus::kMaxIterations) {
    message << "Reached max_iterations (" << common.max_iterations << ").";
  }

  const Eigen::VectorXd& final_q =
      (converged || !control.return_best) ? current_ptr->q : progress.best_q;
  AppendNotes(problem, common, solver_name, *method, final_q, &message);
  return scope.Finish(final_q, status, message.str());
}

}  // namespace internal
}  // namespace iklab
