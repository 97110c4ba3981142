#ifndef IKLAB_CONSTRAINTS_COMPOSITE_GOALS_H_
#define IKLAB_CONSTRAINTS_COMPOSITE_GOALS_H_

/// @file
/// Goals made of goals: Jack's weighted sums and disjunctive goals (Tolani et
/// al. §2.4, "Multiple goals").

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"

namespace iklab {

/// Weighted sum of goals, G = Σ w_i P_i (Tolani et al. §2.4), with the
/// children's own weights as the w_i and P_i = ½‖r_i‖²:
///
///     r = [√w_1 r_1; √w_2 r_2; …],   ∂r/∂q = [√w_1 ∂r_1/∂q; …]
///
/// so ½‖r‖² = Σ ½ w_i ‖r_i‖² and this goal's potential is w Σ w_i P_i with w
/// its own weight (default 1). Error(): the child errors combined by maximum
/// (position, angle, aim), degenerate if any child is.
class WeightedSumGoal final : public Goal {
 public:
  /// @param goals the children (non-null); their weights are the w_i.
  /// @throws std::invalid_argument for an empty list, a null child or a bad
  ///   weight.
  explicit WeightedSumGoal(std::vector<std::shared_ptr<const Goal>> goals,
                           double weight = 1.0);

  const std::vector<std::shared_ptr<const Goal>>& goals() const {
    return goals_;
  }
  bool uses_configuration() const override { return uses_configuration_; }
  /// The union of the children's parts.
  GoalErrorParts error_parts() const override;
  /// The children's parameters, each name prefixed with part<i>_ (i from 0).
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;
  /// As Error(), with q passed to the children's ErrorAt(), so children that
  /// read q (joint goals) report their errors too (Error() has no q and
  /// counts them as 0).
  GoalError ErrorAt(const Model& model, const Data& data,
                    const Eigen::Ref<const Eigen::VectorXd>& q) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;
  void DoCheckModel(const Model& model) const override;

  std::vector<std::shared_ptr<const Goal>> goals_;
  bool uses_configuration_ = false;
};

/// Disjunctive goal, G = min_i P_i (Tolani et al. §2.4: "any of the goals
/// will do"), with P_i = ½ w_i ‖r_i‖² the children's own potentials.
///
/// G is not smooth where two alternatives tie. At any pose the *active*
/// alternative k = argmin_i P_i (ties → lowest index) supplies the residual
/// and Jacobian:
///
///     r = [√w_k r_k; 0],   ∂r/∂q = [√w_k ∂r_k/∂q; 0]
///
/// zero-padded to num_residuals() = max_i num_residuals_i, so ½‖r‖² = G and
/// the gradient is that of the active branch (a valid one-sided gradient).
/// Evaluation computes every alternative's residual (no Jacobian) and then
/// the active one's Jacobian. Error(): the active alternative's error, with
/// active_alternative set.
class DisjunctiveGoal final : public Goal {
 public:
  /// @throws std::invalid_argument for an empty list, a null child or a bad
  ///   weight.
  explicit DisjunctiveGoal(std::vector<std::shared_ptr<const Goal>> goals,
                           double weight = 1.0);

  const std::vector<std::shared_ptr<const Goal>>& goals() const {
    return goals_;
  }

  /// Index of the active alternative at the pose in `data` (argmin of the
  /// children's potentials; lowest index on ties). Allocation-free up to 64
  /// residuals (a heap scratch vector beyond).
  /// @param q the configuration (needed only if a child uses_configuration()).
  int ActiveAlternative(const Model& model, const Data& data,
                        const Eigen::Ref<const Eigen::VectorXd>& q =
                            Eigen::VectorXd()) const;

  bool uses_configuration() const override { return uses_configuration_; }
  /// The union of the children's parts.
  GoalErrorParts error_parts() const override;
  /// The children's parameters, each name prefixed with part<i>_ (i from 0).
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;
  /// As Error(), with q passed to the children's ErrorAt(), so children that
  /// read q (joint goals) report their errors too (Error() has no q and
  /// counts them as 0).
  GoalError ErrorAt(const Model& model, const Data& data,
                    const Eigen::Ref<const Eigen::VectorXd>& q) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;
  void DoCheckModel(const Model& model) const override;
  // Picks the active alternative, using residual.head(n_i) as scratch.
  int SelectActive(const Model& model, const Data& data,
                   const Eigen::Ref<const Eigen::VectorXd>& q,
                   Eigen::Ref<Eigen::VectorXd> scratch) const;

  std::vector<std::shared_ptr<const Goal>> goals_;
  bool uses_configuration_ = false;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_COMPOSITE_GOALS_H_
