#include "lab/study_scenarios.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

#include <Eigen/Geometry>

#include "constraints/aiming_goal.h"
#include "constraints/composite_goals.h"
#include "constraints/distance_goals.h"
#include "constraints/joint_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/shape_collision.h"
#include "constraints/tolerance_goals.h"
#include "framework/kinematics.h"
#include "lab/internal/study_helpers.h"

// Scenarios of a study: goal specifications, the goals they make at a
// trial's generating pose, and the scenarios that make whole trials
// (declared in lab/study_scenarios.h).

namespace iklab {

namespace internal {

void CheckGoalSpec(const Model& model, const GoalSpec& spec, bool nested,
                   const std::string& where) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(where + " (" + GoalKindName(spec.kind) +
                                "): " + what);
  };
  if (!(spec.weight >= 0.0) || !std::isfinite(spec.weight)) {
    fail("weight must be finite and >= 0, got " + std::to_string(spec.weight));
  }
  const bool composite = spec.kind == GoalKind::kWeightedSum ||
                         spec.kind == GoalKind::kDisjunctive;
  if (composite) {
    if (nested) fail("sums and disjunctions cannot be nested");
    if (spec.parts.empty()) fail("needs at least one part");
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
      CheckGoalSpec(model, spec.parts[i], true,
                    where + ", part " + std::to_string(i + 1));
    }
    return;
  }
  const GoalKind kind = spec.kind;
  if (kind == GoalKind::kCollisionFree) {
    if (nested) fail("a collision goal cannot be a part of a sum or disjunction");
    if (spec.collisions == nullptr) {
      fail("collisions is null; make it with RobotCollisions(model, robot "
           "file, setting)");
    }
    if (!(spec.clearance >= 0.0) || !std::isfinite(spec.clearance)) {
      fail("clearance must be finite and >= 0, got " +
           std::to_string(spec.clearance));
    }
    // The shapes' links and the pairs must fit this model.
    ShapeCollisionPairs(model, spec.collisions->shapes,
                        static_cast<int>(spec.collisions->obstacles.size()),
                        spec.collisions->self_pairs);
    return;
  }
  const bool joint_goal =
      kind == GoalKind::kJointRange || kind == GoalKind::kJointPosture;
  const auto check_site = [&](const std::string& site, const char* field) {
    for (int s = 0; s < model.num_sites(); ++s) {
      if (model.site_name(s) == site) return;
    }
    std::string sites;
    for (int s = 0; s < model.num_sites(); ++s) {
      sites += (s ? ", " : "") + model.site_name(s);
    }
    fail(std::string("unknown ") + field + " '" + site +
         "'; the model's sites are: " + sites);
  };
  if (!joint_goal) check_site(spec.site, "site");
  if (kind == GoalKind::kSiteDistance || kind == GoalKind::kRelativePose) {
    check_site(spec.other_site, "other_site");
    if (spec.other_site == spec.site) {
      fail("site and other_site must differ; both are '" + spec.site + "'");
    }
  }
  const auto positive = [&](double value, const std::string& what) {
    if (!(value > 0.0) || !std::isfinite(value)) {
      fail(what + " must be finite and > 0, got " + std::to_string(value));
    }
  };
  if ((kind == GoalKind::kCone || kind == GoalKind::kGaze) &&
      (!(spec.angle >= 0.0 && spec.angle <= M_PI))) {
    fail("cone angle must be in [0, pi] radians, got " +
         std::to_string(spec.angle));
  }
  if (kind == GoalKind::kOrientationBox &&
      !(spec.angle > 0.0 && spec.angle < M_PI)) {
    fail("orientation box half-width (angle) must be in (0, pi) radians, "
         "got " +
         std::to_string(spec.angle));
  }
  if (kind == GoalKind::kJointRange) positive(spec.angle, "joint range half-width (angle)");
  if (kind == GoalKind::kPositionBox) positive(spec.tolerance, "box tolerance");
  if (kind == GoalKind::kPointDistance || kind == GoalKind::kSiteDistance) {
    positive(spec.tolerance, "distance tolerance");
  }
  if ((kind == GoalKind::kAxis || kind == GoalKind::kAiming ||
       kind == GoalKind::kCone || kind == GoalKind::kGaze) &&
      (!spec.axis.allFinite() || spec.axis.norm() < 1e-9)) {
    fail("axis must be a finite non-zero vector");
  }
  if (kind == GoalKind::kAiming || kind == GoalKind::kGaze) {
    positive(spec.distance, "aim distance");
  }
  if (kind == GoalKind::kPointDistance) positive(spec.distance, "distance");
  if (kind == GoalKind::kPose &&
      (!(spec.rotation_weight >= 0.0) || !std::isfinite(spec.rotation_weight))) {
    fail("rotation weight must be finite and >= 0, got " +
         std::to_string(spec.rotation_weight));
  }
  if (kind == GoalKind::kRelativePose) {
    positive(spec.rotation_weight, "rotation weight (length per radian)");
  }
  if (joint_goal) {
    std::set<int> seen;
    for (const int c : spec.coordinates) {
      if (c < 0 || c >= model.nq()) {
        fail("coordinate " + std::to_string(c) + " is outside [0, " +
             std::to_string(model.nq()) + ")");
      }
      if (!seen.insert(c).second) {
        fail("coordinate " + std::to_string(c) + " is listed twice");
      }
    }
  }
}

}  // namespace internal

namespace {

using internal::RandomModelPose;

Eigen::Vector3d RandomUnitVector(std::mt19937_64* rng) {
  std::normal_distribution<double> normal;
  Eigen::Vector3d v;
  do {
    v = Eigen::Vector3d(normal(*rng), normal(*rng), normal(*rng));
  } while (v.norm() < 1e-6);
  return v.normalized();
}

// The coordinates of a joint goal: the spec's, or every coordinate.
std::vector<int> JointCoordinates(const Model& model, const GoalSpec& spec) {
  if (!spec.coordinates.empty()) return spec.coordinates;
  std::vector<int> all(model.nq());
  for (int i = 0; i < model.nq(); ++i) all[i] = i;
  return all;
}

// A goal met at the pose q, whose FK is in `data`.
std::shared_ptr<const Goal> MakeSimpleGoal(const Model& model,
                                           const Eigen::VectorXd& q,
                                           const Data& data,
                                           const GoalSpec& spec,
                                           std::mt19937_64* rng) {
  if (spec.kind == GoalKind::kJointRange || spec.kind == GoalKind::kJointPosture) {
    const std::vector<int> coordinates = JointCoordinates(model, spec);
    Eigen::VectorXd at(coordinates.size());
    for (std::size_t i = 0; i < coordinates.size(); ++i) at[i] = q[coordinates[i]];
    if (spec.kind == GoalKind::kJointPosture) {
      return std::make_shared<JointPostureGoal>(model, coordinates, at,
                                                spec.weight);
    }
    return std::make_shared<JointRangeGoal>(
        model, coordinates, at.array() - spec.angle, at.array() + spec.angle,
        spec.weight);
  }
  const int site = model.SiteIndex(spec.site);
  const Eigen::Isometry3d X = SitePose(model, data, site);
  const Eigen::Vector3d axis = spec.axis.normalized();
  switch (spec.kind) {
    case GoalKind::kPosition:
      return std::make_shared<PositionGoal>(model, spec.site, X.translation(),
                                            spec.weight);
    case GoalKind::kOrientation:
      return std::make_shared<OrientationGoal>(model, spec.site, X.linear(),
                                               spec.weight);
    case GoalKind::kPose: {
      PositionOrientationScales scales;
      scales.w_o = spec.rotation_weight * spec.rotation_weight;
      return std::make_shared<PositionOrientationGoal>(model, spec.site, X,
                                                       spec.weight, scales);
    }
    case GoalKind::kAxis:
      return std::make_shared<AxisGoal>(model, spec.site, axis,
                                        X.linear() * axis, spec.weight);
    case GoalKind::kAiming:
      return std::make_shared<AimingGoal>(
          model, spec.site, axis,
          X.translation() + spec.distance * (X.linear() * axis), spec.weight);
    case GoalKind::kPlane:
      return std::make_shared<PlaneGoal>(model, spec.site, X.translation(),
                                         RandomUnitVector(rng), spec.weight);
    case GoalKind::kCone:
      return std::make_shared<ConeGoal>(model, spec.site, axis,
                                        X.linear() * axis, spec.angle,
                                        spec.weight);
    case GoalKind::kPositionBox:
      return std::make_shared<PositionBoxGoal>(
          model, spec.site, X, Eigen::Vector3d::Constant(-spec.tolerance),
          Eigen::Vector3d::Constant(spec.tolerance), spec.weight);
    case GoalKind::kGaze:
      return std::make_shared<GazeGoal>(
          model, spec.site, axis,
          X.translation() + spec.distance * (X.linear() * axis), spec.angle,
          spec.weight);
    case GoalKind::kOrientationBox:
      return std::make_shared<OrientationBoxGoal>(
          model, spec.site, X.linear(), Eigen::Vector3d::Constant(-spec.angle),
          Eigen::Vector3d::Constant(spec.angle), spec.weight);
    case GoalKind::kPointDistance:
      return std::make_shared<PointDistanceGoal>(
          model, spec.site,
          X.translation() + spec.distance * RandomUnitVector(rng),
          std::max(0.0, spec.distance - spec.tolerance),
          spec.distance + spec.tolerance, spec.weight);
    case GoalKind::kSiteDistance: {
      const double d =
          (X.translation() -
           SitePose(model, data, model.SiteIndex(spec.other_site)).translation())
              .norm();
      return std::make_shared<SiteDistanceGoal>(
          model, spec.site, spec.other_site, std::max(0.0, d - spec.tolerance),
          d + spec.tolerance, spec.weight);
    }
    case GoalKind::kRelativePose: {
      // B = site held in the frame of A = other_site.
      const Eigen::Isometry3d X_AB =
          SitePose(model, data, model.SiteIndex(spec.other_site)).inverse() * X;
      RelativePoseParts parts;
      parts.orientation = !spec.position_only;
      parts.length_per_radian = spec.rotation_weight;
      return std::make_shared<RelativePoseGoal>(model, spec.other_site,
                                                spec.site, X_AB, spec.weight,
                                                parts);
    }
    case GoalKind::kJointRange:
    case GoalKind::kJointPosture:
    case GoalKind::kCollisionFree:
    case GoalKind::kWeightedSum:
    case GoalKind::kDisjunctive:
      break;
  }
  throw std::logic_error("MakeSimpleGoal: composite or joint goal kind");
}

std::shared_ptr<const Goal> MakeGoal(const Model& model,
                                     const Eigen::VectorXd& q, const Data& data,
                                     const GoalSpec& spec,
                                     std::mt19937_64* rng) {
  if (spec.kind == GoalKind::kWeightedSum) {
    std::vector<std::shared_ptr<const Goal>> parts;
    for (const GoalSpec& part : spec.parts) {
      parts.push_back(MakeSimpleGoal(model, q, data, part, rng));
    }
    return std::make_shared<WeightedSumGoal>(std::move(parts), spec.weight);
  }
  if (spec.kind == GoalKind::kDisjunctive) {
    // The first alternative is met at the generating pose; the others at
    // other random poses, so "any one of" has a real choice to make.
    std::vector<std::shared_ptr<const Goal>> parts;
    parts.push_back(MakeSimpleGoal(model, q, data, spec.parts[0], rng));
    Data other(model);
    for (std::size_t i = 1; i < spec.parts.size(); ++i) {
      const Eigen::VectorXd q_other = RandomModelPose(model, rng);
      ForwardKinematics(model, q_other, &other);
      parts.push_back(MakeSimpleGoal(model, q_other, other, spec.parts[i], rng));
    }
    return std::make_shared<DisjunctiveGoal>(std::move(parts), spec.weight);
  }
  return MakeSimpleGoal(model, q, data, spec, rng);
}

}  // namespace

const char* GoalKindName(GoalKind kind) {
  switch (kind) {
    case GoalKind::kPosition: return "position";
    case GoalKind::kOrientation: return "orientation";
    case GoalKind::kPose: return "pose";
    case GoalKind::kAxis: return "axis";
    case GoalKind::kAiming: return "aiming";
    case GoalKind::kPlane: return "plane";
    case GoalKind::kWeightedSum: return "weighted-sum";
    case GoalKind::kDisjunctive: return "any-of";
    case GoalKind::kCone: return "cone";
    case GoalKind::kPositionBox: return "position-box";
    case GoalKind::kGaze: return "gaze";
    case GoalKind::kOrientationBox: return "orientation-box";
    case GoalKind::kPointDistance: return "distance";
    case GoalKind::kSiteDistance: return "site-distance";
    case GoalKind::kRelativePose: return "relative-pose";
    case GoalKind::kJointRange: return "joint-range";
    case GoalKind::kJointPosture: return "joint-posture";
    case GoalKind::kCollisionFree: return "collision-free";
  }
  return "unknown";
}

GoalSpec GoalSpec::Position(std::string site, double weight) {
  GoalSpec g;
  g.kind = GoalKind::kPosition;
  g.site = std::move(site);
  g.weight = weight;
  return g;
}
GoalSpec GoalSpec::Orientation(std::string site, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kOrientation;
  return g;
}
GoalSpec GoalSpec::Pose(std::string site, double rotation_weight,
                        double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPose;
  g.rotation_weight = rotation_weight;
  return g;
}
GoalSpec GoalSpec::Axis(std::string site, Eigen::Vector3d axis, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kAxis;
  g.axis = axis;
  return g;
}
GoalSpec GoalSpec::Aiming(std::string site, Eigen::Vector3d axis,
                          double distance, double weight) {
  GoalSpec g = Axis(std::move(site), axis, weight);
  g.kind = GoalKind::kAiming;
  g.distance = distance;
  return g;
}
GoalSpec GoalSpec::Plane(std::string site, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPlane;
  return g;
}
GoalSpec GoalSpec::Cone(std::string site, Eigen::Vector3d axis, double angle,
                        double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kCone;
  g.axis = std::move(axis);
  g.angle = angle;
  return g;
}
GoalSpec GoalSpec::PositionBox(std::string site, double tolerance,
                               double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPositionBox;
  g.tolerance = tolerance;
  return g;
}
GoalSpec GoalSpec::Gaze(std::string site, Eigen::Vector3d axis, double angle,
                        double distance, double weight) {
  GoalSpec g = Cone(std::move(site), std::move(axis), angle, weight);
  g.kind = GoalKind::kGaze;
  g.distance = distance;
  return g;
}
GoalSpec GoalSpec::OrientationBox(std::string site, double angle,
                                  double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kOrientationBox;
  g.angle = angle;
  return g;
}
GoalSpec GoalSpec::PointDistance(std::string site, double distance,
                                 double tolerance, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPointDistance;
  g.distance = distance;
  g.tolerance = tolerance;
  return g;
}
GoalSpec GoalSpec::SiteDistance(std::string site, std::string other_site,
                                double tolerance, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kSiteDistance;
  g.other_site = std::move(other_site);
  g.tolerance = tolerance;
  return g;
}
GoalSpec GoalSpec::RelativePose(std::string site, std::string other_site,
                                double rotation_weight, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kRelativePose;
  g.other_site = std::move(other_site);
  g.rotation_weight = rotation_weight;
  return g;
}
GoalSpec GoalSpec::RelativePosition(std::string site, std::string other_site,
                                    double weight) {
  GoalSpec g = RelativePose(std::move(site), std::move(other_site), 1.0, weight);
  g.position_only = true;
  return g;
}
GoalSpec GoalSpec::JointRange(std::vector<int> coordinates, double angle,
                              double weight) {
  GoalSpec g;
  g.kind = GoalKind::kJointRange;
  g.coordinates = std::move(coordinates);
  g.angle = angle;
  g.weight = weight;
  return g;
}
GoalSpec GoalSpec::JointPosture(std::vector<int> coordinates, double weight) {
  GoalSpec g = JointRange(std::move(coordinates), 0.1, weight);
  g.kind = GoalKind::kJointPosture;
  return g;
}
GoalSpec GoalSpec::WeightedSum(std::vector<GoalSpec> parts, double weight) {
  GoalSpec g;
  g.kind = GoalKind::kWeightedSum;
  g.parts = std::move(parts);
  g.weight = weight;
  return g;
}
GoalSpec GoalSpec::AnyOf(std::vector<GoalSpec> parts, double weight) {
  GoalSpec g = WeightedSum(std::move(parts), weight);
  g.kind = GoalKind::kDisjunctive;
  return g;
}

GoalSpec GoalSpec::CollisionFree(std::shared_ptr<const CollisionSetup> collisions,
                                 double clearance, bool hard, double weight) {
  GoalSpec g;
  g.kind = GoalKind::kCollisionFree;
  g.collisions = std::move(collisions);
  g.clearance = clearance;
  g.hard = hard;
  g.weight = weight;
  return g;
}

std::string GoalSpec::Label() const {
  std::string label = GoalKindName(kind);
  if (kind == GoalKind::kCollisionFree) {
    std::string what;
    if (collisions != nullptr && !collisions->self_pairs.empty()) what = "self";
    if (collisions != nullptr && !collisions->obstacles.empty()) {
      what += (what.empty() ? "" : ", ") +
              std::to_string(collisions->obstacles.size()) + " obstacles";
    }
    return label + "(" + what + ")";
  }
  if (kind == GoalKind::kWeightedSum || kind == GoalKind::kDisjunctive) {
    label += "(";
    for (std::size_t i = 0; i < parts.size(); ++i) {
      label += (i ? ", " : "") + parts[i].Label();
    }
    return label + ")";
  }
  if (kind == GoalKind::kJointRange || kind == GoalKind::kJointPosture) {
    if (coordinates.empty()) return label + "(all)";
    label += "(";
    for (std::size_t i = 0; i < coordinates.size(); ++i) {
      label += (i ? "," : "") + std::to_string(coordinates[i]);
    }
    return label + ")";
  }
  if (kind == GoalKind::kRelativePose) {
    return (position_only ? "relative-position(" : "relative-pose(") + site +
           " in " + other_site + ")";
  }
  if (kind == GoalKind::kSiteDistance) {
    return label + "(" + site + ", " + other_site + ")";
  }
  return label + "(" + site + ")";
}

Scenario RandomTargets(std::vector<GoalSpec> goals) {
  return [goals = std::move(goals)](const TrialContext& context) {
    const Model& model = *context.model;
    Trial trial(context.model);
    // Collision goals first: they do not depend on the generating pose, but
    // the pose must meet them (every checked distance ≥ clearance), so it is
    // drawn again until it does.
    std::vector<std::shared_ptr<const ShapeCollisionGoal>> collisions;
    for (const GoalSpec& spec : goals) {
      if (spec.kind != GoalKind::kCollisionFree) continue;
      collisions.push_back(std::make_shared<const ShapeCollisionGoal>(
          model, spec.collisions->shapes, spec.collisions->obstacles,
          spec.collisions->self_pairs, spec.clearance, spec.weight));
    }
    Data data(model);
    constexpr int kMaxDraws = 10000;
    for (int draw = 0;; ++draw) {
      if (draw == kMaxDraws) {
        throw std::invalid_argument(
            "RandomTargets: no generating pose meets the collision goals in " +
            std::to_string(kMaxDraws) +
            " random draws within the limits; lower the clearance or check "
            "the obstacles and the self-collision matrix");
      }
      trial.q_generator = RandomModelPose(model, context.rng);
      ForwardKinematics(model, trial.q_generator, &data);
      bool clear = true;
      for (const auto& c : collisions) {
        clear = clear && c->Error(model, data).position == 0.0;
      }
      if (clear) break;
    }
    std::size_t next_collision = 0;
    for (const GoalSpec& spec : goals) {
      if (spec.kind == GoalKind::kCollisionFree) {
        const auto& goal = collisions[next_collision++];
        if (spec.hard) {
          trial.problem.AddInequalityConstraint(goal);
        } else {
          trial.problem.AddGoal(goal);
        }
        continue;
      }
      trial.problem.AddGoal(
          MakeGoal(model, trial.q_generator, data, spec, context.rng));
    }
    return trial;
  };
}

Scenario FixedGoals(std::function<void(Problem* problem)> add_goals) {
  if (!add_goals) throw std::invalid_argument("FixedGoals: add_goals is empty");
  return [add_goals = std::move(add_goals)](const TrialContext& context) {
    Trial trial(context.model);
    add_goals(&trial.problem);
    return trial;
  };
}

Scenario HermiteToRandomTarget(std::string site, int frames, bool position_only,
                               double rotation_weight) {
  if (frames < 1) {
    throw std::invalid_argument("HermiteToRandomTarget: frames must be >= 1, got " +
                                std::to_string(frames));
  }
  return [=](const TrialContext& context) {
    if (context.start.size() == 0) {
      throw std::invalid_argument(
          "HermiteToRandomTarget needs a start pose known before solving "
          "(not StartPose::kPreviousTrial)");
    }
    const Model& model = *context.model;
    const int index = model.SiteIndex(site);
    Trial trial(context.model);
    trial.q0 = context.start;
    trial.q_generator = RandomModelPose(model, context.rng);
    Data data(model);
    ForwardKinematics(model, trial.q0, &data);
    const Eigen::Isometry3d from = SitePose(model, data, index);
    ForwardKinematics(model, trial.q_generator, &data);
    const Eigen::Isometry3d to = SitePose(model, data, index);
    const PointPath curve = HermitePath(from.translation(), to.translation());
    trial.frames = frames;
    if (position_only) {
      auto goal = std::make_shared<PositionGoal>(model, site, from.translation());
      trial.problem.AddGoal(goal);
      trial.path = MovePositionGoal(goal, curve);
      return trial;
    }
    PositionOrientationScales scales;
    scales.w_o = rotation_weight * rotation_weight;
    auto goal = std::make_shared<PositionOrientationGoal>(model, site, from, 1.0,
                                                          scales);
    trial.problem.AddGoal(goal);
    const Eigen::Quaterniond r0(from.linear()), r1(to.linear());
    trial.path = [goal, curve, r0, r1](int, double s, Problem*) {
      // Zero-tangent Hermite easing h01(s) = 3s² − 2s³ for the rotation too.
      const double h = s * s * (3.0 - 2.0 * s);
      Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
      X.linear() = r0.slerp(h, r1).normalized().toRotationMatrix();
      X.translation() = curve(s);
      goal->set_target(X);
    };
    return trial;
  };
}

}  // namespace iklab
