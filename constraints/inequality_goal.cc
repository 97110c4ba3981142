#include "constraints/inequality_goal.h"

#include <string>
#include <utility>

#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

InequalityGoal::InequalityGoal(int num_constraints, double weight,
                               std::string name)
    : Goal(num_constraints, weight, std::move(name)) {}

void InequalityGoal::EvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>& q,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  if (value.size() != num_constraints()) {
    ThrowInvalidArgument(name(), ": value has ", value.size(),
                         " entries; expected num_constraints() = ",
                         num_constraints());
  }
  if (jacobian != nullptr && (jacobian->rows() != num_constraints() ||
                              jacobian->cols() != model.nq())) {
    ThrowInvalidArgument(name(), ": jacobian is ", jacobian->rows(), " x ",
                         jacobian->cols(), "; expected ", num_constraints(),
                         " x ", model.nq());
  }
  if (data.num_steps() != model.num_steps()) {
    ThrowInvalidArgument(name(), ": data has ", data.num_steps(),
                         " steps but the model has ", model.num_steps());
  }
  if (uses_configuration() && q.size() != model.nq()) {
    ThrowInvalidArgument(name(), ": q has ", q.size(), " entries; expected ",
                         model.nq());
  }
  DoEvaluateConstraint(model, data, q, value, jacobian);
}

std::vector<BoundedQuantity> InequalityGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  Eigen::VectorXd c(num_constraints());
  EvaluateConstraint(model, data, q, c, nullptr);
  std::vector<BoundedQuantity> out(c.size());
  for (Eigen::Index i = 0; i < c.size(); ++i) {
    out[i].name = "c" + std::to_string(i);
    out[i].value = c[i];
    out[i].upper = 0.0;
  }
  return out;
}

void InequalityGoal::DoEvaluate(const Model& model, const Data& data,
                                const Eigen::Ref<const Eigen::VectorXd>& q,
                                Eigen::Ref<Eigen::VectorXd> residual,
                                Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  DoEvaluateConstraint(model, data, q, residual, jacobian);
  // r = max(0, c): inactive rows (c ≤ 0) have r = 0 and ∂r/∂q = 0.
  for (Eigen::Index i = 0; i < residual.size(); ++i) {
    if (residual[i] <= 0.0) {
      residual[i] = 0.0;
      if (jacobian != nullptr) jacobian->row(i).setZero();
    }
  }
}

}  // namespace iklab
