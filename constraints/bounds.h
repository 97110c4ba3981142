#ifndef IKLAB_CONSTRAINTS_BOUNDS_H_
#define IKLAB_CONSTRAINTS_BOUNDS_H_

/// @file
/// Joint limits as box constraints l ≤ q ≤ u (passed to solvers as
/// bounds, never hidden as clamping inside a potential).

#include <string>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab {

/// Box constraints on the configuration, lower ≤ q ≤ upper per coordinate.
/// ±infinity means "unbounded on that side"; NaN is never valid.
struct Bounds {
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;

  /// The model's joint limits.
  static Bounds FromModel(const Model& model);
  /// n coordinates, all (−∞, ∞).
  static Bounds Unbounded(int n);

  int size() const { return static_cast<int>(lower.size()); }

  /// Overrides the bounds of coordinate `index`.
  /// @throws std::invalid_argument for an index out of range, a NaN, or
  ///   lower > upper (the message names the coordinate and both values).
  void Set(int index, double lower, double upper);
  /// Overrides the bounds of the coordinate named `dof_name` in `model`
  /// (Model::dof_name, e.g. "elbow" or "shoulder.1").
  /// @throws std::invalid_argument for an unknown name or as Set(int, ...).
  void Set(const Model& model, const std::string& dof_name, double lower,
           double upper);

  /// True if lower and upper have the same size, no NaN and lower ≤ upper
  /// everywhere; otherwise explains the first problem in `why` (may be null).
  bool IsValid(std::string* why) const;
  /// @throws std::invalid_argument with IsValid()'s explanation, also if
  ///   size() != expected_size (pass −1 to skip the size check).
  void Validate(int expected_size = -1) const;

  /// True if every q_i lies in [lower_i − tolerance, upper_i + tolerance]
  /// (false for a wrong size or a NaN).
  bool Contains(const Eigen::Ref<const Eigen::VectorXd>& q,
                double tolerance = 0.0) const;
  /// The closest point of the box: q clamped coordinate-wise.
  /// @throws std::invalid_argument if q.size() != size().
  Eigen::VectorXd Project(const Eigen::Ref<const Eigen::VectorXd>& q) const;
  /// Clamps q in place (allocation-free). @pre q.size() == size().
  void ProjectInPlace(Eigen::Ref<Eigen::VectorXd> q) const;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_BOUNDS_H_
