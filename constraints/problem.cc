#include "constraints/problem.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "constraints/inequality_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/internal/check.h"
#include "framework/internal/kinematics_kernels.h"
#include "framework/kinematics.h"

namespace iklab {

using internal::ThrowInvalidArgument;

ErrorSummary Summarize(const std::vector<GoalError>& errors) {
  ErrorSummary summary;
  for (size_t i = 0; i < errors.size(); ++i) {
    const GoalError& e = errors[i];
    if (summary.worst_position_goal < 0 || e.position > summary.max_position) {
      summary.max_position = e.position;
      summary.worst_position_goal = static_cast<int>(i);
    }
    if (summary.worst_angle_goal < 0 || e.angle > summary.max_angle) {
      summary.max_angle = e.angle;
      summary.worst_angle_goal = static_cast<int>(i);
    }
    summary.max_aim = std::max(summary.max_aim, e.aim);
    summary.any_degenerate = summary.any_degenerate || e.degenerate;
  }
  return summary;
}

Problem::Problem(std::shared_ptr<const Model> model)
    : model_(std::move(model)) {
  if (model_ == nullptr) ThrowInvalidArgument("Problem: model is null");
  bounds_ = Bounds::FromModel(*model_);
}

namespace {

void CheckNewGoal(const Model& model, const std::shared_ptr<const Goal>& goal,
                  const char* caller) {
  if (goal == nullptr) ThrowInvalidArgument("Problem::", caller, ": goal is null");
  goal->CheckModel(model);
}

}  // namespace

int Problem::AddGoal(std::shared_ptr<const Goal> goal) {
  CheckNewGoal(*model_, goal, "AddGoal");
  // Goals come before regularizers in the stack: shift the regularizers.
  const int n = goal->num_residuals();
  const int offset = goal_offsets_.empty()
                         ? 0
                         : goal_offsets_.back() + goals_.back()->num_residuals();
  for (int& o : regularizer_offsets_) o += n;
  goal_offsets_.push_back(offset);
  goals_.push_back(std::move(goal));
  num_residuals_ += n;
  max_goal_residuals_ = std::max(max_goal_residuals_, n);
  return static_cast<int>(goals_.size()) - 1;
}

int Problem::AddRegularizer(std::shared_ptr<const Goal> regularizer) {
  CheckNewGoal(*model_, regularizer, "AddRegularizer");
  const int n = regularizer->num_residuals();
  regularizer_offsets_.push_back(num_residuals_);
  regularizers_.push_back(std::move(regularizer));
  num_residuals_ += n;
  max_goal_residuals_ = std::max(max_goal_residuals_, n);
  return static_cast<int>(regularizers_.size()) - 1;
}

int Problem::AddEqualityConstraint(std::shared_ptr<const Goal> constraint) {
  CheckNewGoal(*model_, constraint, "AddEqualityConstraint");
  num_equalities_ += constraint->num_residuals();
  equality_constraints_.push_back(std::move(constraint));
  return static_cast<int>(equality_constraints_.size()) - 1;
}

int Problem::AddInequalityConstraint(
    std::shared_ptr<const InequalityGoal> constraint) {
  CheckNewGoal(*model_, constraint, "AddInequalityConstraint");
  num_inequalities_ += constraint->num_constraints();
  inequality_constraints_.push_back(std::move(constraint));
  return static_cast<int>(inequality_constraints_.size()) - 1;
}

Problem Problem::WithConstraintsAsGoals() const {
  Problem soft(model_);
  soft.bounds_ = bounds_;
  for (const auto& goal : goals_) soft.AddGoal(goal);
  for (const auto& c : equality_constraints_) soft.AddGoal(c);
  for (const auto& c : inequality_constraints_) soft.AddGoal(c);
  for (const auto& r : regularizers_) soft.AddRegularizer(r);
  return soft;
}

Problem Problem::WithGoalsAsConstraints() const {
  Problem hard(model_);
  hard.bounds_ = bounds_;
  const Model& model = *model_;
  for (const auto& goal : goals_) {
    if (auto c = std::dynamic_pointer_cast<const InequalityGoal>(goal)) {
      hard.AddInequalityConstraint(c);
    } else if (const auto* pose =
                   dynamic_cast<const PositionOrientationGoal*>(goal.get())) {
      hard.AddEqualityConstraint(std::make_shared<PositionGoal>(
          model, pose->site_name(), pose->target().translation()));
      hard.AddEqualityConstraint(std::make_shared<RotationVectorGoal>(
          model, pose->site_name(), pose->target().linear()));
    } else if (const auto* orientation =
                   dynamic_cast<const OrientationGoal*>(goal.get())) {
      hard.AddEqualityConstraint(std::make_shared<RotationVectorGoal>(
          model, orientation->site_name(), orientation->target()));
    } else if (const auto* axis = dynamic_cast<const AxisGoal*>(goal.get())) {
      hard.AddEqualityConstraint(std::make_shared<AxisTangentGoal>(
          model, axis->site_name(), axis->axis(), axis->target()));
      hard.AddInequalityConstraint(std::make_shared<ConeGoal>(
          model, axis->site_name(), axis->axis(), axis->target(), M_PI / 2));
    } else {
      hard.AddEqualityConstraint(goal);
    }
  }
  for (const auto& c : equality_constraints_) hard.AddEqualityConstraint(c);
  for (const auto& c : inequality_constraints_) hard.AddInequalityConstraint(c);
  for (const auto& r : regularizers_) hard.AddRegularizer(r);
  return hard;
}

void Problem::set_bounds(Bounds bounds) {
  bounds.Validate(model_->nq());
  bounds_ = std::move(bounds);
}

void Problem::CheckCall(const Eigen::VectorXd& q, const ProblemWorkspace* ws,
                        const char* caller) const {
  model_->CheckConfiguration(q, caller);
  if (ws == nullptr) ThrowInvalidArgument(caller, ": workspace is null");
  if (ws->model_ != model_.get() || ws->num_residuals_ != num_residuals_ ||
      ws->num_constraint_rows_ != num_equalities_ + num_inequalities_ ||
      ws->goal_residual_.size() < max_goal_residuals_) {
    ThrowInvalidArgument(caller,
                         ": workspace was made for another problem (or "
                         "before goals were added); make a ProblemWorkspace "
                         "from this problem");
  }
}

void Problem::EvaluateResiduals(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                                Eigen::Ref<Eigen::VectorXd> residuals,
                                Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  CheckCall(q, ws, "Problem::EvaluateResiduals");
  if (residuals.size() != num_residuals_) {
    ThrowInvalidArgument("Problem::EvaluateResiduals: residuals has ",
                         residuals.size(), " entries; expected ",
                         num_residuals_);
  }
  if (jacobian != nullptr &&
      (jacobian->rows() != num_residuals_ || jacobian->cols() != nq())) {
    ThrowInvalidArgument("Problem::EvaluateResiduals: jacobian is ",
                         jacobian->rows(), " x ", jacobian->cols(),
                         "; expected ", num_residuals_, " x ", nq());
  }
  internal::ForwardKinematicsUnchecked(*model_, q.data(), &ws->data_);
  // √w scales a goal's rows; w = 1 (the common case) skips the pass, which
  // would multiply by exactly 1.
  const auto stack = [&](const Goal& goal, int offset) {
    const int n = goal.num_residuals();
    const double s = std::sqrt(goal.weight());
    auto r = residuals.segment(offset, n);
    if (jacobian != nullptr) {
      Eigen::Ref<Eigen::MatrixXd> J = jacobian->middleRows(offset, n);
      goal.Evaluate(*model_, ws->data_, q, r, &J);
      if (s != 1.0) J *= s;
    } else {
      goal.Evaluate(*model_, ws->data_, q, r, nullptr);
    }
    if (s != 1.0) r *= s;
  };
  for (size_t i = 0; i < goals_.size(); ++i) stack(*goals_[i], goal_offsets_[i]);
  for (size_t j = 0; j < regularizers_.size(); ++j) {
    stack(*regularizers_[j], regularizer_offsets_[j]);
  }
}

double Problem::EvaluatePotential(const Eigen::VectorXd& q,
                                  ProblemWorkspace* ws,
                                  Eigen::Ref<Eigen::VectorXd>* gradient) const {
  CheckCall(q, ws, "Problem::EvaluatePotential");
  if (gradient != nullptr && gradient->size() != nq()) {
    ThrowInvalidArgument("Problem::EvaluatePotential: gradient has ",
                         gradient->size(), " entries; expected ", nq());
  }
  internal::ForwardKinematicsUnchecked(*model_, q.data(), &ws->data_);
  if (gradient != nullptr) gradient->setZero();
  double potential = 0.0;
  const auto add = [&](const Goal& goal) {
    const int n = goal.num_residuals();
    auto r = ws->goal_residual_.head(n);
    if (gradient != nullptr) {
      Eigen::Ref<Eigen::MatrixXd> J = ws->goal_jacobian_.topRows(n);
      goal.Evaluate(*model_, ws->data_, q, r, &J);
      goal.AddPotentialGradient(r, J, *gradient);  // += w Jᵀ r
    } else {
      goal.Evaluate(*model_, ws->data_, q, r, nullptr);
    }
    potential += goal.Potential(r);  // ½ w ‖r‖²
  };
  for (const auto& goal : goals_) add(*goal);
  for (const auto& regularizer : regularizers_) add(*regularizer);
  return potential;
}

void Problem::EvaluateConstraints(
    const Eigen::VectorXd& q, ProblemWorkspace* ws,
    Eigen::Ref<Eigen::VectorXd> equality, Eigen::Ref<Eigen::VectorXd> inequality,
    Eigen::Ref<Eigen::MatrixXd>* equality_jacobian,
    Eigen::Ref<Eigen::MatrixXd>* inequality_jacobian) const {
  CheckCall(q, ws, "Problem::EvaluateConstraints");
  if (equality.size() != num_equalities_ ||
      inequality.size() != num_inequalities_) {
    ThrowInvalidArgument("Problem::EvaluateConstraints: equality/inequality "
                         "have ",
                         equality.size(), "/", inequality.size(),
                         " entries; expected ", num_equalities_, "/",
                         num_inequalities_);
  }
  const auto check_jacobian = [&](Eigen::Ref<Eigen::MatrixXd>* J, int rows,
                                  const char* what) {
    if (J != nullptr && (J->rows() != rows || J->cols() != nq())) {
      ThrowInvalidArgument("Problem::EvaluateConstraints: ", what, " is ",
                           J->rows(), " x ", J->cols(), "; expected ", rows,
                           " x ", nq());
    }
  };
  check_jacobian(equality_jacobian, num_equalities_, "equality_jacobian");
  check_jacobian(inequality_jacobian, num_inequalities_,
                 "inequality_jacobian");
  internal::ForwardKinematicsUnchecked(*model_, q.data(), &ws->data_);
  int offset = 0;
  for (const auto& h : equality_constraints_) {
    const int n = h->num_residuals();
    if (equality_jacobian != nullptr) {
      Eigen::Ref<Eigen::MatrixXd> J = equality_jacobian->middleRows(offset, n);
      h->Evaluate(*model_, ws->data_, q, equality.segment(offset, n), &J);
    } else {
      h->Evaluate(*model_, ws->data_, q, equality.segment(offset, n), nullptr);
    }
    offset += n;
  }
  offset = 0;
  for (const auto& c : inequality_constraints_) {
    const int n = c->num_constraints();
    if (inequality_jacobian != nullptr) {
      Eigen::Ref<Eigen::MatrixXd> J =
          inequality_jacobian->middleRows(offset, n);
      c->EvaluateConstraint(*model_, ws->data_, q,
                            inequality.segment(offset, n), &J);
    } else {
      c->EvaluateConstraint(*model_, ws->data_, q,
                            inequality.segment(offset, n), nullptr);
    }
    offset += n;
  }
}

void Problem::ConstraintErrors(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                               std::vector<GoalError>* errors) const {
  CheckCall(q, ws, "Problem::ConstraintErrors");
  if (errors == nullptr) {
    ThrowInvalidArgument("Problem::ConstraintErrors: errors is null");
  }
  internal::ForwardKinematicsUnchecked(*model_, q.data(), &ws->data_);
  errors->resize(equality_constraints_.size() +
                 inequality_constraints_.size());
  size_t k = 0;
  for (const auto& h : equality_constraints_) {
    (*errors)[k++] = h->ErrorAt(*model_, ws->data_, q);
  }
  for (const auto& c : inequality_constraints_) {
    (*errors)[k++] = c->ErrorAt(*model_, ws->data_, q);
  }
}

void Problem::GoalErrors(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                         std::vector<GoalError>* errors) const {
  CheckCall(q, ws, "Problem::GoalErrors");
  if (errors == nullptr) ThrowInvalidArgument("Problem::GoalErrors: errors is null");
  internal::ForwardKinematicsUnchecked(*model_, q.data(), &ws->data_);
  GoalErrorsFromWorkspace(q, *ws, errors);
}

void Problem::GoalErrorsFromWorkspace(const Eigen::VectorXd& q,
                                      const ProblemWorkspace& ws,
                                      std::vector<GoalError>* errors) const {
  if (ws.model_ != model_.get() || ws.num_residuals_ != num_residuals_) {
    ThrowInvalidArgument("Problem::GoalErrorsFromWorkspace: workspace was "
                         "made for another problem (or before goals were "
                         "added); make a ProblemWorkspace from this problem");
  }
  if (errors == nullptr) {
    ThrowInvalidArgument("Problem::GoalErrorsFromWorkspace: errors is null");
  }
  errors->resize(goals_.size());
  for (size_t i = 0; i < goals_.size(); ++i) {
    (*errors)[i] = goals_[i]->ErrorAt(*model_, ws.data_, q);
  }
}

std::vector<GoalError> Problem::GoalErrors(const Eigen::VectorXd& q,
                                           ProblemWorkspace* ws) const {
  std::vector<GoalError> errors;
  GoalErrors(q, ws, &errors);
  return errors;
}

ProblemWorkspace::ProblemWorkspace(const Problem& problem)
    : model_(&problem.model()),
      num_residuals_(problem.num_residuals()),
      num_constraint_rows_(problem.num_equality_constraints() +
                           problem.num_inequality_constraints()),
      data_(problem.model()),
      goal_residual_(problem.max_goal_residuals_),
      goal_jacobian_(problem.max_goal_residuals_, problem.nq()) {}

}  // namespace iklab
