#include "constraints/shape_collision.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "constraints/internal/link_tree.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

// The capsule around [a, b] and its frame (file comment of the header).
std::pair<Eigen::Isometry3d, CollisionShape> SegmentCapsule(
    const Eigen::Vector3d& a, const Eigen::Vector3d& b, double radius,
    const std::string& owner) {
  if (!a.allFinite() || !b.allFinite()) {
    ThrowInvalidArgument(owner, ": capsule ends must be finite");
  }
  if (!(radius > 0.0) || !std::isfinite(radius)) {
    ThrowInvalidArgument(owner, ": capsule radius must be finite and > 0; got ",
                         radius);
  }
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = 0.5 * (a + b);
  const double length = (b - a).norm();
  if (length == 0.0) return {X, CollisionShape::Sphere(radius)};
  X.linear() = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(),
                                                  (b - a) / length)
                   .toRotationMatrix();
  return {X, CollisionShape::Capsule(radius, 0.5 * length)};
}

}  // namespace

LinkShape CapsuleOnLink(const std::string& link, const Eigen::Vector3d& a,
                        const Eigen::Vector3d& b, double radius,
                        const std::string& name) {
  LinkShape out;
  out.link = link;
  out.name = name.empty() ? link + "/capsule" : name;
  std::tie(out.X_LG, out.shape) =
      SegmentCapsule(a, b, radius, "capsule on link '" + link + "'");
  return out;
}

WorldShape CapsuleObstacle(const std::string& name, const Eigen::Vector3d& a,
                           const Eigen::Vector3d& b, double radius) {
  WorldShape out;
  out.name = name;
  std::tie(out.X_WG, out.shape) =
      SegmentCapsule(a, b, radius, "obstacle '" + name + "'");
  return out;
}

WorldShape SphereObstacle(const std::string& name,
                          const Eigen::Vector3d& center, double radius) {
  return CapsuleObstacle(name, center, center, radius);
}

std::vector<LinkShape> FitChainCapsules(const Model& model,
                                        const std::vector<std::string>& links,
                                        double radius) {
  if (links.empty()) {
    ThrowInvalidArgument("FitChainCapsules: links is empty; expected the "
                         "chain's links from base to tip");
  }
  if (!(radius > 0.0) || !std::isfinite(radius)) {
    ThrowInvalidArgument("FitChainCapsules: radius must be finite and > 0; "
                         "got ",
                         radius);
  }
  Data data(model);
  ForwardKinematics(model, Eigen::VectorXd::Zero(model.nq()), &data);
  std::vector<LinkShape> capsules;
  for (std::size_t k = 0; k < links.size(); ++k) {
    const int step = model.link_step(model.LinkIndex(links[k]));
    Eigen::Vector3d b = Eigen::Vector3d::Zero();
    if (k + 1 < links.size()) {
      const int child = model.link_step(model.LinkIndex(links[k + 1]));
      // The child's origin in this link's frame (constant for revolute
      // joints between them).
      b = data.X_W(step).inverse() * data.X_W(child).translation();
    }
    capsules.push_back(CapsuleOnLink(links[k], Eigen::Vector3d::Zero(), b, radius));
  }
  return capsules;
}

std::vector<std::pair<std::string, std::string>> LinkPairsApart(
    const Model& model, const std::vector<LinkShape>& bodies,
    int skip_neighbors,
    const std::vector<std::pair<std::string, std::string>>& allowed) {
  if (skip_neighbors < 0) {
    ThrowInvalidArgument("LinkPairsApart: skip_neighbors must be >= 0; got ",
                         skip_neighbors);
  }
  std::vector<std::pair<int, int>> allowed_links;
  for (const auto& [x, y] : allowed) {
    allowed_links.emplace_back(model.LinkIndex(x), model.LinkIndex(y));
  }
  std::vector<int> links;  // distinct links with shapes, in body order
  for (const LinkShape& body : bodies) {
    const int l = model.LinkIndex(body.link);
    if (std::find(links.begin(), links.end(), l) == links.end()) {
      links.push_back(l);
    }
  }
  const std::vector<int> parent = internal::ParentLinks(model);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < links.size(); ++i) {
    for (std::size_t j = i + 1; j < links.size(); ++j) {
      const int a = links[i], b = links[j];
      if (internal::LinkHops(parent, a, b) <= skip_neighbors) continue;
      const bool is_allowed =
          std::find_if(allowed_links.begin(), allowed_links.end(),
                       [&](const auto& p) {
                         return (p.first == a && p.second == b) ||
                                (p.first == b && p.second == a);
                       }) != allowed_links.end();
      if (!is_allowed) {
        pairs.emplace_back(model.link_name(a), model.link_name(b));
      }
    }
  }
  return pairs;
}

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
