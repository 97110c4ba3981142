#include "solvers/differential/multi_effector_solver.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "framework/internal/check.h"
#include "solvers/differential/internal/differential_loop.h"
#include "solvers/differential/jacobian_steps.h"

namespace iklab {

using internal::Invalid;

namespace {

class MultiEffectorMethod final : public DifferentialMethod {
 public:
  explicit MultiEffectorMethod(const MultiEffectorOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    const int num_goals = static_cast<int>(problem.goals().size());
    std::vector<int> levels = options_.goal_levels;
    if (levels.empty()) {
      for (int i = 0; i < num_goals; ++i) levels.push_back(i);
    } else if (static_cast<int>(levels.size()) != num_goals) {
      std::ostringstream s;
      s << "MultiEffectorOptions::goal_levels must be empty or have one "
           "entry per goal ("
        << num_goals << "), got " << levels.size();
      return Invalid(why, s.str());
    }
    // Rows in level order (stable within a level), then the regularizers.
    std::vector<int> order(num_goals);
    for (int i = 0; i < num_goals; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return levels[a] < levels[b]; });
    rows_.clear();
    std::vector<RowBlock> blocks;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int goal = order[k];
      const int offset = problem.goal_offset(goal);
      const int size = problem.goals()[goal]->num_residuals();
      if (k == 0 || levels[goal] != levels[order[k - 1]]) {
        blocks.push_back({static_cast<int>(rows_.size()), 0});
      }
      for (int r = 0; r < size; ++r) rows_.push_back(offset + r);
      blocks.back().size += size;
    }
    if (!problem.regularizers().empty()) {
      blocks.push_back({static_cast<int>(rows_.size()), 0});
      for (std::size_t j = 0; j < problem.regularizers().size(); ++j) {
        const int offset = problem.regularizer_offset(static_cast<int>(j));
        const int size = problem.regularizers()[j]->num_residuals();
        for (int r = 0; r < size; ++r) rows_.push_back(offset + r);
        blocks.back().size += size;
      }
    }
    J_.resize(problem.num_residuals(), problem.nq());
    V_.resize(problem.num_residuals());
    step_.Resize(std::move(blocks), problem.nq());
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      J_.row(r) = lin.J.row(rows_[r]);
      V_(r) = lin.V(rows_[r]);
    }
    step_.Compute(J_, V_, options_.singular_value_cutoff, options_.damping,
                  *dq);
    return true;
  }

 private:
  const MultiEffectorOptions& options_;
  std::vector<int> rows_;  // stacked-residual row of each permuted row
  Eigen::MatrixXd J_;
  Eigen::VectorXd V_;
  PrioritizedStep step_;
};

}  // namespace

bool MultiEffectorOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  for (std::size_t i = 0; i < goal_levels.size(); ++i) {
    if (goal_levels[i] < 0) {
      return Invalid(why, "MultiEffectorOptions::goal_levels[", i,
                     "] must be >= 0, got ", goal_levels[i]);
    }
  }
  if (!(singular_value_cutoff >= 0.0 && singular_value_cutoff < 1.0)) {
    return Invalid(why,
                   "MultiEffectorOptions::singular_value_cutoff must be in "
                   "[0, 1), got ",
                   singular_value_cutoff);
  }
  if (!(damping >= 0.0) || !std::isfinite(damping)) {
    return Invalid(
        why, "MultiEffectorOptions::damping must be finite and >= 0, got ",
        damping);
  }
  return true;
}

Result MultiEffectorSolver::Solve(const Problem& problem,
                                  const Eigen::VectorXd& q0) const {
  MultiEffectorMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const MultiEffectorOptions& options) {
  return MultiEffectorSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const MultiEffectorOptions& options) {
  return std::make_unique<MultiEffectorSolver>(options);
}

}  // namespace iklab
