#include "solvers/constrained/ipopt_solver.h"

#include <cmath>
#include <exception>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <IpIpoptApplication.hpp>
#include <IpTNLP.hpp>

#include "framework/internal/check.h"
#include "solvers/constrained/internal/nlp_evaluator.h"
#include "solvers/internal/solve_scope.h"

namespace iklab {

using internal::Invalid;

namespace {

// IPOPT's "infinite" bound (nlp_lower_bound_inf / nlp_upper_bound_inf
// default to ∓1e19: anything beyond counts as no bound).
constexpr double kIpoptInfinity = 2e19;

// The TNLP IPOPT calls: the NLP of nlp_evaluator.h with dense constraint
// Jacobians, g = [h; c] with h = 0 and c ≤ 0, and the iteration hook (our
// tolerance stop, the time budget) in intermediate_callback.
class IkTnlp : public Ipopt::TNLP {
 public:
  IkTnlp(internal::SolveScope* scope, internal::NlpEvaluator* nlp,
         const IpoptOptions& options)
      : scope_(scope),
        nlp_(nlp),
        options_(options),
        final_x_(scope->start()),
        stop_x_(scope->start()) {}

  bool get_nlp_info(Ipopt::Index& n, Ipopt::Index& m,
                    Ipopt::Index& nnz_jac_g, Ipopt::Index& nnz_h_lag,
                    IndexStyleEnum& index_style) override {
    n = nlp_->n();
    m = nlp_->num_equalities() + nlp_->num_inequalities();
    nnz_jac_g = n * m;  // dense
    nnz_h_lag = 0;      // limited-memory Hessian approximation
    index_style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Ipopt::Index n, Ipopt::Number* x_l,
                       Ipopt::Number* x_u, Ipopt::Index m,
                       Ipopt::Number* g_l, Ipopt::Number* g_u) override {
    for (Ipopt::Index i = 0; i < n; ++i) {
      x_l[i] = std::isfinite(scope_->lower()[i]) ? scope_->lower()[i]
                                                 : -kIpoptInfinity;
      x_u[i] = std::isfinite(scope_->upper()[i]) ? scope_->upper()[i]
                                                 : kIpoptInfinity;
    }
    const int meq = nlp_->num_equalities();
    for (Ipopt::Index j = 0; j < m; ++j) {
      g_l[j] = j < meq ? 0.0 : -kIpoptInfinity;  // h = 0; c ≤ 0
      g_u[j] = 0.0;
    }
    return true;
  }

  bool get_starting_point(Ipopt::Index n, bool, Ipopt::Number* x, bool,
                          Ipopt::Number*, Ipopt::Number*, Ipopt::Index, bool,
                          Ipopt::Number*) override {
    Eigen::Map<Eigen::VectorXd>(x, n) = scope_->start();
    return true;
  }

  bool eval_f(Ipopt::Index, const Ipopt::Number* x, bool,
              Ipopt::Number& f) override {
    return Guard([&] { f = nlp_->Objective(x, nullptr); });
  }

  bool eval_grad_f(Ipopt::Index, const Ipopt::Number* x, bool,
                   Ipopt::Number* grad_f) override {
    return Guard([&] { nlp_->Objective(x, grad_f); });
  }

  bool eval_g(Ipopt::Index, const Ipopt::Number* x, bool, Ipopt::Index,
              Ipopt::Number* g) override {
    return Guard([&] {
      nlp_->Equalities(x, g, nullptr);
      nlp_->Inequalities(x, g + nlp_->num_equalities(), nullptr);
    });
  }

  bool eval_jac_g(Ipopt::Index n, const Ipopt::Number* x, bool,
                  Ipopt::Index m, Ipopt::Index, Ipopt::Index* i_row,
                  Ipopt::Index* j_col, Ipopt::Number* values) override {
    if (values == nullptr) {  // structure: dense, row-major
      for (Ipopt::Index r = 0; r < m; ++r) {
        for (Ipopt::Index c = 0; c < n; ++c) {
          i_row[r * n + c] = r;
          j_col[r * n + c] = c;
        }
      }
      return true;
    }
    return Guard([&] {
      nlp_->Equalities(x, nullptr, values);
      nlp_->Inequalities(x, nullptr, values + nlp_->num_equalities() * n);
    });
  }

  bool intermediate_callback(Ipopt::AlgorithmMode, Ipopt::Index iteration,
                             Ipopt::Number, Ipopt::Number, Ipopt::Number,
                             Ipopt::Number, Ipopt::Number, Ipopt::Number,
                             Ipopt::Number, Ipopt::Number, Ipopt::Index,
                             const Ipopt::IpoptData*,
                             Ipopt::IpoptCalculatedQuantities*) override {
    iterations_ = iteration;
    if (iteration == 0) return true;
    // IPOPT 3.11 does not hand the iterate to this callback; the accepted
    // iterate is the last point whose constraints were evaluated (the line
    // search's accepted trial point). Without constraints there is none
    // (before, an uninitialised vector was read here, found by valgrind):
    // the tolerance test then waits for the final point, and a time stop
    // returns the start pose.
    const bool known = nlp_->has_last_x();
    const Eigen::VectorXd& x = known ? nlp_->last_x() : scope_->start();
    if (known && options_.stop_at_tolerance && scope_->WithinToleranceAt(x)) {
      stop_status_ = SolveStatus::kConverged;
      stop_x_ = x;
      return false;
    }
    if (scope_->OutOfTime()) {
      stop_status_ = SolveStatus::kTimeBudget;
      stop_x_ = x;
      return false;
    }
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn, Ipopt::Index n,
                         const Ipopt::Number* x, const Ipopt::Number*,
                         const Ipopt::Number*, Ipopt::Index,
                         const Ipopt::Number*, const Ipopt::Number*,
                         Ipopt::Number, const Ipopt::IpoptData*,
                         Ipopt::IpoptCalculatedQuantities*) override {
    if (x != nullptr) final_x_ = Eigen::Map<const Eigen::VectorXd>(x, n);
  }

  int iterations() const { return iterations_; }
  const Eigen::VectorXd& final_x() const { return final_x_; }
  SolveStatus stop_status() const { return stop_status_; }
  const Eigen::VectorXd& stop_x() const { return stop_x_; }
  const std::string& evaluation_error() const { return evaluation_error_; }

 private:
  // Evaluation errors become `false` (IPOPT then cuts the step back or stops
  // with Invalid_Number_Detected); never an exception through IPOPT.
  template <typename Fn>
  bool Guard(Fn&& fn) {
    try {
      fn();
      return true;
    } catch (const std::exception& e) {
      evaluation_error_ = e.what();
      return false;
    }
  }

  internal::SolveScope* scope_;
  internal::NlpEvaluator* nlp_;
  const IpoptOptions& options_;
  Eigen::VectorXd final_x_;
  Eigen::VectorXd stop_x_;
  SolveStatus stop_status_ = SolveStatus::kNotSolved;
  int iterations_ = 0;
  std::string evaluation_error_;
};

const char* IpoptStatusName(Ipopt::ApplicationReturnStatus s) {
  switch (s) {
    case Ipopt::Solve_Succeeded: return "Solve_Succeeded";
    case Ipopt::Solved_To_Acceptable_Level: return "Solved_To_Acceptable_Level";
    case Ipopt::Infeasible_Problem_Detected: return "Infeasible_Problem_Detected";
    case Ipopt::Search_Direction_Becomes_Too_Small:
      return "Search_Direction_Becomes_Too_Small";
    case Ipopt::Diverging_Iterates: return "Diverging_Iterates";
    case Ipopt::User_Requested_Stop: return "User_Requested_Stop";
    case Ipopt::Feasible_Point_Found: return "Feasible_Point_Found";
    case Ipopt::Maximum_Iterations_Exceeded: return "Maximum_Iterations_Exceeded";
    case Ipopt::Restoration_Failed: return "Restoration_Failed";
    case Ipopt::Error_In_Step_Computation: return "Error_In_Step_Computation";
    case Ipopt::Maximum_CpuTime_Exceeded: return "Maximum_CpuTime_Exceeded";
    case Ipopt::Not_Enough_Degrees_Of_Freedom:
      return "Not_Enough_Degrees_Of_Freedom";
    case Ipopt::Invalid_Problem_Definition: return "Invalid_Problem_Definition";
    case Ipopt::Invalid_Option: return "Invalid_Option";
    case Ipopt::Invalid_Number_Detected: return "Invalid_Number_Detected";
    case Ipopt::Unrecoverable_Exception: return "Unrecoverable_Exception";
    case Ipopt::NonIpopt_Exception_Thrown: return "NonIpopt_Exception_Thrown";
    case Ipopt::Insufficient_Memory: return "Insufficient_Memory";
    case Ipopt::Internal_Error: return "Internal_Error";
  }
  return "unknown IPOPT status";
}

}  // namespace

bool IpoptOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (!(displacement_weight >= 0.0) || !std::isfinite(displacement_weight)) {
    return Invalid(why,
                   "IpoptOptions::displacement_weight must be finite and >= 0, "
                   "got ",
                   displacement_weight);
  }
  if (!(tolerance > 0.0) || !std::isfinite(tolerance)) {
    return Invalid(why, "IpoptOptions::tolerance must be finite and > 0, got ",
                   tolerance);
  }
  if (!(constraint_tolerance > 0.0) || !std::isfinite(constraint_tolerance)) {
    return Invalid(why,
                   "IpoptOptions::constraint_tolerance must be finite and > 0, "
                   "got ",
                   constraint_tolerance);
  }
  return true;
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const IpoptOptions& options) {
  internal::SolveScope scope(problem, q0, options.common, "ipopt",
                             /*honours_constraints=*/true);
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options.IsValid(&why)) return scope.Reject(why);
  const internal::NlpProgram program = internal::MakeNlpProgram(
      problem, options.goals_as_constraints, options.displacement_weight);
  internal::NlpEvaluator nlp(program.problem, scope.start(),
                             program.displacement_weight);
  SolveStatus status = SolveStatus::kNumericalFailure;
  std::string message;
  Eigen::VectorXd answer = scope.start();
  int iterations = 0;
  try {
    // Debian's IPOPT factorizes with the sequential MUMPS, which keeps global
    // state and is not thread-safe (two solves at once abort in its Fortran
    // runtime): IPOPT solves in one process run one at a time.
    static std::mutex ipopt_mutex;
    std::lock_guard<std::mutex> lock(ipopt_mutex);
    Ipopt::SmartPtr<IkTnlp> tnlp = new IkTnlp(&scope, &nlp, options);
    Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
    app->Options()->SetIntegerValue("print_level", 0);
    app->Options()->SetStringValue("sb", "yes");  // no banner
    app->Options()->SetStringValue("hessian_approximation", "limited-memory");
    app->Options()->SetIntegerValue("max_iter", options.common.max_iterations);
    app->Options()->SetNumericValue("tol", options.tolerance);
    app->Options()->SetNumericValue("constr_viol_tol",
                                    options.constraint_tolerance);
    app->Options()->SetNumericValue("bound_relax_factor", 0.0);
    app->Options()->SetStringValue("honor_original_bounds", "yes");
    app->Options()->SetStringValue(
        "mu_strategy",
        options.barrier_update == IpoptOptions::BarrierUpdate::kMonotone
            ? "monotone"
            : "adaptive");
    if (options.common.time_budget_seconds > 0.0) {
      app->Options()->SetNumericValue("max_cpu_time",
                                      options.common.time_budget_seconds);
    }
    if (app->Initialize() != Ipopt::Solve_Succeeded) {
      status = SolveStatus::kNumericalFailure;
      message = "IPOPT: initialization failed";
    } else {
      const Ipopt::ApplicationReturnStatus s = app->OptimizeTNLP(tnlp);
      iterations = tnlp->iterations();
      answer = tnlp->final_x();
      message = std::string("IPOPT: ") + IpoptStatusName(s);
      switch (s) {
        case Ipopt::Solve_Succeeded:
        case Ipopt::Solved_To_Acceptable_Level:
        case Ipopt::Feasible_Point_Found:
          // A KKT point of the NLP: stationary unless the goals are met
          // (Finish upgrades to kConverged then).
          status = SolveStatus::kLocalMinimum;
          break;
        case Ipopt::User_Requested_Stop:
          status = tnlp->stop_status();
          answer = tnlp->stop_x();
          message = status == SolveStatus::kConverged
                        ? "every goal and constraint within tolerance"
                        : "time budget spent";
          break;
        case Ipopt::Infeasible_Problem_Detected:
        case Ipopt::Restoration_Failed:
        case Ipopt::Search_Direction_Becomes_Too_Small:
          // Locally infeasible, or no more progress: stationary, a fact
          // about this point (IPOPT's infeasibility is local); Finish
          // decides on the evidence (solve_scope.h rule 3).
          status = SolveStatus::kLocalMinimum;
          break;
        case Ipopt::Maximum_Iterations_Exceeded:
          status = SolveStatus::kMaxIterations;
          break;
        case Ipopt::Maximum_CpuTime_Exceeded:
          status = SolveStatus::kTimeBudget;
          break;
        case Ipopt::Not_Enough_Degrees_Of_Freedom:
          status = SolveStatus::kInvalidInput;
          message += ": more equality constraint rows (" +
                     std::to_string(nlp.num_equalities()) +
                     ") than coordinates (" + std::to_string(nlp.n()) +
                     "); pose the constraints in a minimal form";
          break;
        default:
          status = SolveStatus::kNumericalFailure;
          if (!tnlp->evaluation_error().empty()) {
            message += " (" + tnlp->evaluation_error() + ")";
          }
          break;
      }
    }
  } catch (const Ipopt::IpoptException& e) {
    status = SolveStatus::kNumericalFailure;
    message = "IPOPT exception: " + e.Message();
  } catch (const std::exception& e) {
    status = SolveStatus::kNumericalFailure;
    message = std::string("IPOPT: ") + e.what();
  }
  Result& result = scope.result();
  result.iterations = iterations;
  result.function_evaluations = nlp.objective_evaluations();
  result.jacobian_evaluations = nlp.constraint_evaluations();
  if (status == SolveStatus::kInvalidInput) {
    result.status = status;
    result.message = std::move(message);
    result.wall_time_seconds = scope.Elapsed();
    return result;
  }
  return scope.Finish(answer, status, std::move(message));
}

Result IpoptSolver::Solve(const Problem& problem,
                          const Eigen::VectorXd& q0) const {
  return iklab::Solve(problem, q0, options_);
}

std::unique_ptr<Solver> MakeSolver(const IpoptOptions& options) {
  return std::make_unique<IpoptSolver>(options);
}

}  // namespace iklab
