#ifndef IKLAB_LAB_STUDY_SCENARIOS_H_
#define IKLAB_LAB_STUDY_SCENARIOS_H_

/// @file
/// Scenarios of a study (lab/study.h): how each trial's problem is made. A
/// GoalSpec says which goal to make at a trial's generating pose (a random
/// pose within the limits, so that every trial is reachable by
/// construction); a Scenario makes a whole trial — its problem, start pose,
/// and in trajectory mode the path its goals follow — from the trial's own
/// random generator.

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "framework/model.h"
#include "lab/collision_files.h"
#include "solvers/trajectory.h"

namespace iklab {

/// The goal kinds a study can generate (Tolani §2.4's potentials and the inequality goals).
enum class GoalKind {
  kPosition,     ///< PositionGoal at the site's generated position.
  kOrientation,  ///< OrientationGoal at the site's generated rotation.
  kPose,         ///< PositionOrientationGoal (position + orientation).
  kAxis,         ///< AxisGoal: the site's `axis` along its generated direction.
  kAiming,       ///< AimingGoal: the site's `axis` aims at a point `distance`
                 ///< along it at the generating pose.
  kPlane,        ///< PlaneGoal: the site on a plane through its generated
                 ///< position with a random normal.
  kWeightedSum,  ///< WeightedSumGoal of `parts` (each with its weight).
  kDisjunctive,  ///< DisjunctiveGoal: any one of `parts` (the first is met
                 ///< at the generating pose, the others at other random
                 ///< poses).
  kCone,         ///< ConeGoal (inequality, smooth penalty form): the site's
                 ///< `axis` within `angle` of its generated direction.
  kPositionBox,  ///< PositionBoxGoal (inequality, smooth penalty form): the
                 ///< site within ±`tolerance` of its generated position on
                 ///< each axis of its generated frame (TRAC-IK's bounds).
  kGaze,         ///< GazeGoal (inequality): the site's `axis` within `angle`
                 ///< of the direction to a point `distance` along it at the
                 ///< generating pose.
  kOrientationBox,  ///< OrientationBoxGoal (inequality): the site's rotation
                    ///< vector relative to its generated orientation within
                    ///< ±`angle` radians per axis.
  kPointDistance,   ///< PointDistanceGoal (inequality): the site's distance
                    ///< to a point `distance` away in a random direction at
                    ///< the generating pose stays within ±`tolerance` of
                    ///< `distance`.
  kSiteDistance,    ///< SiteDistanceGoal (inequality): the distance between
                    ///< `site` and `other_site` within ±`tolerance` of its
                    ///< generated value.
  kRelativePose,    ///< RelativePoseGoal: `site`'s pose (or position, with
                    ///< `position_only`) in `other_site`'s frame as
                    ///< generated; `rotation_weight` is its length per
                    ///< radian.
  kJointRange,      ///< JointRangeGoal (inequality): `coordinates` (empty:
                    ///< all) within ±`angle` of their generated values.
  kJointPosture,    ///< JointPostureGoal: `coordinates` (empty: all) at their
                    ///< generated values.
  kCollisionFree,   ///< ShapeCollisionGoal over `collisions` (the model
                    ///< file's collision shapes, its self-collision
                    ///< matrix's enabled pairs, obstacles): every checked
                    ///< signed distance ≥ `clearance`. A hard inequality
                    ///< constraint (`hard`) or its smooth penalty form. The
                    ///< generating pose is drawn collision-free (rejection
                    ///< sampling), so the trial stays reachable.
};

/// "position", "orientation", … for tables and messages.
const char* GoalKindName(GoalKind kind);

/// A goal of a random-target trial: made at the trial's generating pose (a
/// random pose within the joint limits), so that the generating pose meets
/// every goal of the trial at once — the trial is reachable by construction.
struct GoalSpec {
  GoalKind kind = GoalKind::kPose;
  /// Site the goal is attached to (unused for sums, disjunctions and joint
  /// goals).
  std::string site;
  /// Weight w of the goal's potential ½ w ‖r‖².
  double weight = 1.0;
  /// Axis or aiming goals: the axis in the site frame (unit length after
  /// normalization; must not be zero).
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();
  /// Aiming goals: distance of the aim point along the axis (model units,
  /// > 0).
  double distance = 0.5;
  /// Pose goals: scale c of the rotation residual against the position
  /// residual, r ≈ [Δp; c·θ] (length units per radian; the goal's
  /// PositionOrientationScales::w_o is c²).
  double rotation_weight = 1.0;
  /// Cone and gaze goals: the half-angle, radians in [0, π]; orientation
  /// boxes: the half-width per axis, radians in (0, π); joint ranges: the
  /// half-width per coordinate (> 0, the coordinate's unit).
  double angle = 0.1;
  /// Position boxes: the half-width of the box; point and site distances:
  /// the half-width of the distance interval. Model units, > 0.
  double tolerance = 0.01;
  /// Site distance and relative pose goals: the second site (the reference
  /// frame of a relative pose).
  std::string other_site;
  /// Relative pose goals: impose the relative position only.
  bool position_only = false;
  /// Joint goals: indices into q (distinct, in [0, nq)); empty: every
  /// coordinate.
  std::vector<int> coordinates;
  /// Weighted sums and disjunctions: their parts (not themselves sums or
  /// disjunctions).
  std::vector<GoalSpec> parts;
  /// Collision goals: the shapes, the checked self pairs and the obstacles
  /// (RobotCollisions: made once per model and shared by every trial).
  std::shared_ptr<const CollisionSetup> collisions;
  /// Collision goals: the required clearance (margin) beyond contact, model
  /// length units, ≥ 0.
  double clearance = 0.0;
  /// Collision goals: a hard inequality constraint c(q) ≤ 0 (honoured by
  /// the constrained-NLP solvers; the study's outputs list its smallest
  /// distance `min_distance` per solve, and success needs its violation
  /// within the position tolerance), else a goal in the smooth penalty form
  /// ½ w Σ max(0, c)² that every solver takes (its error is the violation
  /// max(0, clearance − d), checked the same way).
  bool hard = true;

  static GoalSpec Position(std::string site, double weight = 1.0);
  static GoalSpec Orientation(std::string site, double weight = 1.0);
  static GoalSpec Pose(std::string site, double rotation_weight = 1.0,
                       double weight = 1.0);
  static GoalSpec Axis(std::string site, Eigen::Vector3d axis,
                       double weight = 1.0);
  static GoalSpec Aiming(std::string site, Eigen::Vector3d axis,
                         double distance, double weight = 1.0);
  static GoalSpec Plane(std::string site, double weight = 1.0);
  static GoalSpec Cone(std::string site, Eigen::Vector3d axis, double angle,
                       double weight = 1.0);
  static GoalSpec PositionBox(std::string site, double tolerance,
                              double weight = 1.0);
  static GoalSpec Gaze(std::string site, Eigen::Vector3d axis, double angle,
                       double distance, double weight = 1.0);
  static GoalSpec OrientationBox(std::string site, double angle,
                                 double weight = 1.0);
  static GoalSpec PointDistance(std::string site, double distance,
                                double tolerance, double weight = 1.0);
  static GoalSpec SiteDistance(std::string site, std::string other_site,
                               double tolerance, double weight = 1.0);
  static GoalSpec RelativePose(std::string site, std::string other_site,
                               double rotation_weight = 1.0,
                               double weight = 1.0);
  static GoalSpec RelativePosition(std::string site, std::string other_site,
                                   double weight = 1.0);
  static GoalSpec JointRange(std::vector<int> coordinates, double angle,
                             double weight = 1.0);
  static GoalSpec JointPosture(std::vector<int> coordinates,
                               double weight = 1.0);
  static GoalSpec WeightedSum(std::vector<GoalSpec> parts, double weight = 1.0);
  static GoalSpec AnyOf(std::vector<GoalSpec> parts, double weight = 1.0);
  /// No self-collision and clear of obstacles, in one line:
  ///
  ///     study.goals.push_back(GoalSpec::CollisionFree(RobotCollisions(
  ///         *study.model, "panda.urdf", ParseCollisionSetting("self"))));
  ///
  /// @param collisions non-null (checked by Study::Validate).
  static GoalSpec CollisionFree(std::shared_ptr<const CollisionSetup> collisions,
                                double clearance = 0.0, bool hard = true,
                                double weight = 1.0);

  /// A short label, e.g. "pose(tool0)", "any-of(position(l), position(r))",
  /// "relative-pose(l in r)", "joint-range(all)",
  /// "collision-free(self, 3 obstacles)".
  std::string Label() const;
};

/// One trial as a scenario makes it.
struct Trial {
  explicit Trial(std::shared_ptr<const Model> model) : problem(std::move(model)) {}
  /// The trial's number, 0-based (set by the study).
  int index = 0;
  /// The problem every solver solves (its goals and bounds; the study adds
  /// its regularizers).
  Problem problem;
  /// The start pose; empty = per Study::start.
  Eigen::VectorXd q0;
  /// The pose that generated the targets, when known (a solver factory may
  /// read it, e.g. the wrist angles an analytic solver is to hold).
  Eigen::VectorXd q_generator;
  /// Trajectory mode: `frames` > 0 frames, `path` moves the problem's goals
  /// to frame k (SolveTrajectory), each solved from the previous frame's
  /// answer.
  int frames = 0;
  GoalPath path;
};

/// What a scenario is given to make one trial.
struct TrialContext {
  std::shared_ptr<const Model> model;
  /// Trial number, 0-based.
  int index = 0;
  /// The trial's own generator, seeded by (study seed, index) alone.
  std::mt19937_64* rng = nullptr;
  /// The start pose the study chose for this trial (Study::start); empty
  /// for StartPose::kPreviousTrial, whose start is known only when solving.
  Eigen::VectorXd start;
};

/// Makes one trial. Called once per (solver, trial) pair, so every solver
/// gets a fresh problem (paths mutate their goals); it must make the same
/// trial from the same context, and may be called from several threads at
/// once (Study::threads). Throw std::invalid_argument for bad input.
using Scenario = std::function<Trial(const TrialContext& context)>;

/// Random reachable targets: draws a pose within the limits and makes each
/// GoalSpec at it (the scenario behind Study::goals).
Scenario RandomTargets(std::vector<GoalSpec> goals);

/// The same goals in every trial (e.g. a fixed target set by hand):
/// `add_goals` adds them to each trial's problem; trials differ only by their
/// start poses.
Scenario FixedGoals(std::function<void(Problem* problem)> add_goals);

/// Trajectory mode: the site's pose follows a cubic Hermite path with zero
/// end tangents (position; orientation by slerp with the same easing
/// 3s² − 2s³) from its pose at the trial's start pose to its pose at a
/// random generating pose, in `frames` frames, as a pose goal (or a position
/// goal when `position_only`). Needs a start known in advance (not
/// StartPose::kPreviousTrial).
Scenario HermiteToRandomTarget(std::string site, int frames,
                               bool position_only = false,
                               double rotation_weight = 1.0);

}  // namespace iklab

#endif  // IKLAB_LAB_STUDY_SCENARIOS_H_
