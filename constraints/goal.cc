#include "constraints/goal.h"

#include <cmath>
#include <utility>

#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

Goal::~Goal() = default;

Goal::Goal(int num_residuals, double weight, std::string name)
    : num_residuals_(num_residuals), weight_(weight), name_(std::move(name)) {
  internal::CheckNonNegative(weight, name_, "weight");
}

GoalErrorParts Goal::error_parts() const { return {true, true, true}; }

std::vector<GoalParameter> Goal::Parameters() const { return {}; }

void Goal::set_weight(double weight) {
  internal::CheckNonNegative(weight, name_, "weight");
  weight_ = weight;
}

void Goal::Evaluate(const Model& model, const Data& data,
                    Eigen::Ref<Eigen::VectorXd> residual,
                    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  if (uses_configuration()) {
    ThrowInvalidArgument(name_,
                         ": this goal reads q directly; call "
                         "Evaluate(model, data, q, residual, jacobian)");
  }
  Evaluate(model, data, Eigen::VectorXd(), residual, jacobian);
}

void Goal::Evaluate(const Model& model, const Data& data,
                    const Eigen::Ref<const Eigen::VectorXd>& q,
                    Eigen::Ref<Eigen::VectorXd> residual,
                    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  // Always-on, cheap integer checks: a size mismatch here is a caller bug
  // that would otherwise write out of bounds.
  if (residual.size() != num_residuals_) {
    ThrowInvalidArgument(name_, ": residual has ", residual.size(),
                         " entries; expected num_residuals() = ",
                         num_residuals_);
  }
  if (jacobian != nullptr &&
      (jacobian->rows() != num_residuals_ || jacobian->cols() != model.nq())) {
    ThrowInvalidArgument(name_, ": jacobian is ", jacobian->rows(), " x ",
                         jacobian->cols(), "; expected ", num_residuals_,
                         " x ", model.nq());
  }
  if (data.num_steps() != model.num_steps()) {
    ThrowInvalidArgument(name_, ": data has ", data.num_steps(),
                         " steps but the model has ", model.num_steps(),
                         " (Data made from another model?)");
  }
  if (uses_configuration() && q.size() != model.nq()) {
    ThrowInvalidArgument(name_, ": q has ", q.size(), " entries; expected ",
                         model.nq());
  }
  DoEvaluate(model, data, q, residual, jacobian);
}

void Goal::CheckModel(const Model& model) const { DoCheckModel(model); }

void Goal::DoCheckModel(const Model&) const {}

SiteGoal::SiteGoal(const Model& model, const std::string& site,
                   int num_residuals, double weight, const char* kind)
    : Goal(num_residuals, weight, internal::StrCat(kind, "(", site, ")")),
      site_(model.SiteIndex(site)),
      site_name_(site) {}

void SiteGoal::DoCheckModel(const Model& model) const {
  if (site_ >= model.num_sites() || model.site_name(site_) != site_name_) {
    ThrowInvalidArgument(name(), ": built for a model whose site ", site_,
                         " is '", site_name_,
                         "', but this model has ", model.num_sites(),
                         " sites", site_ < model.num_sites()
                             ? internal::StrCat(" and site ", site_, " is '",
                                                model.site_name(site_), "'")
                             : std::string(),
                         " (goal built for a different model?)");
  }
}

}  // namespace iklab
