#ifndef IKLAB_SOLVERS_REGISTRY_H_
#define IKLAB_SOLVERS_REGISTRY_H_

/// @file
/// The one table of iklab's solvers: each name ("bounded-lm", "dls",
/// "tolani", …) with its family, what it minimizes or computes, what it
/// accepts, its paper and the factory that makes it. Every front end — the
/// command line (`iklab solvers`), studies (EverySolver, Solvers), the
/// benchmark, reachability maps, the Python module and the reproductions —
/// reads its names from here, so adding a solver means its own files and one
/// entry in registry.cc.
///
///     std::unique_ptr<Solver> s = MakeSolver("dls");           // its defaults
///     SolveOptions common;
///     common.time_budget_seconds = 0.005;
///     std::unique_ptr<Solver> t = MakeSolver("bounded-lm", common);
///     for (const SolverEntry& e : SolverRegistry()) std::cout << e.name;
///
/// A solver with options beyond the common ones is made from its own Options
/// struct (e.g. MakeSolver(DampedLeastSquaresOptions{...}) in
/// solvers/differential/damped_least_squares_solver.h); the registry makes
/// each with that struct's documented defaults.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "solvers/solver.h"

namespace iklab {

/// The solver families of docs/solvers.md, one folder each under solvers/.
enum class SolverFamily {
  /// Unconstrained or box-constrained minimization of the goal potential or
  /// the stacked residual (solvers/optimization/).
  kOptimization,
  /// Nonlinear programming with the problem's hard constraints as
  /// constraints (solvers/constrained/).
  kConstrained,
  /// Iterated linearized steps Δq from the task Jacobian
  /// (solvers/differential/).
  kDifferential,
  /// Closed-form solutions for figures of a given shape
  /// (solvers/analytic/).
  kAnalytic,
};

/// "optimization", "constrained", "differential", "analytic".
const char* SolverFamilyName(SolverFamily family);

/// One registered solver.
struct SolverEntry {
  /// The name used on the command line, in studies and in results.
  std::string name;
  SolverFamily family = SolverFamily::kOptimization;
  /// What it minimizes or computes, in one line.
  std::string summary;
  /// The goals, constraints and figures it takes (others get kInvalidInput
  /// with the reason, or are reported as rejected by a study).
  std::string accepts;
  /// Where the method comes from (paper, section, equation).
  std::string reference;
  /// True when the solver keeps the problem's hard constraints as
  /// constraints; the others solve goals only.
  bool hard_constraints = false;
  /// True when the solver restarts from other starts by itself; the others
  /// can be wrapped in RestartSolver (solvers/restarts.h).
  bool own_restarts = false;
  /// The settings the solver runs with when the caller gives none: its
  /// Options' defaults, except that differential methods get 500 iterations
  /// (first-order steps; 200 is short for them on random targets).
  SolveOptions defaults;
  /// Makes the solver with its Options' documented defaults and `common` as
  /// Options::common. Thread-safe; the solver is independent of the entry.
  std::function<std::unique_ptr<Solver>(const SolveOptions& common)> make;
  /// Empty when the solver can take site `site` of `model` (the analytic
  /// solvers need an arm of their shape); otherwise why not. Cheap enough to
  /// call once per model, not per solve.
  std::function<std::string(const Model& model, int site)> not_applicable;
};

/// Every registered solver, grouped by family in the order of
/// docs/solvers.md. The table is built once, on first use, and never changes.
const std::vector<SolverEntry>& SolverRegistry();

/// The entry called `name`, or nullptr.
const SolverEntry* FindSolver(std::string_view name);

/// The entry called `name`.
/// @throws std::invalid_argument naming `name` and listing the known names.
const SolverEntry& SolverNamed(std::string_view name);

/// Every registered name in registry order, joined by `separator`.
std::string SolverNames(std::string_view separator = ", ");

/// MakeSolver by name, with the entry's defaults or with `common`.
/// @throws std::invalid_argument for an unknown name (see SolverNamed).
std::unique_ptr<Solver> MakeSolver(std::string_view name);
std::unique_ptr<Solver> MakeSolver(std::string_view name,
                                   const SolveOptions& common);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_REGISTRY_H_
