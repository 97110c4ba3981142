#include "constraints/bounds.h"

#include <cmath>

#include "framework/internal/check.h"

namespace iklab {

using internal::Invalid;
using internal::ThrowInvalidArgument;

Bounds Bounds::FromModel(const Model& model) {
  return Bounds{model.lower(), model.upper()};
}

Bounds Bounds::Unbounded(int n) {
  return Bounds{Eigen::VectorXd::Constant(n, -kInfinity),
                Eigen::VectorXd::Constant(n, kInfinity)};
}

void Bounds::Set(int index, double lo, double hi) {
  if (index < 0 || index >= size()) {
    ThrowInvalidArgument("Bounds::Set: coordinate index ", index,
                         " out of range [0, ", size(), ")");
  }
  if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
    ThrowInvalidArgument("Bounds::Set: coordinate ", index,
                         ": expected lower <= upper and no NaN; got lower = ",
                         lo, ", upper = ", hi);
  }
  lower[index] = lo;
  upper[index] = hi;
}

void Bounds::Set(const Model& model, const std::string& dof_name, double lo,
                 double hi) {
  if (size() != model.nq()) {
    ThrowInvalidArgument("Bounds::Set: bounds have ", size(),
                         " coordinates but the model has nq = ", model.nq());
  }
  Set(model.DofIndex(dof_name), lo, hi);
}

bool Bounds::IsValid(std::string* why) const {
  if (lower.size() != upper.size()) {
    return Invalid(why, "Bounds::upper must have as many entries as lower (",
                   lower.size(), "), got ", upper.size());
  }
  for (Eigen::Index i = 0; i < lower.size(); ++i) {
    if (std::isnan(lower[i]) || std::isnan(upper[i])) {
      return Invalid(why,
                     "Bounds::lower and upper must not be NaN, got coordinate ",
                     i, " with lower = ", lower[i], ", upper = ", upper[i]);
    }
    if (lower[i] > upper[i]) {
      return Invalid(why, "Bounds::lower must be <= upper, got coordinate ", i,
                     " with lower = ", lower[i], " > upper = ", upper[i]);
    }
  }
  return true;
}

void Bounds::Validate(int expected_size) const {
  std::string why;
  if (!IsValid(&why)) throw std::invalid_argument(why);
  if (expected_size >= 0 && size() != expected_size) {
    ThrowInvalidArgument("bounds: expected ", expected_size,
                         " coordinates, got ", size());
  }
}

bool Bounds::Contains(const Eigen::Ref<const Eigen::VectorXd>& q,
                      double tolerance) const {
  if (q.size() != size() || upper.size() != size()) return false;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    // Written so that a NaN in q fails the test.
    if (!(q[i] >= lower[i] - tolerance && q[i] <= upper[i] + tolerance)) {
      return false;
    }
  }
  return true;
}

Eigen::VectorXd Bounds::Project(
    const Eigen::Ref<const Eigen::VectorXd>& q) const {
  if (q.size() != size()) {
    ThrowInvalidArgument("Bounds::Project: q has ", q.size(),
                         " entries; expected ", size());
  }
  Eigen::VectorXd out = q;
  ProjectInPlace(out);
  return out;
}

void Bounds::ProjectInPlace(Eigen::Ref<Eigen::VectorXd> q) const {
  q = q.cwiseMax(lower).cwiseMin(upper);
}

}  // namespace iklab
