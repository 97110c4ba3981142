#include "constraints/joint_goals.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

std::vector<int> CheckedCoordinates(const Model& model,
                                    std::vector<int> coordinates,
                                    const char* kind) {
  if (coordinates.empty()) {
    ThrowInvalidArgument(kind, ": coordinates is empty; expected at least one "
                               "index into q");
  }
  std::vector<bool> seen(model.nq(), false);
  for (const int j : coordinates) {
    if (j < 0 || j >= model.nq()) {
      ThrowInvalidArgument(kind, ": coordinate ", j, " is outside [0, ",
                           model.nq(), ")");
    }
    if (seen[j]) {
      ThrowInvalidArgument(kind, ": coordinate ", j, " (", model.dof_name(j),
                           ") is listed twice");
    }
    seen[j] = true;
  }
  return coordinates;
}

void CheckSize(Eigen::Index size, size_t expected, const char* kind,
               const char* what) {
  if (size != static_cast<Eigen::Index>(expected)) {
    ThrowInvalidArgument(kind, ": ", what, " has ", size,
                         " entries; expected one per coordinate (", expected,
                         ")");
  }
}

int RangeRows(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  int n = 0;
  for (Eigen::Index i = 0; i < lower.size() && i < upper.size(); ++i) {
    n += (std::isfinite(lower[i]) ? 1 : 0) + (std::isfinite(upper[i]) ? 1 : 0);
  }
  return n;
}

// The joint goals' names list their coordinates' names.
std::string CoordinateNames(const Model& model,
                            const std::vector<int>& coordinates) {
  std::string names;
  for (size_t k = 0; k < coordinates.size() && k < 3; ++k) {
    const int j = coordinates[k];
    if (k > 0) names += ", ";
    names += j >= 0 && j < model.nq() ? model.dof_name(j) : std::to_string(j);
  }
  if (coordinates.size() > 3) names += ", ...";
  return names;
}

}  // namespace

// --------------------------------------------------------- JointPostureGoal

JointPostureGoal::JointPostureGoal(const Model& model,
                                   std::vector<int> coordinates,
                                   const Eigen::VectorXd& targets,
                                   double weight)
    : Goal(static_cast<int>(coordinates.size()), weight,
           "posture(" + CoordinateNames(model, coordinates) + ")"),
      nq_(model.nq()),
      coordinates_(CheckedCoordinates(model, std::move(coordinates),
                                      "JointPostureGoal")),
      targets_(targets) {
  CheckSize(targets.size(), coordinates_.size(), "JointPostureGoal",
            "targets");
  internal::CheckFiniteVector(targets, name(), "targets");
}

void JointPostureGoal::DoCheckModel(const Model& model) const {
  if (model.nq() != nq_) {
    ThrowInvalidArgument(name(), ": built for a model with nq = ", nq_,
                         "; this model has nq = ", model.nq());
  }
}

void JointPostureGoal::DoEvaluate(const Model&, const Data&,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  Eigen::Ref<Eigen::VectorXd> residual,
                                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  if (jacobian != nullptr) jacobian->setZero();
  for (size_t k = 0; k < coordinates_.size(); ++k) {
    const int j = coordinates_[k];
    residual[k] = targets_[k] - q[j];  // r_k = t_k − q_j
    if (jacobian != nullptr) (*jacobian)(k, j) = -1.0;
  }
}

GoalError JointPostureGoal::Error(const Model&, const Data&) const {
  return GoalError{};
}

GoalError JointPostureGoal::ErrorAt(
    const Model&, const Data&, const Eigen::Ref<const Eigen::VectorXd>& q) const {
  GoalError error;
  for (size_t k = 0; k < coordinates_.size(); ++k) {
    error.angle =
        std::max(error.angle, std::abs(targets_[k] - q[coordinates_[k]]));
  }
  return error;
}

// ----------------------------------------------------------- JointRangeGoal

JointRangeGoal::JointRangeGoal(const Model& model, std::vector<int> coordinates,
                               const Eigen::VectorXd& lower,
                               const Eigen::VectorXd& upper, double weight)
    : InequalityGoal(RangeRows(lower, upper), weight,
                     "range(" + CoordinateNames(model, coordinates) + ")"),
      nq_(model.nq()),
      coordinates_(CheckedCoordinates(model, std::move(coordinates),
                                      "JointRangeGoal")),
      lower_(lower),
      upper_(upper) {
  CheckSize(lower.size(), coordinates_.size(), "JointRangeGoal", "lower");
  CheckSize(upper.size(), coordinates_.size(), "JointRangeGoal", "upper");
  for (Eigen::Index k = 0; k < lower.size(); ++k) {
    if (std::isnan(lower[k]) || std::isnan(upper[k]) || lower[k] > upper[k] ||
        lower[k] == kInfinity || upper[k] == -kInfinity) {
      ThrowInvalidArgument(name(), ": coordinate ", coordinates_[k],
                           " needs lower <= upper without NaN; got lower ",
                           lower[k], ", upper ", upper[k]);
    }
  }
  if (num_constraints() == 0) {
    ThrowInvalidArgument(name(), ": every bound is infinite; expected at "
                                 "least one finite bound");
  }
}

void JointRangeGoal::DoCheckModel(const Model& model) const {
  if (model.nq() != nq_) {
    ThrowInvalidArgument(name(), ": built for a model with nq = ", nq_,
                         "; this model has nq = ", model.nq());
  }
}

void JointRangeGoal::DoEvaluateConstraint(
    const Model&, const Data&, const Eigen::Ref<const Eigen::VectorXd>& q,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  if (jacobian != nullptr) jacobian->setZero();
  int row = 0;
  for (size_t k = 0; k < coordinates_.size(); ++k) {
    const int j = coordinates_[k];
    if (std::isfinite(upper_[k])) {  // q_j − u ≤ 0
      if (jacobian != nullptr) (*jacobian)(row, j) = 1.0;
      value[row++] = q[j] - upper_[k];
    }
    if (std::isfinite(lower_[k])) {  // l − q_j ≤ 0
      if (jacobian != nullptr) (*jacobian)(row, j) = -1.0;
      value[row++] = lower_[k] - q[j];
    }
  }
}

GoalError JointRangeGoal::Error(const Model&, const Data&) const {
  return GoalError{};
}

GoalError JointRangeGoal::ErrorAt(
    const Model&, const Data&, const Eigen::Ref<const Eigen::VectorXd>& q) const {
  GoalError error;
  for (size_t k = 0; k < coordinates_.size(); ++k) {
    const double qj = q[coordinates_[k]];
    error.angle = std::max({error.angle, qj - upper_[k], lower_[k] - qj});
  }
  return error;
}

GoalErrorParts JointPostureGoal::error_parts() const {
  return {false, true, false};
}

std::vector<GoalParameter> JointPostureGoal::Parameters() const {
  std::vector<GoalParameter> out;
  for (std::size_t k = 0; k < coordinates_.size(); ++k) {
    out.push_back({"target_q" + std::to_string(coordinates_[k]), targets_[k]});
  }
  return out;
}

GoalErrorParts JointRangeGoal::error_parts() const {
  return {false, true, false};
}

std::vector<GoalParameter> JointRangeGoal::Parameters() const {
  std::vector<GoalParameter> out;
  for (std::size_t k = 0; k < coordinates_.size(); ++k) {
    out.push_back({"lower_q" + std::to_string(coordinates_[k]), lower_[k]});
  }
  for (std::size_t k = 0; k < coordinates_.size(); ++k) {
    out.push_back({"upper_q" + std::to_string(coordinates_[k]), upper_[k]});
  }
  return out;
}

std::vector<BoundedQuantity> JointRangeGoal::Quantities(
    const Model&, const Data&,
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  if (q.size() != nq_) {
    ThrowInvalidArgument(name(), ": q has ", q.size(), " entries; expected ",
                         nq_);
  }
  std::vector<BoundedQuantity> out;
  for (std::size_t k = 0; k < coordinates_.size(); ++k) {
    out.push_back({"q" + std::to_string(coordinates_[k]), q[coordinates_[k]],
                   lower_[k], upper_[k], true});
  }
  return out;
}

}  // namespace iklab
