#include "constraints/collision.h"

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

void Capsule::Validate(const std::string& owner) const {
  internal::CheckFiniteVector(a, owner, "capsule end a");
  internal::CheckFiniteVector(b, owner, "capsule end b");
  if (!(radius > 0.0) || !std::isfinite(radius)) {
    ThrowInvalidArgument(owner, ": capsule radius must be finite and > 0; got ",
                         radius);
  }
}

SegmentClosestPoints ClosestPoints(const Eigen::Vector3d& p0,
                                   const Eigen::Vector3d& p1,
                                   const Eigen::Vector3d& q0,
                                   const Eigen::Vector3d& q1) {
  // Ericson, Real-Time Collision Detection, §5.1.9: minimize
  // ‖(p0 + s d1) − (q0 + t d2)‖ over s, t ∈ [0, 1].
  constexpr double kEpsilon = 1e-18;
  const Eigen::Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0.0, t = 0.0;
  if (a <= kEpsilon && e <= kEpsilon) {
    // Two points.
  } else if (a <= kEpsilon) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= kEpsilon) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2);
      const double denominator = a * e - b * b;  // ≥ 0; 0 when parallel
      s = denominator > 0.0 ? std::clamp((b * f - c * e) / denominator, 0.0, 1.0)
                            : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  SegmentClosestPoints out;
  out.on_first = p0 + s * d1;
  out.on_second = q0 + t * d2;
  out.distance = (out.on_first - out.on_second).norm();
  return out;
}

namespace {

std::vector<CollisionGoal::Pair> MakePairs(
    const Model& model, const std::vector<LinkCapsule>& bodies,
    const std::vector<Capsule>& obstacles, const CollisionOptions& options) {
  const std::string owner = "CollisionGoal";
  if (!(options.margin >= 0.0) || !std::isfinite(options.margin)) {
    ThrowInvalidArgument(owner, ": margin must be finite and >= 0; got ",
                         options.margin);
  }
  std::vector<int> links;
  for (size_t i = 0; i < bodies.size(); ++i) {
    links.push_back(model.LinkIndex(bodies[i].link));
    bodies[i].capsule.Validate(owner + " body " + std::to_string(i) + " (" +
                               bodies[i].link + ")");
  }
  for (size_t j = 0; j < obstacles.size(); ++j) {
    obstacles[j].Validate(owner + " obstacle " + std::to_string(j));
  }
  std::vector<std::pair<int, int>> allowed;
  for (const auto& [x, y] : options.allowed_pairs) {
    allowed.emplace_back(model.LinkIndex(x), model.LinkIndex(y));
  }
  std::vector<CollisionGoal::Pair> pairs;
  for (size_t i = 0; i < bodies.size(); ++i) {
    for (size_t j = 0; j < obstacles.size(); ++j) {
      pairs.push_back({static_cast<int>(i), static_cast<int>(j), true});
    }
  }
  if (options.skip_neighbors >= 0) {
    const std::vector<int> parent = internal::ParentLinks(model);
    for (size_t i = 0; i < bodies.size(); ++i) {
      for (size_t j = i + 1; j < bodies.size(); ++j) {
        const int a = links[i], b = links[j];
        if (internal::LinkHops(parent, a, b) <= options.skip_neighbors) continue;
        const bool is_allowed =
            std::find_if(allowed.begin(), allowed.end(), [&](const auto& p) {
              return (p.first == a && p.second == b) ||
                     (p.first == b && p.second == a);
            }) != allowed.end();
        if (!is_allowed) {
          pairs.push_back({static_cast<int>(i), static_cast<int>(j), false});
        }
      }
    }
  }
  if (pairs.empty()) {
    ThrowInvalidArgument(owner,
                         ": nothing to check (no obstacle, and no body pair "
                         "that is neither adjacent nor allowed)");
  }
  return pairs;
}

}  // namespace

std::vector<LinkCapsule> FitChainCapsules(const Model& model,
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
  std::vector<LinkCapsule> capsules;
  for (size_t k = 0; k < links.size(); ++k) {
    const int step = model.link_step(model.LinkIndex(links[k]));
    LinkCapsule body{links[k], Capsule::Sphere(Eigen::Vector3d::Zero(), radius)};
    if (k + 1 < links.size()) {
      const int child = model.link_step(model.LinkIndex(links[k + 1]));
      // The child's origin in this link's frame (constant for revolute
      // joints between them).
      body.capsule.b =
          data.X_W(step).inverse() * data.X_W(child).translation();
    }
    capsules.push_back(body);
  }
  return capsules;
}

CollisionGoal::CollisionGoal(const Model& model,
                             std::vector<LinkCapsule> bodies,
                             std::vector<Capsule> obstacles,
                             CollisionOptions options, double weight)
    : InequalityGoal(
          static_cast<int>(MakePairs(model, bodies, obstacles, options).size()),
          weight, "collision"),
      bodies_(std::move(bodies)),
      obstacles_(std::move(obstacles)),
      options_(std::move(options)),
      num_steps_(model.num_steps()) {
  pairs_ = MakePairs(model, bodies_, obstacles_, options_);
  for (const LinkCapsule& body : bodies_) {
    body_steps_.push_back(model.link_step(model.LinkIndex(body.link)));
  }
}

void CollisionGoal::DoCheckModel(const Model& model) const {
  if (model.num_steps() != num_steps_) {
    ThrowInvalidArgument(name(), ": built for a model with ", num_steps_,
                         " steps; this one has ", model.num_steps());
  }
  for (const LinkCapsule& body : bodies_) model.LinkIndex(body.link);
}

std::pair<Eigen::Vector3d, Eigen::Vector3d> CollisionGoal::BodySegment(
    const Data& data, int i) const {
  const Eigen::Isometry3d& X_WL = data.X_W(body_steps_[i]);
  return {X_WL * bodies_[i].capsule.a, X_WL * bodies_[i].capsule.b};
}

void CollisionGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  if (jacobian != nullptr) jacobian->setZero();
  for (size_t k = 0; k < pairs_.size(); ++k) {
    const Pair& pair = pairs_[k];
    const auto [p0, p1] = BodySegment(data, pair.first);
    Eigen::Vector3d q0, q1;
    double r2;
    if (pair.obstacle) {
      const Capsule& o = obstacles_[pair.second];
      q0 = o.a;
      q1 = o.b;
      r2 = o.radius;
    } else {
      std::tie(q0, q1) = BodySegment(data, pair.second);
      r2 = bodies_[pair.second].capsule.radius;
    }
    const SegmentClosestPoints closest = ClosestPoints(p0, p1, q0, q1);
    // c = r_1 + r_2 + margin − d.
    value[k] = bodies_[pair.first].capsule.radius + r2 + options_.margin -
               closest.distance;
    if (jacobian == nullptr || closest.distance < 1e-12) continue;
    const Eigen::Vector3d u =
        (closest.on_first - closest.on_second) / closest.distance;
    // ∂c/∂q_i = −uᵀ v_i(p_1) + uᵀ v_i(p_2), the points fixed on their bodies.
    internal::ForEachJacobianColumn(
        model, data, body_steps_[pair.first], closest.on_first,
        [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
          (*jacobian)(k, dof) -= u.dot(v);
        });
    if (!pair.obstacle) {
      internal::ForEachJacobianColumn(
          model, data, body_steps_[pair.second], closest.on_second,
          [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
            (*jacobian)(k, dof) += u.dot(v);
          });
    }
  }
}

Eigen::VectorXd CollisionGoal::Clearances(const Model& model,
                                          const Data& data) const {
  Eigen::VectorXd c(num_constraints());
  DoEvaluateConstraint(model, data, Eigen::VectorXd(), c, nullptr);
  return -(c.array() - options_.margin).matrix();  // d − r_1 − r_2
}

GoalError CollisionGoal::Error(const Model& model, const Data& data) const {
  Eigen::VectorXd c(num_constraints());
  DoEvaluateConstraint(model, data, Eigen::VectorXd(), c, nullptr);
  GoalError error;
  error.position = std::max(0.0, c.maxCoeff());
  return error;
}

GoalErrorParts CollisionGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> CollisionGoal::Parameters() const {
  return {{"margin", options_.margin}};
}

std::vector<BoundedQuantity> CollisionGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  BoundedQuantity clearance{"min_clearance",
                            Clearances(model, data).minCoeff()};
  clearance.lower = options_.margin;
  return {clearance};
}

}  // namespace iklab
