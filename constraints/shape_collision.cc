#include "constraints/shape_collision.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

std::vector<ShapeCollisionGoal::Pair> ShapeCollisionPairs(
    const Model& model, const std::vector<LinkShape>& bodies,
    int num_obstacles,
    const std::vector<std::pair<std::string, std::string>>& self_pairs) {
  std::vector<int> links;
  for (const LinkShape& body : bodies) {
    links.push_back(model.LinkIndex(body.link));
  }
  std::vector<ShapeCollisionGoal::Pair> pairs;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    for (int j = 0; j < num_obstacles; ++j) {
      pairs.push_back({static_cast<int>(i), j, true});
    }
  }
  for (const auto& [x, y] : self_pairs) {
    const int a = model.LinkIndex(x), b = model.LinkIndex(y);
    if (a == b) {
      ThrowInvalidArgument("ShapeCollisionGoal: self pair '", x, "', '", y,
                           "' names one link twice");
    }
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      for (std::size_t j = 0; j < bodies.size(); ++j) {
        if (links[i] == a && links[j] == b) {
          pairs.push_back({static_cast<int>(i), static_cast<int>(j), false});
        }
      }
    }
  }
  return pairs;
}

namespace {

std::vector<PreparedShape> Prepare(const std::vector<LinkShape>& bodies) {
  std::vector<PreparedShape> out;
  for (const LinkShape& body : bodies) {
    body.shape.Validate("ShapeCollisionGoal: shape '" + body.name +
                        "' on link '" + body.link + "'");
    if (!body.X_LG.matrix().allFinite()) {
      ThrowInvalidArgument("ShapeCollisionGoal: shape '", body.name,
                           "' has a non-finite pose");
    }
    out.emplace_back(body.shape);
  }
  return out;
}

std::vector<PreparedShape> Prepare(const std::vector<WorldShape>& obstacles) {
  std::vector<PreparedShape> out;
  for (const WorldShape& o : obstacles) {
    o.shape.Validate("ShapeCollisionGoal: obstacle '" + o.name + "'");
    if (!o.X_WG.matrix().allFinite()) {
      ThrowInvalidArgument("ShapeCollisionGoal: obstacle '", o.name,
                           "' has a non-finite pose");
    }
    out.emplace_back(o.shape);
  }
  return out;
}

int CheckedPairCount(const Model& model, const std::vector<LinkShape>& bodies,
                     int num_obstacles,
                     const std::vector<std::pair<std::string, std::string>>&
                         self_pairs,
                     double margin) {
  if (!(margin >= 0.0) || !std::isfinite(margin)) {
    ThrowInvalidArgument("ShapeCollisionGoal: margin must be finite and >= 0; "
                         "got ",
                         margin);
  }
  const int n = static_cast<int>(
      ShapeCollisionPairs(model, bodies, num_obstacles, self_pairs).size());
  if (n == 0) {
    ThrowInvalidArgument("ShapeCollisionGoal: nothing to check (no shape "
                         "against an obstacle, no shape pair in the self "
                         "pairs)");
  }
  return n;
}

}  // namespace

ShapeCollisionGoal::ShapeCollisionGoal(
    const Model& model, std::vector<LinkShape> bodies,
    std::vector<WorldShape> obstacles,
    const std::vector<std::pair<std::string, std::string>>& self_pairs,
    double margin, double weight)
    : InequalityGoal(CheckedPairCount(model, bodies,
                                      static_cast<int>(obstacles.size()),
                                      self_pairs, margin),
                     weight, "shape_collision"),
      bodies_(std::move(bodies)),
      prepared_bodies_(Prepare(bodies_)),
      obstacles_(std::move(obstacles)),
      prepared_obstacles_(Prepare(obstacles_)),
      margin_(margin),
      num_steps_(model.num_steps()) {
  pairs_ = ShapeCollisionPairs(model, bodies_,
                               static_cast<int>(obstacles_.size()), self_pairs);
  for (const LinkShape& body : bodies_) {
    body_steps_.push_back(model.link_step(model.LinkIndex(body.link)));
  }
}

std::string ShapeCollisionGoal::PairName(int k) const {
  const Pair& p = pairs_.at(k);
  return bodies_[p.first].name + " / " +
         (p.obstacle ? obstacles_[p.second].name : bodies_[p.second].name);
}

void ShapeCollisionGoal::DoCheckModel(const Model& model) const {
  if (model.num_steps() != num_steps_) {
    ThrowInvalidArgument(name(), ": built for a model with ", num_steps_,
                         " steps; this one has ", model.num_steps());
  }
  for (const LinkShape& body : bodies_) model.LinkIndex(body.link);
}

void ShapeCollisionGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  if (jacobian != nullptr) jacobian->setZero();
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    const Pair& pair = pairs_[k];
    const Eigen::Isometry3d X_WA =
        data.X_W(body_steps_[pair.first]) * bodies_[pair.first].X_LG;
    const Eigen::Isometry3d X_WB =
        pair.obstacle
            ? obstacles_[pair.second].X_WG
            : data.X_W(body_steps_[pair.second]) * bodies_[pair.second].X_LG;
    const PreparedShape& b = pair.obstacle ? prepared_obstacles_[pair.second]
                                           : prepared_bodies_[pair.second];
    const ShapeDistance d =
        ComputeShapeDistance(prepared_bodies_[pair.first], X_WA, b, X_WB);
    // c = margin − d.
    value[k] = margin_ - d.distance;
    if (jacobian == nullptr || d.degenerate) continue;
    // ∂c/∂q_i = −nᵀ v_i(p_A) + nᵀ v_i(p_B), the points fixed on their links.
    internal::ForEachJacobianColumn(
        model, data, body_steps_[pair.first], d.on_first,
        [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
          (*jacobian)(k, dof) -= d.normal.dot(v);
        });
    if (!pair.obstacle) {
      internal::ForEachJacobianColumn(
          model, data, body_steps_[pair.second], d.on_second,
          [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
            (*jacobian)(k, dof) += d.normal.dot(v);
          });
    }
  }
}

Eigen::VectorXd ShapeCollisionGoal::Distances(const Model& model,
                                              const Data& data) const {
  Eigen::VectorXd c(num_constraints());
  DoEvaluateConstraint(model, data, Eigen::VectorXd(), c, nullptr);
  return (margin_ - c.array()).matrix();
}

GoalError ShapeCollisionGoal::Error(const Model& model,
                                    const Data& data) const {
  Eigen::VectorXd c(num_constraints());
  DoEvaluateConstraint(model, data, Eigen::VectorXd(), c, nullptr);
  GoalError error;
  error.position = std::max(0.0, c.maxCoeff());
  return error;
}

GoalErrorParts ShapeCollisionGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> ShapeCollisionGoal::Parameters() const {
  return {{"margin", margin_}};
}

std::vector<BoundedQuantity> ShapeCollisionGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  BoundedQuantity distance{"min_distance", Distances(model, data).minCoeff()};
  distance.lower = margin_;
  return {distance};
}

}  // namespace iklab
