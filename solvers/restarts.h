#ifndef IKLAB_SOLVERS_RESTARTS_H_
#define IKLAB_SOLVERS_RESTARTS_H_

/// @file
/// Random restarts for any Solver: the first attempt starts from q0, each
/// further one from a pose drawn uniformly within the problem's bounds, until
/// an attempt converges or the attempt cap or time budget runs out (the
/// usual remedy for local minima, as in TRAC-IK's random restarts of KDL).
/// Deterministic: the same seed gives bit-identical results on one build.

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the restart wrapper.
struct RestartOptions {
  /// Largest number of solves, the first from q0 included. ≥ 1.
  int max_attempts = 20;
  /// Wall-time cap over all attempts, seconds; ≤ 0 means none. Checked
  /// before each attempt (each attempt also obeys its solver's own budget),
  /// so the wrapper returns within this budget plus one attempt — bounded by
  /// the inner solver's own budget, which callers should therefore set (the
  /// benchmark gives both the same budget: at most twice the budget in all).
  double time_budget_seconds = 0.0;
  /// Seed of the std::mt19937_64 that draws the restart poses.
  std::uint64_t seed = 1;

  /// True if the fields are in range; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// A pose drawn uniformly within `bounds`: RandomConfiguration(bounds.lower,
/// bounds.upper, rng) (framework/random_configuration.h, which states the
/// rule for unbounded coordinates).
Eigen::VectorXd RandomPose(const Bounds& bounds, std::mt19937_64* rng);

/// Solves with `solver` from q0, then from random poses, and returns the
/// first converged Result — or, if none converges, the attempt with the
/// lowest final potential. Coordinates with an infinite bound are drawn
/// from [−π, π] intersected with the bounds.
///
/// The returned Result is that attempt's, except: `attempts` = number of
/// solves made, `iterations`, `function_evaluations`, `jacobian_evaluations`
/// and `wall_time_seconds` are totals over all attempts, `initial_potential`
/// is that of the first attempt, and `solver` gets the suffix "+restarts".
/// kInvalidInput from the first attempt is returned at once; invalid
/// RestartOptions give kInvalidInput too.
Result SolveWithRestarts(const Solver& solver, const Problem& problem,
                         const Eigen::VectorXd& q0,
                         const RestartOptions& options);

/// Solver interface around SolveWithRestarts. Name "<inner>+restarts".
class RestartSolver final : public Solver {
 public:
  /// @throws std::invalid_argument if `inner` is null.
  RestartSolver(std::shared_ptr<const Solver> inner, RestartOptions options);
  std::string name() const override;
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  void Prepare(const Problem& problem) const override {
    inner_->Prepare(problem);
  }
  const RestartOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Solver> inner_;
  RestartOptions options_;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_RESTARTS_H_
