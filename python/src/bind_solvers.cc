// solvers/: SolveOptions/Result, every solver with its Options as keyword
// arguments, restarts, trajectories, the analytic solvers, batch solving.

#include <array>
#include <thread>
#include <utility>
#include <vector>

#include "bindings.h"
#include "constraints/position_goal.h"
#include "solve_guard.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/analytic/two_link_analytic.h"
#include "solvers/batch_solve.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/differential/extended_jacobian_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"
#include "solvers/differential/multi_effector_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "solvers/registry.h"
#include "solvers/restarts.h"
#include "solvers/solver.h"
#include "solvers/trajectory.h"

namespace iklab::python {

namespace {

using SolverPtr = std::shared_ptr<Solver>;

bool IsField(py::handle object, const std::string& key) {
  // Kept for the life of the process (a static py::object would be released
  // after the interpreter has shut down).
  static const py::handle property =
      py::object(py::module_::import("builtins").attr("property")).release();
  const py::object attribute =
      py::getattr(py::type::of(object), key.c_str(), py::none());
  return py::isinstance(attribute, property);
}

std::vector<std::string> Fields(py::handle object) {
  std::vector<std::string> names;
  for (py::handle name : py::module_::import("builtins").attr("dir")(object)) {
    const std::string key = name.cast<std::string>();
    if (key.rfind("_", 0) != 0 && IsField(object, key)) names.push_back(key);
  }
  return names;
}

// Sets `key` on `object`, or on its `common` (SolveOptions) or `step`
// (StepControl) member, so that solver options read as one flat keyword list:
// LbfgsbSolver(max_iterations=50, memory=5).
void SetOption(py::object object, const std::string& key, py::handle value,
               const std::string& owner) {
  py::object target;
  if (IsField(object, key)) {
    target = object;
  } else {
    for (const char* member : {"common", "step"}) {
      if (IsField(object, member)) {
        py::object inner = object.attr(member);
        if (IsField(inner, key)) {
          try {
            py::setattr(inner, key.c_str(), value);
          } catch (const py::error_already_set& e) {
            throw py::value_error(owner + ": option '" + key + "': " + e.what());
          }
          py::setattr(object, member, inner);  // def_readwrite returns copies
          return;
        }
      }
    }
  }
  if (!target) {
    std::string known;
    for (const char* member : {"", "common", "step"}) {
      py::object source = *member ? (IsField(object, member) ? object.attr(member)
                                                             : py::object())
                                  : object;
      if (!source) continue;
      for (const std::string& name : Fields(source)) {
        if (name == "common" || name == "step") continue;
        known += (known.empty() ? "" : ", ") + name;
      }
    }
    throw py::value_error(owner + ": unknown option '" + key + "'; options are: " + known);
  }
  try {
    py::setattr(target, key.c_str(), value);
  } catch (const py::error_already_set& e) {
    throw py::value_error(owner + ": option '" + key + "': " + e.what());
  }
}

template <typename Options>
void Validate(const Options& options, const std::string& owner) {
  std::string why;
  if (!options.IsValid(&why)) throw std::invalid_argument(owner + ": " + why);
}

// Options from `options` (or the defaults) with `kwargs` applied, validated.
template <typename Options>
Options MakeOptions(const std::string& owner, py::object options,
                    const py::kwargs& kwargs) {
  if (!options.is_none() && !py::isinstance<Options>(options)) {
    throw py::type_error(owner + ": options must be a " +
                         std::string(py::str(py::type::of<Options>().attr("__name__"))) +
                         " or None, got " +
                         std::string(py::str(py::type::of(options).attr("__name__"))));
  }
  py::object object = options.is_none() ? py::cast(Options{})
                                        : py::cast(options.cast<Options>());
  for (const auto& item : kwargs) {
    SetOption(object, item.first.cast<std::string>(), item.second, owner);
  }
  Options result = object.cast<Options>();
  Validate(result, owner);
  return result;
}

// Options class with __init__(**kwargs) and a readable repr.
template <typename Options>
py::class_<Options> OptionsClass(py::module_& m, const char* name, const char* doc) {
  py::class_<Options> c(m, name, doc);
  const std::string owner = name;
  c.def(py::init([owner](py::kwargs kwargs) {
    return MakeOptions<Options>(owner, py::none(), kwargs);
  }));
  c.def("is_valid", [](const Options& o) {
    std::string why;
    const bool ok = o.IsValid(&why);
    return py::make_tuple(ok, why);
  }, "(True, '') or (False, why).");
  c.def("__repr__", [owner](py::object self) {
    std::string text = owner + "(";
    bool first = true;
    for (const std::string& key : Fields(self)) {
      text += (first ? "" : ", ") + key + "=" +
              std::string(py::repr(self.attr(key.c_str())));
      first = false;
    }
    return text + ")";
  });
  return c;
}

// Solver class: Solver(options=None, **kwargs) and .options.
template <typename SolverT, typename Options>
void SolverClass(py::module_& m, const char* name, const char* doc) {
  const std::string owner = name;
  py::class_<SolverT, Solver, std::shared_ptr<SolverT>>(m, name, doc)
      .def(py::init([owner](OrNoneArg<Options> options, py::kwargs kwargs) {
             return std::make_shared<SolverT>(MakeOptions<Options>(owner, options, kwargs));
           }),
           py::arg("options") = py::none())
      // A copy: a solver is immutable (solves in other threads read its
      // options without the GIL), so writing to it cannot change the solver.
      .def_property_readonly("options", [](const SolverT& s) { return s.options(); },
                             "A copy of the options this solver was made with (a "
                             "solver's options are fixed: make a new solver, e.g. "
                             "Solver(options=...), to change them).")
      // The options class, for help(): iklab/_docs.py lists its fields in
      // the solver's docstring.
      .attr("Options") = py::type::of<Options>();
}

Result SolveChecked(const Solver& solver, const Problem& problem, VectorNqArg q0) {
  const Eigen::VectorXd start = ToVector(q0, "q0", problem.nq());
  const SolveGuard guard(problem);
  py::gil_scoped_release release;
  return solver.Solve(problem, start);
}

py::array_t<std::int8_t> StatusArray(const std::vector<SolveStatus>& status) {
  py::array_t<std::int8_t> out(static_cast<py::ssize_t>(status.size()));
  for (size_t i = 0; i < status.size(); ++i) {
    out.mutable_at(i) = static_cast<std::int8_t>(status[i]);
  }
  return out;
}

int DefaultThreads(py::object threads) { return ToThreadCount(threads, "threads"); }

// Binds the field `name` of the Options struct T, read-write.
#define IKLAB_FIELD(T, name) .def_readwrite(#name, &T::name)

// SolveStatus, the per-iteration trace record and the Result of a solve.
void BindSolveStatusAndResult(py::module_& m) {
  py::enum_<SolveStatus>(m, "SolveStatus")
      .value("CONVERGED", SolveStatus::kConverged)
      .value("MAX_ITERATIONS", SolveStatus::kMaxIterations)
      .value("TIME_BUDGET", SolveStatus::kTimeBudget)
      .value("LOCAL_MINIMUM", SolveStatus::kLocalMinimum)
      .value("UNREACHABLE", SolveStatus::kUnreachable)
      .value("LIMITS_INFEASIBLE", SolveStatus::kLimitsInfeasible)
      .value("INVALID_INPUT", SolveStatus::kInvalidInput)
      .value("NUMERICAL_FAILURE", SolveStatus::kNumericalFailure)
      .value("NOT_SOLVED", SolveStatus::kNotSolved)
      .value("OUTSIDE_LIMITS", SolveStatus::kOutsideLimits);
  m.def("solve_status_name", &SolveStatusName, py::arg("status"),
        "The status as text: 'converged', 'max iterations', ... (for messages and "
        "reports).");

  py::class_<IterationRecord>(m, "IterationRecord")
      .def_readonly("iteration", &IterationRecord::iteration,
                    "The iteration's number.")
      .def_readonly("potential", &IterationRecord::potential)
      .def_readonly("max_position_error", &IterationRecord::max_position_error)
      .def_readonly("max_angle_error", &IterationRecord::max_angle_error,
                    "Largest angle error over the goals at q (radians).")
      .def_readonly("q", &IterationRecord::q, "The iterate q (nq values).")
      .def_readonly("condition_number", &IterationRecord::condition_number)
      .def_readonly("damping", &IterationRecord::damping);

  py::class_<Result>(m, "Result", "The outcome of one solve.")
      .def_readonly("status", &Result::status,
                    "How the solve ended (SolveStatus); CONVERGED when every goal is within tolerance.")
      .def_readonly("message", &Result::message,
                    "What happened, in words (the reason behind status).")
      .def_readonly("solver", &Result::solver)
      .def_readonly("q", &Result::q)
      .def_readonly("iterations", &Result::iterations,
                    "Iterations the solver made.")
      .def_readonly("attempts", &Result::attempts)
      .def_readonly("function_evaluations", &Result::function_evaluations,
                    "Evaluations of the residuals or potential.")
      .def_readonly("jacobian_evaluations", &Result::jacobian_evaluations,
                    "Evaluations of the Jacobian or gradient.")
      .def_readonly("initial_potential", &Result::initial_potential,
                    "Potential sum 1/2 w_i ||r_i||^2 at the (clamped) start pose.")
      .def_readonly("final_potential", &Result::final_potential,
                    "Potential sum 1/2 w_i ||r_i||^2 at the returned q.")
      .def_readonly("goal_errors", &Result::goal_errors)
      .def_readonly("constraint_errors", &Result::constraint_errors)
      .def_readonly("wall_time_seconds", &Result::wall_time_seconds,
                    "Wall time of the solve, seconds.")
      .def_readonly("trace", &Result::trace,
                    "One IterationRecord per iteration when the solve ran with "
                    "record_trace=True; empty otherwise.")
      .def_property_readonly("converged", &Result::converged,
                             "status == SolveStatus.CONVERGED.")
      .def("__repr__", [](const Result& r) {
        return std::string("Result(status=") + SolveStatusName(r.status) +
               ", iterations=" + std::to_string(r.iterations) + ", message='" +
               r.message + "')";
      });
}

// The options every solver shares (SolveOptions, StepControl), the Solver
// base and solve().
void BindSolveOptionsAndSolver(py::module_& m) {
  auto common = OptionsClass<SolveOptions>(m, "SolveOptions",
                                           "Options every solver shares.");
  common.def_readwrite("max_iterations", &SolveOptions::max_iterations)
      .def_readwrite("time_budget_seconds", &SolveOptions::time_budget_seconds)
      .def_readwrite("position_tolerance", &SolveOptions::position_tolerance)
      .def_readwrite("angle_tolerance", &SolveOptions::angle_tolerance)
      .def_readwrite("respect_limits", &SolveOptions::respect_limits)
      .def_readwrite("record_trace", &SolveOptions::record_trace);
  OptionsClass<StepControl>(m, "StepControl", "Step control of the differential solvers.")
      .def_readwrite("max_task_error", &StepControl::max_task_error)
      .def_readwrite("max_joint_step", &StepControl::max_joint_step)
      .def_readwrite("step_tolerance", &StepControl::step_tolerance)
      .def_readwrite("stall_iterations", &StepControl::stall_iterations)
      .def_readwrite("return_best", &StepControl::return_best);

  py::class_<Solver, SolverPtr>(m, "Solver", "Base of every solver.")
      .def_property_readonly("name", &Solver::name)
      .def("solve", &SolveChecked, py::arg("problem"), py::arg("q0"),
           "Solves from q0 (releases the GIL). While it runs, the problem, its "
           "goals and its bounds refuse changes from other threads (RuntimeError).")
      .def("prepare",
           [](const Solver& solver, const Problem& problem) {
             const SolveGuard guard(problem);
             py::gil_scoped_release release;
             solver.Prepare(problem);
           },
           py::arg("problem"),
           "Pays the one-time set-up of solving problems like `problem` now (for "
           "bounded-lm, tolani and analytic-6r: one discarded solve, the first-"
           "execution cost of a fresh process), so the next solve is warm. Optional: "
           "without it a solver's first solve does it, outside that solve's clock "
           "and time budget but inside the call.");
  m.def("solve",
        [](const Problem& problem, VectorNqArg q0, const Solver& solver) {
          return SolveChecked(solver, problem, q0);
        },
        py::arg("problem"), py::arg("q0"), py::arg("solver"),
        "solver.solve(problem, q0): solves from q0 (nq values) without the GIL and "
        "returns a Result. Numerical outcomes, and a q0 with a NaN/Inf, are in "
        "Result.status (INVALID_INPUT, the message naming q0); raises ValueError for a "
        "q0 of the wrong shape.");
}

// Optimization solvers: L-BFGS-B, Ceres, bounded LM, and the NLP solvers with
// hard constraints (IPOPT, SLSQP).
void BindOptimizationSolvers(py::module_& m) {
  OptionsClass<LbfgsbOptions>(m, "LbfgsbOptions", "L-BFGS-B (LBFGSpp) options.")
      IKLAB_FIELD(LbfgsbOptions, common) IKLAB_FIELD(LbfgsbOptions, memory)
      IKLAB_FIELD(LbfgsbOptions, epsilon) IKLAB_FIELD(LbfgsbOptions, max_linesearch)
      IKLAB_FIELD(LbfgsbOptions, max_submin) IKLAB_FIELD(LbfgsbOptions, stop_at_tolerance)
      IKLAB_FIELD(LbfgsbOptions, memory_resets)
      IKLAB_FIELD(LbfgsbOptions, stationarity_tolerance);
  SolverClass<LbfgsbSolver, LbfgsbOptions>(m, "LbfgsbSolver", "L-BFGS-B with joint limits as bounds.");

  py::enum_<CeresOptions::Method>(m, "CeresMethod")
      .value("LEVENBERG_MARQUARDT", CeresOptions::Method::kLevenbergMarquardt)
      .value("DOGLEG", CeresOptions::Method::kDogleg);
  py::enum_<CeresOptions::LinearSolver>(m, "CeresLinearSolver")
      .value("DENSE_QR", CeresOptions::LinearSolver::kDenseQr)
      .value("DENSE_NORMAL_CHOLESKY", CeresOptions::LinearSolver::kDenseNormalCholesky);
  OptionsClass<CeresOptions>(m, "CeresOptions", "Ceres trust-region options.")
      IKLAB_FIELD(CeresOptions, common) .def_readwrite("method", &CeresOptions::method,
                     "Trust-region strategy: CeresMethod.LEVENBERG_MARQUARDT or CeresMethod.DOGLEG (Powell's dogleg).")
      .def_readwrite("linear_solver", &CeresOptions::linear_solver,
                     "Dense linear solver of the trust-region steps: CeresLinearSolver.DENSE_QR (QR of the Jacobian, robust for redundant arms) or DENSE_NORMAL_CHOLESKY (Cholesky of J^T J: faster, squares the condition number).") IKLAB_FIELD(CeresOptions, function_tolerance)
      .def_readwrite("gradient_tolerance", &CeresOptions::gradient_tolerance,
                     "Ceres' stationarity test on the max-norm of the projected gradient (>= 0); tight by default: the IK stop is the goal tolerance.")
      .def_readwrite("parameter_tolerance", &CeresOptions::parameter_tolerance,
                     "Ceres' stationarity test on the relative step size (>= 0); tight by default: the IK stop is the goal tolerance.")
      IKLAB_FIELD(CeresOptions, initial_trust_region_radius)
      IKLAB_FIELD(CeresOptions, stop_at_tolerance);
  SolverClass<CeresSolver, CeresOptions>(m, "CeresSolver", "Ceres nonlinear least squares.");

  OptionsClass<BoundedLmOptions>(m, "BoundedLmOptions", "Bounded Levenberg-Marquardt options.")
      IKLAB_FIELD(BoundedLmOptions, common) IKLAB_FIELD(BoundedLmOptions, initial_damping)
      IKLAB_FIELD(BoundedLmOptions, damping_decrease)
      IKLAB_FIELD(BoundedLmOptions, damping_increase)
      IKLAB_FIELD(BoundedLmOptions, min_damping) IKLAB_FIELD(BoundedLmOptions, stall_iterations)
      IKLAB_FIELD(BoundedLmOptions, stall_ratio) IKLAB_FIELD(BoundedLmOptions, bound_stall_ratio)
      IKLAB_FIELD(BoundedLmOptions, first_step_ratio)
      IKLAB_FIELD(BoundedLmOptions, first_step_attempts)
      IKLAB_FIELD(BoundedLmOptions, max_damping) IKLAB_FIELD(BoundedLmOptions, max_attempts)
      IKLAB_FIELD(BoundedLmOptions, restart_candidates)
      IKLAB_FIELD(BoundedLmOptions, restart_pool) IKLAB_FIELD(BoundedLmOptions, seed);
  SolverClass<BoundedLmSolver, BoundedLmOptions>(m, "BoundedLmSolver",
                                                 "Bounded Levenberg-Marquardt with restarts.");

  OptionsClass<IpoptOptions>(m, "IpoptOptions", "IPOPT options.")
      IKLAB_FIELD(IpoptOptions, common) IKLAB_FIELD(IpoptOptions, goals_as_constraints)
      IKLAB_FIELD(IpoptOptions, displacement_weight) IKLAB_FIELD(IpoptOptions, tolerance)
      IKLAB_FIELD(IpoptOptions, constraint_tolerance)
      IKLAB_FIELD(IpoptOptions, stop_at_tolerance);
  SolverClass<IpoptSolver, IpoptOptions>(m, "IpoptSolver",
                                         "Interior-point NLP with hard constraints.");
  OptionsClass<SlsqpOptions>(m, "SlsqpOptions", "NLopt SLSQP options.")
      IKLAB_FIELD(SlsqpOptions, common) IKLAB_FIELD(SlsqpOptions, goals_as_constraints)
      IKLAB_FIELD(SlsqpOptions, displacement_weight)
      IKLAB_FIELD(SlsqpOptions, constraint_tolerance)
      IKLAB_FIELD(SlsqpOptions, relative_x_tolerance)
      IKLAB_FIELD(SlsqpOptions, stop_at_tolerance);
  SolverClass<SlsqpSolver, SlsqpOptions>(m, "SlsqpSolver", "SQP NLP with hard constraints.");
}

// Differential solvers: CCD and the Jacobian-based steps.
void BindDifferentialSolvers(py::module_& m) {
  OptionsClass<CcdOptions>(m, "CcdOptions", "Cyclic coordinate descent options.")
      IKLAB_FIELD(CcdOptions, common) IKLAB_FIELD(CcdOptions, step);
  SolverClass<CcdSolver, CcdOptions>(m, "CcdSolver", "Cyclic coordinate descent.");
  OptionsClass<DampedLeastSquaresOptions>(m, "DampedLeastSquaresOptions", "DLS options.")
      IKLAB_FIELD(DampedLeastSquaresOptions, common)
      IKLAB_FIELD(DampedLeastSquaresOptions, step)
      IKLAB_FIELD(DampedLeastSquaresOptions, damping)
      IKLAB_FIELD(DampedLeastSquaresOptions, adaptive)
      IKLAB_FIELD(DampedLeastSquaresOptions, damping_decrease)
      IKLAB_FIELD(DampedLeastSquaresOptions, damping_increase)
      IKLAB_FIELD(DampedLeastSquaresOptions, min_damping)
      IKLAB_FIELD(DampedLeastSquaresOptions, max_damping)
      IKLAB_FIELD(DampedLeastSquaresOptions, compute_condition_number);
  SolverClass<DampedLeastSquaresSolver, DampedLeastSquaresOptions>(
      m, "DampedLeastSquaresSolver", "Damped least squares (Levenberg-Marquardt steps).");
  OptionsClass<SelectivelyDampedOptions>(m, "SelectivelyDampedOptions", "SDLS options.")
      IKLAB_FIELD(SelectivelyDampedOptions, common)
      IKLAB_FIELD(SelectivelyDampedOptions, step)
      IKLAB_FIELD(SelectivelyDampedOptions, max_joint_change)
      IKLAB_FIELD(SelectivelyDampedOptions, singular_value_cutoff);
  SolverClass<SelectivelyDampedSolver, SelectivelyDampedOptions>(
      m, "SelectivelyDampedSolver", "Selectively damped least squares.");
  OptionsClass<BoundedDampedLeastSquaresOptions>(m, "BoundedDampedLeastSquaresOptions",
                                                 "Bounded DLS options.")
      IKLAB_FIELD(BoundedDampedLeastSquaresOptions, common)
      IKLAB_FIELD(BoundedDampedLeastSquaresOptions, step)
      IKLAB_FIELD(BoundedDampedLeastSquaresOptions, damping);
  SolverClass<BoundedDampedLeastSquaresSolver, BoundedDampedLeastSquaresOptions>(
      m, "BoundedDampedLeastSquaresSolver", "DLS steps with the limits as a box.");
  OptionsClass<ExtendedJacobianOptions>(m, "ExtendedJacobianOptions",
                                        "Extended Jacobian options.")
      IKLAB_FIELD(ExtendedJacobianOptions, common) IKLAB_FIELD(ExtendedJacobianOptions, step)
      IKLAB_FIELD(ExtendedJacobianOptions, element_weight)
      IKLAB_FIELD(ExtendedJacobianOptions, element_displacement);
  SolverClass<ExtendedJacobianSolver, ExtendedJacobianOptions>(
      m, "ExtendedJacobianSolver", "Extended Jacobian method.");
  py::enum_<JacobianTransposeOptions::StepSize>(m, "JacobianTransposeStepSize")
      .value("FIXED", JacobianTransposeOptions::StepSize::kFixed)
      .value("OPTIMAL", JacobianTransposeOptions::StepSize::kOptimal);
  OptionsClass<JacobianTransposeOptions>(m, "JacobianTransposeOptions",
                                         "Jacobian transpose options.")
      IKLAB_FIELD(JacobianTransposeOptions, common) IKLAB_FIELD(JacobianTransposeOptions, step)
      IKLAB_FIELD(JacobianTransposeOptions, step_size)
      IKLAB_FIELD(JacobianTransposeOptions, alpha);
  SolverClass<JacobianTransposeSolver, JacobianTransposeOptions>(
      m, "JacobianTransposeSolver", "Jacobian transpose steps.");
  OptionsClass<MultiEffectorOptions>(m, "MultiEffectorOptions",
                                     "Prioritized multi-effector options.")
      IKLAB_FIELD(MultiEffectorOptions, common) IKLAB_FIELD(MultiEffectorOptions, step)
      IKLAB_FIELD(MultiEffectorOptions, goal_levels)
      IKLAB_FIELD(MultiEffectorOptions, singular_value_cutoff)
      IKLAB_FIELD(MultiEffectorOptions, damping);
  SolverClass<MultiEffectorSolver, MultiEffectorOptions>(
      m, "MultiEffectorSolver", "Prioritized (null-space) multi-effector steps.");
  OptionsClass<PseudoInverseOptions>(m, "PseudoInverseOptions", "Pseudo-inverse options.")
      IKLAB_FIELD(PseudoInverseOptions, common) IKLAB_FIELD(PseudoInverseOptions, step)
      IKLAB_FIELD(PseudoInverseOptions, singular_value_cutoff);
  SolverClass<PseudoInverseSolver, PseudoInverseOptions>(m, "PseudoInverseSolver",
                                                         "Moore-Penrose pseudo-inverse steps.");
  OptionsClass<ControlTermOptions>(m, "ControlTermOptions", "Control-term options.")
      IKLAB_FIELD(ControlTermOptions, common) IKLAB_FIELD(ControlTermOptions, step)
      IKLAB_FIELD(ControlTermOptions, centers) IKLAB_FIELD(ControlTermOptions, gains);
  SolverClass<ControlTermSolver, ControlTermOptions>(
      m, "ControlTermSolver", "Pseudo-inverse steps with a null-space control term.");
  OptionsClass<AlternativeJacobianOptions>(m, "AlternativeJacobianOptions",
                                           "Alternative Jacobian options.")
      IKLAB_FIELD(AlternativeJacobianOptions, common)
      IKLAB_FIELD(AlternativeJacobianOptions, step)
      IKLAB_FIELD(AlternativeJacobianOptions, singular_value_cutoff);
  SolverClass<AlternativeJacobianSolver, AlternativeJacobianOptions>(
      m, "AlternativeJacobianSolver", "Alternative Jacobian steps.");
}

// Analytic solvers: the planar two-link arm and 6R arms with a spherical
// wrist.
void BindTwoLinkAndSixRSolvers(py::module_& m) {
  py::enum_<TwoLinkElbow>(m, "TwoLinkElbow")
      .value("POSITIVE", TwoLinkElbow::kPositive)
      .value("NEGATIVE", TwoLinkElbow::kNegative)
      .value("CLOSEST_TO_START", TwoLinkElbow::kClosestToStart);
  OptionsClass<TwoLinkOptions>(m, "TwoLinkOptions", "Two-link analytic options.")
      IKLAB_FIELD(TwoLinkOptions, common) IKLAB_FIELD(TwoLinkOptions, elbow)
      IKLAB_FIELD(TwoLinkOptions, reach_tolerance);
  SolverClass<TwoLinkAnalyticSolver, TwoLinkOptions>(m, "TwoLinkAnalyticSolver",
                                                     "Closed form of the planar two-link arm.");
  py::class_<TwoLinkSolutions>(m, "TwoLinkSolutions")
      .def_readonly("reachable", &TwoLinkSolutions::reachable)
      .def_readonly("num_solutions", &TwoLinkSolutions::num_solutions)
      .def_property_readonly("solutions", [](const TwoLinkSolutions& s) {
        return std::vector<Eigen::Vector2d>(s.solutions.begin(),
                                            s.solutions.begin() + s.num_solutions);
      }, "The num_solutions distinct solutions (theta1, theta2) in (-pi, pi]; the "
         "first has theta2 >= 0 (elbow bent counter-clockwise), the second theta2 <= 0.")
      .def_readonly("closest", &TwoLinkSolutions::closest)
      .def_readonly("distance", &TwoLinkSolutions::distance)
      .def_readonly("residual", &TwoLinkSolutions::residual);
  m.def("solve_two_link_planar",
        [](double l1, double l2, Vector2Arg target, double tolerance) {
          return SolveTwoLinkPlanar(l1, l2, ToVector2(target, "target"), tolerance);
        },
        py::arg("l1"), py::arg("l2"), py::arg("target"), py::arg("tolerance") = 1e-12,
        "Every solution of the planar two-link arm (base at the origin, link lengths "
        "l1, l2 finite and > 0) for the tip target (x, y), a TwoLinkSolutions. "
        "tolerance (>= 0) is the relative tolerance of the reach test: d up to "
        "(l1 + l2)(1 + tolerance) and down to |l1 - l2| - (l1 + l2) tolerance count as "
        "on the boundary. Raises ValueError naming a bad argument.");
  m.def("two_link_tip",
        [](double l1, double l2, Vector2Arg angles) {
          return TwoLinkTip(l1, l2, ToVector2(angles, "angles"));
        },
        py::arg("l1"), py::arg("l2"), py::arg("angles"),
        "Tip position (x, y) of the planar two-link arm at angles (theta1, theta2), "
        "theta2 relative to link 1.");

  OptionsClass<SixRAnalyticOptions>(m, "SixRAnalyticOptions", "Analytic 6R options.")
      IKLAB_FIELD(SixRAnalyticOptions, common)
      IKLAB_FIELD(SixRAnalyticOptions, geometry_tolerance);
  SolverClass<SixRAnalyticSolver, SixRAnalyticOptions>(
      m, "SixRAnalyticSolver", "Closed form of 6R arms with a spherical wrist.");
  py::class_<SixRArm, std::shared_ptr<SixRArm>>(m, "SixRArm",
                                                "All closed-form solutions of a 6R arm.")
      .def_static("create",
                  [](const Model& model, SiteArg site, double tolerance) {
                    std::string why;
                    auto arm = SixRArm::Create(model, SiteOf(model, site), &why, tolerance);
                    if (arm == nullptr) throw std::invalid_argument("SixRArm: " + why);
                    return std::const_pointer_cast<SixRArm>(arm);
                  },
                  py::arg("model"), py::arg("site"),
                  py::arg("tolerance") = SixRArm::kDefaultTolerance,
                  "Reads the chain root -> site of model (six revolute coordinates) and "
                  "detects its family. tolerance: the geometry tests' tolerance in "
                  "(0, 1e-3] (axes parallel when |h_i x h_j| <= tolerance). Raises "
                  "ValueError with the reason when the chain is not a supported 6R arm "
                  "(spherical wrist or three parallel axes), or for a bad site or "
                  "tolerance.")
      .def_property_readonly("family",
                             [](const SixRArm& arm) { return SixRFamilyName(arm.family()); },
                             "'spherical wrist' or 'three parallel axes'.")
      .def("all_solutions",
           [](const SixRArm& arm, PoseArg X_WT) {
             const SixRSolutions s = arm.AllSolutions(ToPose(X_WT, "X_WT"));
             py::list out;
             for (int i = 0; i < s.num_solutions; ++i) {
               out.append(py::make_tuple(Eigen::VectorXd(s.solutions[i].q),
                                         s.solutions[i].within_limits));
             }
             return out;
           },
           py::arg("X_WT"), "[(q, within_limits), ...] for the site pose X_WT.");
}

// Analytic solvers: the Tolani limb IK (Tolani, Goswami & Badler 2000) and
// its Solver.
void BindTolaniLimbIk(py::module_& m) {
  py::enum_<SwivelChoice>(m, "SwivelChoice")
      .value("LONGEST_ARC_MIDPOINT", SwivelChoice::kLongestArcMidpoint)
      .value("CLOSEST_TO_DESIRED", SwivelChoice::kClosestToDesired);
  py::enum_<LimbIkOptions::PsiChoice>(m, "PsiChoice")
      .value("DESIRED", LimbIkOptions::PsiChoice::kDesired)
      .value("LOWEST_WRIST", LimbIkOptions::PsiChoice::kLowestWrist)
      .value("HIGHEST_WRIST", LimbIkOptions::PsiChoice::kHighestWrist)
      .value("CLOSEST_WRIST", LimbIkOptions::PsiChoice::kClosestWrist);
  py::class_<LimbIkOptions>(m, "LimbIkOptions", "Options of the Tolani limb IK.")
      .def(py::init([](py::kwargs kwargs) {
        py::object object = py::cast(LimbIkOptions{});
        for (const auto& item : kwargs) {
          SetOption(object, item.first.cast<std::string>(), item.second, "LimbIkOptions");
        }
        return object.cast<LimbIkOptions>();
      }))
      IKLAB_FIELD(LimbIkOptions, respect_limits) .def_readwrite("swivel_choice", &LimbIkOptions::swivel_choice,
                     "How to pick the swivel angle phi among the valid ones: SwivelChoice.LONGEST_ARC_MIDPOINT (midpoint of the longest valid arc, Tolani sec. 3.2.4) or CLOSEST_TO_DESIRED (the valid phi closest to desired_swivel, or to the phi of desired_elbow when use_desired_elbow).")
      IKLAB_FIELD(LimbIkOptions, desired_swivel) IKLAB_FIELD(LimbIkOptions, use_desired_elbow)
      IKLAB_FIELD(LimbIkOptions, desired_elbow) IKLAB_FIELD(LimbIkOptions, swivel_axis)
      IKLAB_FIELD(LimbIkOptions, desired_psi) .def_readwrite("psi_choice", &LimbIkOptions::psi_choice,
                     "Partial orientation: how psi is chosen (sec. 3.3): PsiChoice.DESIRED (desired_psi), LOWEST_WRIST / HIGHEST_WRIST (Eq. 11, the psi minimizing / maximizing the wrist height up_axis . w(psi)) or CLOSEST_WRIST (Eq. 12, the psi minimizing ||w(psi) - desired_wrist||).")
      IKLAB_FIELD(LimbIkOptions, up_axis) IKLAB_FIELD(LimbIkOptions, desired_wrist)
      IKLAB_FIELD(LimbIkOptions, aiming_theta4)
      IKLAB_FIELD(LimbIkOptions, parameter_samples)
      IKLAB_FIELD(LimbIkOptions, refine_iterations);
  py::enum_<LimbIkStatus>(m, "LimbIkStatus")
      .value("SOLVED", LimbIkStatus::kSolved)
      .value("UNREACHABLE", LimbIkStatus::kUnreachable)
      .value("LIMITS_INFEASIBLE", LimbIkStatus::kLimitsInfeasible);
  py::class_<LimbSolution>(m, "LimbSolution")
      .def_readonly("status", &LimbSolution::status,
                    "LimbIkStatus: SOLVED, UNREACHABLE or LIMITS_INFEASIBLE.")
      .def_property_readonly("message", [](const LimbSolution& s) { return std::string(s.message); })
      .def_readonly("q", &LimbSolution::q, "theta1 ... theta7 (radians) of the answer; status and message say what it is.")
      .def_readonly("swivel", &LimbSolution::swivel)
      .def_readonly("elbow_root", &LimbSolution::elbow_root,
                    "Chosen elbow root (index into the roots of Eq. 5; for aiming, which crossing of the aim line with the sphere |x| = |target|, 0 the farther).")
      .def_readonly("shoulder_family", &LimbSolution::shoulder_family,
                    "Chosen Euler family (0 or 1) of the shoulder S1.")
      .def_readonly("wrist_family", &LimbSolution::wrist_family,
                    "Chosen Euler family (0 or 1) of the wrist S2.")
      .def_readonly("iterations", &LimbSolution::iterations)
      .def_readonly("reduced", &LimbSolution::reduced);
  py::class_<TolaniLimbIk>(m, "TolaniLimbIk",
                           "Analytic IK of a 7-DOF limb (Tolani et al. 2000).")
      .def(py::init<const LimbGeometry&>(), py::arg("geometry"))
      .def_property_readonly("lower", &TolaniLimbIk::lower,
                             "Lower limits of theta1 ... theta7 (radians).")
      .def_property_readonly("upper", &TolaniLimbIk::upper,
                             "Upper limits of theta1 ... theta7 (radians).")
      .def("forward",
           [](const TolaniLimbIk& ik, Vector7Arg q) {
             return PoseToArray(ik.Forward(ToVector(q, "q", 7)));
           },
           py::arg("q"),
           "Eq. (3): the pose (4x4) of S2's distal frame in the limb frame at q = "
           "(theta1, ..., theta7).")
      .def("elbow", [](const TolaniLimbIk& ik, Vector7Arg q) {
        return ik.Elbow(ToVector(q, "q", 7));
      }, py::arg("q"), "Elbow position (F's origin) in the limb frame at q (7 values).")
      .def("solve_pose",
           [](const TolaniLimbIk& ik, PoseArg G_site, PoseArg E,
              const LimbIkOptions& options) {
             return ik.SolvePose(ToPose(G_site, "G_site"),
                                 E.is_none() ? Eigen::Isometry3d::Identity() : ToPose(E, "E"),
                                 options);
           },
           py::arg("G_site"), py::arg("E") = py::none(), py::arg("options") = LimbIkOptions{},
           "Position + orientation goal (Tables 2, 5): the site with pose E in the "
           "wrist frame (default identity) at G_site in the limb frame (4x4 or "
           "(position, quaternion w x y z)). Returns a LimbSolution.")
      .def("solve_position",
           [](const TolaniLimbIk& ik, Vector3Arg target, Vector3Arg p_site,
              Vector3Arg wrist_angles, const LimbIkOptions& options) {
             return ik.SolvePosition(ToVector3(target, "target"), ToVector3(p_site, "p_site"),
                                     ToVector3(wrist_angles, "wrist_angles"), options);
           },
           py::arg("target"), py::arg("p_site"), py::arg("wrist_angles"),
           py::arg("options") = LimbIkOptions{},
           "Position goal (sec. 3.2.3; Tables 2, 4): the site at offset p_site in the "
           "wrist frame reaches target (limb frame), with the wrist angles (theta5, "
           "theta6, theta7) given. Returns a LimbSolution.");
  py::enum_<TolaniLimbOptions::WristAngles>(m, "TolaniWristAngles")
      .value("MID_LIMITS", TolaniLimbOptions::WristAngles::kMidLimits)
      .value("START", TolaniLimbOptions::WristAngles::kStart)
      .value("GIVEN", TolaniLimbOptions::WristAngles::kGiven);
  OptionsClass<TolaniLimbOptions>(m, "TolaniLimbOptions", "Tolani limb solver options.")
      IKLAB_FIELD(TolaniLimbOptions, common)
      IKLAB_FIELD(TolaniLimbOptions, ik) .def_readwrite("wrist", &TolaniLimbOptions::wrist,
                     "Wrist angles of position-only and aiming goals: TolaniWristAngles.MID_LIMITS (middle of the wrist limits), START (those of q0, clamped into the bounds) or GIVEN (wrist_angles).")
      .def_readwrite("wrist_angles", &TolaniLimbOptions::wrist_angles,
                     "theta5, theta6, theta7 (radians) held by position-only and aiming "
                     "goals when wrist is TolaniWristAngles.GIVEN.")
      IKLAB_FIELD(TolaniLimbOptions, fallback);
  SolverClass<TolaniLimbSolver, TolaniLimbOptions>(
      m, "TolaniLimbSolver", "The Tolani limb IK as a Solver of any SRS chain's problem.");
}

// An SRS chain of a model: the whole one-parameter family of solutions.
void BindSrsArm(py::module_& m) {
  py::class_<SrsBranch>(m, "SrsBranch")
      .def_property_readonly("theta", [](const SrsBranch& b) { return Eigen::VectorXd(b.theta); })
      .def_readonly("elbow_root", &SrsBranch::elbow_root)
      .def_readonly("shoulder_family", &SrsBranch::shoulder_family,
                    "Euler family (0 or 1) of S1: the shoulder flip.")
      .def_readonly("wrist_family", &SrsBranch::wrist_family,
                    "Euler family (0 or 1) of S2: the wrist flip.")
      .def_readonly("within_limits", &SrsBranch::within_limits);
  py::class_<SrsSolutions>(m, "SrsSolutions")
      .def_property_readonly("num_elbow_roots", &SrsSolutions::num_elbow_roots)
      .def("theta4", &SrsSolutions::theta4, py::arg("root"),
           "theta4 of elbow root `root` (0 <= root < num_elbow_roots), in (-pi, pi] "
           "(shifted into its limits where possible).")
      .def("elbow_within_limits", &SrsSolutions::elbow_within_limits, py::arg("root"),
           "True if theta4 of elbow root `root` is within its limits.")
      .def("valid_swivel",
           [](const SrsSolutions& s) {
             const SwivelIntervals valid = s.Valid();
             std::vector<std::pair<double, double>> out;
             for (int i = 0; i < valid.size(); ++i) out.emplace_back(valid[i].lo, valid[i].hi);
             return out;
           },
           "[(lo, hi), ...]: the swivel angles with a branch within the limits.")
      .def("branches",
           [](const SrsSolutions& s, double phi) {
             std::array<SrsBranch, 8> branches;
             const int count = s.Branches(phi, &branches);
             return std::vector<SrsBranch>(branches.begin(), branches.begin() + count);
           },
           py::arg("phi"), "Every elbow/shoulder/wrist branch at swivel angle phi.");
  py::class_<SrsArm, std::shared_ptr<SrsArm>>(
      m, "SrsArm", "A spherical-shoulder/revolute-elbow/spherical-wrist chain of a model.")
      .def_static("create",
                  [](const Model& model, SiteArg site, double tolerance) {
                    std::string why;
                    auto arm = SrsArm::Create(model, SiteOf(model, site), &why, tolerance);
                    if (arm == nullptr) throw std::invalid_argument("SrsArm: " + why);
                    return std::const_pointer_cast<SrsArm>(arm);
                  },
                  py::arg("model"), py::arg("site"),
                  py::arg("tolerance") = SrsArm::kDefaultTolerance,
                  "Reads the chain root -> site (the tip) of model as an SRS arm in "
                  "Tolani's limb form. tolerance: geometry tolerance in (0, 1e-3]. "
                  "Raises ValueError with the reason when the chain is not SRS, or for a "
                  "bad site or tolerance.")
      .def_property_readonly("description", &SrsArm::description)
      .def_property_readonly("geometry", &SrsArm::geometry)
      .def_property_readonly("coordinates",
                             [](const SrsArm& arm) {
                               std::vector<int> out;
                               for (int k = 0; k < 7; ++k) out.push_back(arm.coordinate(k));
                               return out;
                             },
                             "Model coordinate of theta1 ... theta7 (shoulder to wrist).")
      .def("forward",
           [](const SrsArm& arm, Vector7Arg theta) {
             return PoseToArray(arm.Forward(ToVector(theta, "theta", 7)));
           },
           py::arg("theta"), "Site pose in the arm's base frame for the 7 arm angles.")
      .def("all_solutions",
           [](const SrsArm& arm, PoseArg X_BT) {
             return arm.AllSolutions(ToPose(X_BT, "X_BT"));
           },
           py::arg("X_BT"), "The swivel intervals and branches for a site pose in the base frame.");
}

// Wrappers: random restarts, paths and trajectories.
void BindRestartsAndTrajectories(py::module_& m) {
  OptionsClass<RestartOptions>(m, "RestartOptions", "Random restart options.")
      IKLAB_FIELD(RestartOptions, max_attempts)
      IKLAB_FIELD(RestartOptions, time_budget_seconds) IKLAB_FIELD(RestartOptions, seed);
  py::class_<RestartSolver, Solver, std::shared_ptr<RestartSolver>>(
      m, "RestartSolver", "Any solver with random restarts within the bounds.")
      .def(py::init([](SolverPtr inner, OrNoneArg<RestartOptions> options, py::kwargs kwargs) {
             return std::make_shared<RestartSolver>(
                 std::move(inner), MakeOptions<RestartOptions>("RestartSolver", options, kwargs));
           }),
           py::arg("inner"), py::arg("options") = py::none())
      .def_property_readonly("options", [](const RestartSolver& s) { return s.options(); },
                             "A copy of the RestartOptions this solver was made with.");
  py::class_<HermitePathSolver, Solver, std::shared_ptr<HermitePathSolver>>(
      m, "HermitePathSolver",
      "Walks the goals from the start pose along a Hermite path in `frames` steps.")
      .def(py::init([](SolverPtr inner, int frames) {
             return std::make_shared<HermitePathSolver>(std::move(inner), frames);
           }),
           py::arg("inner"), py::arg("frames"))
      .def_property_readonly("frames", &HermitePathSolver::frames,
                             "Number of steps along the path.");

  m.def("linear_path",
        [](Vector3Arg start, Vector3Arg end) {
          return LinearPath(ToVector3(start, "start"), ToVector3(end, "end"));
        },
        py::arg("start"), py::arg("end"), "s in [0, 1] -> point.");
  m.def("hermite_path",
        [](Vector3Arg start, Vector3Arg end, Vector3Arg start_tangent, Vector3Arg end_tangent) {
          return HermitePath(ToVector3(start, "start"), ToVector3(end, "end"),
                             start_tangent.is_none() ? Eigen::Vector3d::Zero()
                                                     : ToVector3(start_tangent, "start_tangent"),
                             end_tangent.is_none() ? Eigen::Vector3d::Zero()
                                                   : ToVector3(end_tangent, "end_tangent"));
        },
        py::arg("start"), py::arg("end"), py::arg("start_tangent") = py::none(),
        py::arg("end_tangent") = py::none(),
        "The cubic Hermite curve s in [0, 1] -> point, p(s) = h00 start + h10 "
        "start_tangent + h01 end + h11 end_tangent. Zero tangents (the default) give "
        "the straight line with eased spacing 3s^2 - 2s^3.");
  m.def("move_position_goal", &MovePositionGoal, py::arg("goal"), py::arg("path"),
        "A goal path moving `goal`'s target along `path` (s -> point).");
  m.def("solve_trajectory",
        [](const Solver& solver, Problem* problem, VectorNqArg q0, int num_frames,
           const GoalPath& path) {
          const Eigen::VectorXd start = ToVector(q0, "q0", problem->nq());
          SolveGuard guard(*problem);
          // Between two frames no solve reads the problem: the path may move
          // its goals (goal.target = ... in a Python path), so the guard is
          // lifted while the path runs.
          const GoalPath unguarded = [&guard, &path](int frame, double s, Problem* p) {
            py::gil_scoped_acquire gil;
            guard.Pause();
            try {
              path(frame, s, p);
            } catch (...) {
              guard.Resume();
              throw;
            }
            guard.Resume();
          };
          py::gil_scoped_release release;  // a Python path takes the GIL back
          return SolveTrajectory(solver, problem, start, num_frames, unguarded);
        },
        py::arg("solver"), py::arg("problem"), py::arg("q0"), py::arg("num_frames"),
        py::arg("path"),
        "Solves frame 1..num_frames, each from the previous answer, after "
        "path(frame, s, problem) moved the goals.");
}

// Batch solving: one problem per target row or per Problem, without the GIL.
void BindBatch(py::module_& m) {
  py::class_<BatchResult>(m, "BatchResult", "Per-item outcomes of solve_batch.")
      .def_property_readonly("q", [](py::object self) {
        BatchResult& r = self.cast<BatchResult&>();
        return py::array_t<double>({r.q.rows(), r.q.cols()}, r.q.data(), self);
      }, "(B, nq) answers (a view, no copy).")
      .def_property_readonly("status", [](const BatchResult& r) { return StatusArray(r.status); },
                             "(B,) SolveStatus values as int8.")
      .def_property_readonly("converged", [](const BatchResult& r) {
        py::array_t<bool> out(static_cast<py::ssize_t>(r.status.size()));
        for (size_t i = 0; i < r.status.size(); ++i) {
          out.mutable_at(i) = r.status[i] == SolveStatus::kConverged;
        }
        return out;
      }, "(B,) bool: status == SolveStatus.CONVERGED.")
      .def_property_readonly("position_error", [](py::object self) {
        BatchResult& r = self.cast<BatchResult&>();
        return py::array_t<double>(r.position_error.size(), r.position_error.data(), self);
      })
      .def_property_readonly("angle_error", [](py::object self) {
        BatchResult& r = self.cast<BatchResult&>();
        return py::array_t<double>(r.angle_error.size(), r.angle_error.data(), self);
      })
      .def_property_readonly("microseconds", [](py::object self) {
        BatchResult& r = self.cast<BatchResult&>();
        return py::array_t<double>(r.microseconds.size(), r.microseconds.data(), self);
      })
      .def_property_readonly("iterations", [](py::object self) {
        BatchResult& r = self.cast<BatchResult&>();
        return py::array_t<int>(r.iterations.size(), r.iterations.data(), self);
      })
      .def_readonly("method", &BatchResult::method,
                    "'simd-bounded-lm (<ISA>, <lanes> lanes)' when the SIMD batch "
                    "solver ran, else 'scalar: <why not>'.")
      .def("__len__", [](const BatchResult& r) { return r.status.size(); });
  m.def("solve_batch",
        [](const Problem& problem, BatchTargetsArg targets, BatchQArg q0, const Solver& solver,
           ThreadsArg threads, int goal) {
          BatchOptions options;
          options.threads = DefaultThreads(threads);
          options.goal = goal;
          if (py::isinstance<py::list>(targets) || py::isinstance<py::tuple>(targets)) {
            const py::sequence items = py::reinterpret_borrow<py::sequence>(targets);
            std::vector<std::shared_ptr<const Problem>> problems;
            bool all_problems = items.size() > 0;
            for (py::handle item : items) {
              if (!py::isinstance<Problem>(item)) {
                all_problems = false;
                break;
              }
              problems.push_back(item.cast<std::shared_ptr<Problem>>());
            }
            if (all_problems) {
              const auto q = AsArray(q0, "q0", {static_cast<long>(problems.size()),
                                                problem.nq()},
                                     "(B, nq) = (" + std::to_string(problems.size()) + ", " +
                                         std::to_string(problem.nq()) + ")");
              const Eigen::Map<const RowMatrixXd> q_map(q.data(), q.shape(0), q.shape(1));
              std::vector<const Problem*> solved;
              for (const auto& p : problems) solved.push_back(p.get());
              const SolveGuard guard(std::move(solved));
              py::gil_scoped_release release;
              return SolveBatch(solver, problems, q_map, options);
            }
          }
          const auto t = AsArray(targets, "targets", {-1, -1},
                                 "(B, 7) (x, y, z, qw, qx, qy, qz) or (B, 3), or a list "
                                 "of B Problems");
          if (t.shape(1) != 7 && t.shape(1) != 3) {
            throw py::value_error(
                "targets must have shape (B, 7) (x, y, z, qw, qx, qy, qz) or (B, 3), got (" +
                std::to_string(t.shape(0)) + ", " + std::to_string(t.shape(1)) + ")");
          }
          const auto q = AsArray(q0, "q0", {static_cast<long>(t.shape(0)), problem.nq()},
                                 "(B, nq) = (" + std::to_string(t.shape(0)) + ", " +
                                     std::to_string(problem.nq()) + ")");
          const Eigen::Map<const RowMatrixXd> t_map(t.data(), t.shape(0), t.shape(1));
          const Eigen::Map<const RowMatrixXd> q_map(q.data(), q.shape(0), q.shape(1));
          const SolveGuard guard(problem);
          py::gil_scoped_release release;
          return SolveBatch(solver, problem, t_map, q_map, options);
        },
        py::arg("problem"), py::arg("targets"), py::arg("q0"), py::arg("solver"),
        py::arg("threads") = py::none(), py::arg("goal") = -1,
        "Solves one problem per row of targets (B x 7 poses: position, quaternion "
        "w x y z; or B x 3 positions) replacing the template problem's pose (or "
        "position) goal, or one per Problem in a list, from q0[i]; on `threads` "
        "threads (default: all cores), without the GIL. The answers do not "
        "depend on the thread count.");
}

// The solver registry (solvers/registry.h): every name the command line,
// studies and the benchmark accept.
void BindRegistry(py::module_& m) {
  py::class_<SolverEntry>(m, "SolverEntry",
                          "A registered solver: name, family, what it "
                          "minimizes, what it accepts, its paper.")
      .def_readonly("name", &SolverEntry::name)
      .def_property_readonly("family",
                             [](const SolverEntry& e) { return SolverFamilyName(e.family); },
                             "'optimization', 'constrained', 'differential' or 'analytic'.")
      .def_readonly("summary", &SolverEntry::summary)
      .def_readonly("accepts", &SolverEntry::accepts)
      .def_readonly("reference", &SolverEntry::reference)
      .def_readonly("hard_constraints", &SolverEntry::hard_constraints)
      .def_readonly("own_restarts", &SolverEntry::own_restarts)
      // A copy: the registry is immutable (a reference would let Python
      // change every later solver's defaults).
      .def_property_readonly("defaults",
                             [](const SolverEntry& e) { return e.defaults; })
      .def("__repr__", [](const SolverEntry& e) {
        return "<SolverEntry " + e.name + " (" + SolverFamilyName(e.family) + ")>";
      });
  m.def("solver_registry", &SolverRegistry, py::return_value_policy::reference,
        "Every registered solver, by family (optimization, constrained, "
        "differential, analytic).");
  m.def("solver_names", [] {
    std::vector<std::string> names;
    for (const SolverEntry& e : SolverRegistry()) names.push_back(e.name);
    return names;
  }, "The registered solver names, in registry order.");
  m.def("make_solver",
        [](const std::string& name, OrNoneArg<SolveOptions> common) -> SolverPtr {
          const SolverEntry& entry = SolverNamed(name);
          if (common.is_none()) return entry.make(entry.defaults);
          if (!py::isinstance<SolveOptions>(common)) {
            throw py::type_error("make_solver: common must be a SolveOptions or None, got " +
                                 std::string(py::str(py::type::of(common).attr("__name__"))));
          }
          const SolveOptions o = common.cast<SolveOptions>();
          Validate(o, "make_solver: common");
          return entry.make(o);
        },
        py::arg("name"), py::arg("common") = py::none(),
        "The registered solver `name` with its documented defaults, or with "
        "`common` (a SolveOptions) as its common settings. Raises ValueError "
        "for an unknown name, listing the known ones.");
}

#undef IKLAB_FIELD

}  // namespace

void BindSolvers(py::module_& m) {
  BindSolveStatusAndResult(m);
  BindSolveOptionsAndSolver(m);
  BindOptimizationSolvers(m);
  BindDifferentialSolvers(m);
  BindTwoLinkAndSixRSolvers(m);
  BindTolaniLimbIk(m);
  BindSrsArm(m);
  BindRestartsAndTrajectories(m);
  BindBatch(m);
  BindRegistry(m);
}

}  // namespace iklab::python
