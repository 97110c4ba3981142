#include "constraints/composite_goals.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "framework/internal/check.h"

namespace iklab {

namespace {

using GoalList = std::vector<std::shared_ptr<const Goal>>;

// Validates the children and returns the requested size over them:
// the sum (stacked) or the maximum (padded) of their residual counts.
int ChildResiduals(const GoalList& goals, const char* kind, bool sum) {
  if (goals.empty()) {
    internal::ThrowInvalidArgument(kind, ": needs at least one goal; got none");
  }
  int total = 0;
  for (size_t i = 0; i < goals.size(); ++i) {
    if (goals[i] == nullptr) {
      internal::ThrowInvalidArgument(kind, ": goal ", i, " is null");
    }
    total = sum ? total + goals[i]->num_residuals()
                : std::max(total, goals[i]->num_residuals());
  }
  return total;
}

std::string ChildNames(const char* kind, const GoalList& goals) {
  std::string out = std::string(kind) + "(";
  for (size_t i = 0; i < goals.size(); ++i) {
    if (i) out += ", ";
    out += goals[i] ? goals[i]->name() : "null";
  }
  return out + ")";
}

GoalErrorParts PartsUnion(const GoalList& goals) {
  GoalErrorParts out;
  for (const auto& g : goals) {
    const GoalErrorParts p = g->error_parts();
    out.position |= p.position;
    out.angle |= p.angle;
    out.aim |= p.aim;
  }
  return out;
}

std::vector<GoalParameter> PrefixedParameters(const GoalList& goals) {
  std::vector<GoalParameter> out;
  for (size_t i = 0; i < goals.size(); ++i) {
    for (GoalParameter& p : goals[i]->Parameters()) {
      out.push_back({"part" + std::to_string(i) + "_" + p.name, p.value});
    }
  }
  return out;
}

bool AnyUsesConfiguration(const GoalList& goals) {
  return std::any_of(goals.begin(), goals.end(),
                     [](const auto& g) { return g->uses_configuration(); });
}

}  // namespace

// ---------------------------------------------------------------------------
// WeightedSumGoal

WeightedSumGoal::WeightedSumGoal(GoalList goals, double weight)
    : Goal(ChildResiduals(goals, "weighted_sum", /*sum=*/true), weight,
           ChildNames("weighted_sum", goals)),
      goals_(std::move(goals)),
      uses_configuration_(AnyUsesConfiguration(goals_)) {}

void WeightedSumGoal::DoEvaluate(const Model& model, const Data& data,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 Eigen::Ref<Eigen::VectorXd> residual,
                                 Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  int offset = 0;
  for (const auto& goal : goals_) {
    const int n = goal->num_residuals();
    const double s = std::sqrt(goal->weight());
    auto r = residual.segment(offset, n);
    if (jacobian != nullptr) {
      Eigen::Ref<Eigen::MatrixXd> J = jacobian->middleRows(offset, n);
      goal->Evaluate(model, data, q, r, &J);
      J *= s;  // ∂(√w_i r_i)/∂q = √w_i ∂r_i/∂q
    } else {
      goal->Evaluate(model, data, q, r, nullptr);
    }
    r *= s;
    offset += n;
  }
}

void WeightedSumGoal::DoCheckModel(const Model& model) const {
  for (const auto& goal : goals_) goal->CheckModel(model);
}

namespace {

// The worst of the children's errors, each from error_of(child).
template <typename ErrorOf>
GoalError WorstError(const GoalList& goals, ErrorOf&& error_of) {
  GoalError total;
  for (const auto& goal : goals) {
    const GoalError e = error_of(*goal);
    total.position = std::max(total.position, e.position);
    total.angle = std::max(total.angle, e.angle);
    total.aim = std::max(total.aim, e.aim);
    total.degenerate = total.degenerate || e.degenerate;
  }
  return total;
}

}  // namespace

GoalError WeightedSumGoal::Error(const Model& model, const Data& data) const {
  return WorstError(goals_,
                    [&](const Goal& goal) { return goal.Error(model, data); });
}

GoalError WeightedSumGoal::ErrorAt(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  return WorstError(
      goals_, [&](const Goal& goal) { return goal.ErrorAt(model, data, q); });
}

// ---------------------------------------------------------------------------
// DisjunctiveGoal

DisjunctiveGoal::DisjunctiveGoal(GoalList goals, double weight)
    : Goal(ChildResiduals(goals, "disjunctive", /*sum=*/false), weight,
           ChildNames("disjunctive", goals)),
      goals_(std::move(goals)),
      uses_configuration_(AnyUsesConfiguration(goals_)) {}

int DisjunctiveGoal::SelectActive(const Model& model, const Data& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  Eigen::Ref<Eigen::VectorXd> scratch) const {
  int active = 0;
  double best = 0.0;
  for (size_t i = 0; i < goals_.size(); ++i) {
    const Goal& goal = *goals_[i];
    auto r = scratch.head(goal.num_residuals());
    goal.Evaluate(model, data, q, r, nullptr);
    const double potential = goal.Potential(r);
    // Strict '<': on a tie the earlier alternative stays active.
    if (i == 0 || potential < best) {
      best = potential;
      active = static_cast<int>(i);
    }
  }
  return active;
}

int DisjunctiveGoal::ActiveAlternative(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  if (uses_configuration_ && q.size() != model.nq()) {
    internal::ThrowInvalidArgument(name(), ": ActiveAlternative needs q (",
                                   model.nq(), " entries); got ", q.size());
  }
  // Small problems compare on the stack so that Error() does not allocate.
  constexpr int kStackResiduals = 64;
  if (num_residuals() <= kStackResiduals) {
    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kStackResiduals, 1> scratch(
        num_residuals());
    return SelectActive(model, data, q, scratch);
  }
  Eigen::VectorXd scratch(num_residuals());
  return SelectActive(model, data, q, scratch);
}

void DisjunctiveGoal::DoEvaluate(const Model& model, const Data& data,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 Eigen::Ref<Eigen::VectorXd> residual,
                                 Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  // The output residual doubles as scratch while comparing alternatives.
  const int active = SelectActive(model, data, q, residual);
  const Goal& goal = *goals_[active];
  const int n = goal.num_residuals();
  const double s = std::sqrt(goal.weight());
  residual.tail(num_residuals() - n).setZero();
  auto r = residual.head(n);
  if (jacobian != nullptr) {
    jacobian->bottomRows(num_residuals() - n).setZero();
    Eigen::Ref<Eigen::MatrixXd> J = jacobian->topRows(n);
    goal.Evaluate(model, data, q, r, &J);
    J *= s;
  } else {
    goal.Evaluate(model, data, q, r, nullptr);
  }
  r *= s;
}

void DisjunctiveGoal::DoCheckModel(const Model& model) const {
  for (const auto& goal : goals_) goal->CheckModel(model);
}

GoalError DisjunctiveGoal::Error(const Model& model, const Data& data) const {
  // Error() has no q; alternatives that read q are compared without it only
  // if none does (regularizers inside a disjunction report through Evaluate).
  const int active =
      uses_configuration_ ? 0 : ActiveAlternative(model, data);
  GoalError error = goals_[active]->Error(model, data);
  error.active_alternative = active;
  return error;
}

GoalError DisjunctiveGoal::ErrorAt(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  const int active = ActiveAlternative(model, data, q);
  GoalError error = goals_[active]->ErrorAt(model, data, q);
  error.active_alternative = active;
  return error;
}

GoalErrorParts WeightedSumGoal::error_parts() const {
  return PartsUnion(goals_);
}

std::vector<GoalParameter> WeightedSumGoal::Parameters() const {
  return PrefixedParameters(goals_);
}

GoalErrorParts DisjunctiveGoal::error_parts() const {
  return PartsUnion(goals_);
}

std::vector<GoalParameter> DisjunctiveGoal::Parameters() const {
  return PrefixedParameters(goals_);
}

}  // namespace iklab
