#include "solvers/constrained/slsqp_solver.h"

#include <cmath>
#include <exception>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <nlopt.hpp>

#include "framework/internal/check.h"
#include "solvers/constrained/internal/nlp_evaluator.h"
#include "solvers/internal/solve_scope.h"

namespace iklab {

using internal::Invalid;

namespace {

// State the NLopt callbacks share (passed as their void* data).
struct Callbacks {
  internal::SolveScope* scope = nullptr;
  internal::NlpEvaluator* nlp = nullptr;
  const SlsqpOptions* options = nullptr;
  int evaluations = 0;
  // Set when our hook stopped NLopt (forced_stop): why, and where.
  bool stopped = false;
  SolveStatus stop_status = SolveStatus::kNotSolved;
  const char* stop_message = "";
  Eigen::VectorXd stop_x;
  // A std::domain_error from the evaluator (non-finite values).
  std::string evaluation_error;
};

double Objective(unsigned n, const double* x, double* gradient, void* data) {
  Callbacks& cb = *static_cast<Callbacks*>(data);
  ++cb.evaluations;
  const Eigen::Map<const Eigen::VectorXd> xm(x, n);
  // The iteration hook: our IK stop and the time budget, checked at every
  // point SLSQP evaluates (NLopt has no per-iteration callback).
  if (cb.options->stop_at_tolerance &&
      cb.scope->WithinToleranceAt(xm.eval())) {
    cb.stopped = true;
    cb.stop_status = SolveStatus::kConverged;
    cb.stop_message = "every goal and constraint within tolerance";
    cb.stop_x = xm;
    throw nlopt::forced_stop();
  }
  if (cb.scope->OutOfTime()) {
    cb.stopped = true;
    cb.stop_status = SolveStatus::kTimeBudget;
    cb.stop_message = "time budget spent";
    cb.stop_x = xm;
    throw nlopt::forced_stop();
  }
  try {
    return cb.nlp->Objective(x, gradient);
  } catch (const std::domain_error& e) {
    cb.evaluation_error = e.what();
    throw nlopt::forced_stop();
  }
}

void Equalities(unsigned, double* result, unsigned, const double* x,
                double* gradient, void* data) {
  Callbacks& cb = *static_cast<Callbacks*>(data);
  try {
    cb.nlp->Equalities(x, result, gradient);
  } catch (const std::domain_error& e) {
    cb.evaluation_error = e.what();
    throw nlopt::forced_stop();
  }
}

void Inequalities(unsigned, double* result, unsigned, const double* x,
                  double* gradient, void* data) {
  Callbacks& cb = *static_cast<Callbacks*>(data);
  try {
    cb.nlp->Inequalities(x, result, gradient);
  } catch (const std::domain_error& e) {
    cb.evaluation_error = e.what();
    throw nlopt::forced_stop();
  }
}

const char* ResultName(nlopt::result r) {
  switch (r) {
    case nlopt::SUCCESS:
      return "success";
    case nlopt::STOPVAL_REACHED:
      return "stopval reached";
    case nlopt::FTOL_REACHED:
      return "ftol reached";
    case nlopt::XTOL_REACHED:
      return "xtol reached";
    case nlopt::MAXEVAL_REACHED:
      return "maxeval reached";
    case nlopt::MAXTIME_REACHED:
      return "maxtime reached";
    default:
      return "failure";
  }
}

}  // namespace

bool SlsqpOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (!(displacement_weight >= 0.0) || !std::isfinite(displacement_weight)) {
    return Invalid(why,
                   "SlsqpOptions::displacement_weight must be finite and >= 0, "
                   "got ",
                   displacement_weight);
  }
  if (!(constraint_tolerance >= 0.0) || !std::isfinite(constraint_tolerance)) {
    return Invalid(
        why,
        "SlsqpOptions::constraint_tolerance must be finite and >= 0, "
        "got ",
        constraint_tolerance);
  }
  if (!(relative_x_tolerance >= 0.0) || !std::isfinite(relative_x_tolerance)) {
    return Invalid(
        why,
        "SlsqpOptions::relative_x_tolerance must be finite and >= 0, "
        "got ",
        relative_x_tolerance);
  }
  return true;
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const SlsqpOptions& options) {
  internal::SolveScope scope(problem, q0, options.common, "slsqp",
                             /*honours_constraints=*/true);
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options.IsValid(&why)) return scope.Reject(why);
  const internal::NlpProgram program = internal::MakeNlpProgram(
      problem, options.goals_as_constraints, options.displacement_weight);
  internal::NlpEvaluator nlp(program.problem, scope.start(),
                             program.displacement_weight);
  Callbacks cb;
  cb.scope = &scope;
  cb.nlp = &nlp;
  cb.options = &options;

  const int n = problem.nq();
  std::vector<double> x(scope.start().data(), scope.start().data() + n);
  SolveStatus status = SolveStatus::kNotSolved;
  std::string message;
  Eigen::VectorXd answer = scope.start();
  try {
    nlopt::opt opt(nlopt::LD_SLSQP, static_cast<unsigned>(n));
    // NLopt rejects infinite bounds of the wrong sign only; ±HUGE_VAL means
    // unbounded.
    opt.set_lower_bounds(std::vector<double>(
        scope.lower().data(), scope.lower().data() + n));
    opt.set_upper_bounds(std::vector<double>(
        scope.upper().data(), scope.upper().data() + n));
    opt.set_min_objective(Objective, &cb);
    if (nlp.num_equalities() > 0) {
      opt.add_equality_mconstraint(
          Equalities, &cb,
          std::vector<double>(nlp.num_equalities(),
                              options.constraint_tolerance));
    }
    if (nlp.num_inequalities() > 0) {
      opt.add_inequality_mconstraint(
          Inequalities, &cb,
          std::vector<double>(nlp.num_inequalities(),
                              options.constraint_tolerance));
    }
    opt.set_xtol_rel(options.relative_x_tolerance);
    opt.set_maxeval(options.common.max_iterations);
    double f = 0.0;
    const nlopt::result r = opt.optimize(x, f);
    answer = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
    if (r == nlopt::MAXEVAL_REACHED) {
      status = SolveStatus::kMaxIterations;
      message = "evaluation cap reached";
    } else {
      // SLSQP's own convergence (a KKT point of the NLP, or no more
      // progress): stationary; Finish upgrades it if the goals are met.
      status = SolveStatus::kLocalMinimum;
      message = std::string("SLSQP stopped: ") + ResultName(r);
    }
  } catch (const nlopt::forced_stop&) {
    if (cb.stopped) {
      status = cb.stop_status;
      message = cb.stop_message;
      answer = cb.stop_x;
    } else {
      status = SolveStatus::kNumericalFailure;
      message = "NLopt: " + cb.evaluation_error;
      answer = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
    }
  } catch (const nlopt::roundoff_limited& e) {
    // Roundoff-limited: no more progress possible at this precision, the
    // point is as good as SLSQP can make it: stationary.
    status = SolveStatus::kLocalMinimum;
    message = std::string("NLopt: ") + e.what();
    answer = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
  } catch (const std::bad_alloc&) {
    status = SolveStatus::kNumericalFailure;
    message = "NLopt: out of memory";
  } catch (const std::exception& e) {
    // std::runtime_error ("nlopt failure": e.g. SLSQP's LSQ subproblem
    // failed on a singular constraint Jacobian), std::invalid_argument.
    status = SolveStatus::kNumericalFailure;
    message = std::string("NLopt: ") + e.what();
    answer = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
  }
  Result& result = scope.result();
  result.iterations = cb.evaluations;
  result.function_evaluations = nlp.objective_evaluations();
  result.jacobian_evaluations = nlp.objective_evaluations();
  return scope.Finish(answer, status, std::move(message));
}

Result SlsqpSolver::Solve(const Problem& problem,
                          const Eigen::VectorXd& q0) const {
  return iklab::Solve(problem, q0, options_);
}

std::unique_ptr<Solver> MakeSolver(const SlsqpOptions& options) {
  return std::make_unique<SlsqpSolver>(options);
}

}  // namespace iklab
