#include "framework/model.h"

#include <cmath>

#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

template <typename Names>
int FindName(const Names& names, const std::string& name, const char* what) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  std::string known;
  for (size_t i = 0; i < names.size() && i < 40; ++i) {
    known += (i ? ", '" : "'") + names[i] + "'";
  }
  if (names.size() > 40) known += ", ...";
  ThrowInvalidArgument("unknown ", what, " '", name, "'; the model has ",
                       names.empty() ? std::string("none") : known);
}

}  // namespace

bool Model::bounded(int i) const {
  return std::isfinite(lower_[i]) && std::isfinite(upper_[i]);
}

int Model::SiteIndex(const std::string& name) const {
  return FindName(site_names_, name, "site");
}

int Model::LinkIndex(const std::string& name) const {
  return FindName(link_names_, name, "link");
}

int Model::DofIndex(const std::string& name) const {
  return FindName(dof_names_, name, "coordinate");
}

Eigen::VectorXd Model::MidLimits() const {
  Eigen::VectorXd mid = Eigen::VectorXd::Zero(nq_);
  for (int i = 0; i < nq_; ++i) {
    if (bounded(i)) {
      // Halves first: lower + upper can overflow near ±DBL_MAX.
      mid[i] = 0.5 * lower_[i] + 0.5 * upper_[i];
    } else if (std::isfinite(lower_[i])) {
      mid[i] = std::max(0.0, lower_[i]);
    } else if (std::isfinite(upper_[i])) {
      mid[i] = std::min(0.0, upper_[i]);
    }
  }
  return mid;
}

void Model::CheckConfiguration(const Eigen::Ref<const Eigen::VectorXd>& q,
                               const char* what) const {
  if (q.size() != nq_) {
    ThrowInvalidArgument(what, ": expected ", nq_, " joint coordinates, got ",
                         q.size());
  }
  for (int i = 0; i < nq_; ++i) {
    if (!std::isfinite(q[i])) {
      ThrowInvalidArgument(what, ": coordinate ", i, " ('", dof_names_[i],
                           "') is ", q[i], "; expected a finite value");
    }
  }
}

bool Model::WithinLimits(const Eigen::Ref<const Eigen::VectorXd>& q,
                         double tolerance) const {
  if (q.size() != nq_) return false;
  for (int i = 0; i < nq_; ++i) {
    if (!(q[i] >= lower_[i] - tolerance && q[i] <= upper_[i] + tolerance)) {
      return false;
    }
  }
  return true;
}

void Model::FullConfiguration(const Eigen::Ref<const Eigen::VectorXd>& q,
                              Eigen::Ref<Eigen::VectorXd> q_full) const {
  if (q.size() != nq_ || q_full.size() != nq_full()) {
    ThrowInvalidArgument("FullConfiguration: expected q of size ", nq_,
                         " and q_full of size ", nq_full(), ", got ", q.size(),
                         " and ", q_full.size());
  }
  for (int i = 0; i < nq_full(); ++i) {
    q_full[i] = full_scale_[i] * q[full_source_[i]] + full_offset_[i];
  }
}

Eigen::VectorXd Model::FullConfiguration(
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  Eigen::VectorXd q_full(nq_full());
  FullConfiguration(q, q_full);
  return q_full;
}

Data::Data(const Model& model)
    : X_W_(model.num_steps(), Eigen::Isometry3d::Identity()) {}

}  // namespace iklab
