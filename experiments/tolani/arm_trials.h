#ifndef IKLAB_EXPERIMENTS_TOLANI_ARM_TRIALS_H_
#define IKLAB_EXPERIMENTS_TOLANI_ARM_TRIALS_H_

/// @file
/// The common set-up of the reproductions of Tolani, Goswami & Badler (2000),
/// Tables 4–7: random goals for a 7-DOF SRS arm (the paper's human arm, or a
/// robot such as the KUKA iiwa14: ArmSetup), the five methods compared
/// (analytic, L-BFGS-B, Ceres, pseudo-inverse and DLS along a Hermite path)
/// as the solvers of a study (lab/study.h) that solves every trial with
/// every method and verifies each answer, the paper's error measures and the
/// per-condition summaries.
///
/// Parameters the paper leaves out, chosen once here:
///  * the arms: TolaniArmGeometry() (left arm of a 1.75 m body, Winter's
///    segment lengths, AAOS joint limits; framework/builders.h), effector
///    the "hand" site (fingertip); and the KUKA iiwa14 (shipped URDF, its
///    limits), effector iiwa_link_ee (ArmSetup::Iiwa14);
///  * goals: q drawn uniformly within the joint limits, FK → goal; the start
///    pose of the numerical methods is another such draw (a random start,
///    as an interactive user would leave the arm anywhere);
///  * success: position error ≤ 1e-5 m, angle error ≤ 1e-5 rad and, with
///    joint limits on, the pose within the limits (1e-9 rad); the solvers
///    stop at their default tolerances 1e-6 m / 1e-6 rad;
///  * inverse Jacobian: the hand follows a cubic Hermite curve with zero end
///    tangents from its start pose to the goal (the orientation by slerp with
///    the same Hermite easing, the rotational part of a screw motion),
///    kHermiteFrames frames, each solved by kIterationsPerFrame iterations at
///    most (the paper integrates the same path with a Bulirsch–Stoer ODE
///    solver; we take fixed frames re-converged by Newton-type steps);
///  * DLS damping kDamping (metres; the paper's inverse Jacobian is an
///    undamped SVD pseudo-inverse, DLS is our addition);
///  * aiming: the effector's aim axis (the hand's x axis; the iiwa's tool
///    axis x) aims at a point kAimDistance along it from the generating
///    pose; partial orientation: the effector's partial axis (the hand's z
///    axis, along the fingers; the iiwa's tool axis x) is aligned;
///  * position-only and aiming goals: the analytic solver holds the wrist at
///    the angles the goal was generated with (the paper: the wrist angles
///    are "chosen by the user"); the numerical methods move all 7 joints.

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "lab/experiment.h"
#include "lab/study.h"
#include "framework/builders.h"
#include "framework/model.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/solver.h"

namespace iklab {
namespace tolani {

/// Hermite frames of the inverse-Jacobian path (our choice).
inline constexpr int kHermiteFrames = 50;
/// Solver iterations per Hermite frame (our choice).
inline constexpr int kIterationsPerFrame = 20;
/// DLS damping λ, metres (our choice: 10 % of the smallest singular values
/// of the arm's position Jacobian away from singular poses).
inline constexpr double kDamping = 0.05;
/// Distance of the aim target along the hand's x axis, metres (our choice).
inline constexpr double kAimDistance = 0.5;
/// Success thresholds (our choice; the standard IK benchmark's 1e-5).
inline constexpr double kSuccessPosition = 1e-5;
inline constexpr double kSuccessAngle = 1e-5;
/// Most solves per goal of the optimization methods (L-BFGS-B, Ceres): the
/// start pose, then random restarts within the limits (our choice; the paper
/// does not say how its CFSQP runs were started).
inline constexpr int kOptimizerAttempts = 5;
/// Goals per condition for the constrained-NLP methods (SQP, IPOPT): the
/// first this many of a reachable condition's goals, and of an unreachable
/// one's (our choice: IPOPT spends about 25 ms per solve in set-up, and on
/// unreachable goals every one of its attempts fails, so all the goals would
/// make a table take minutes).
inline constexpr int kConstrainedGoals = 200;
inline constexpr int kConstrainedUnreachableGoals = 40;

/// The IK task of a table.
enum class Task { kPosition, kPose, kPartial, kAiming };

/// The paper's three columns, and the constrained-NLP methods (SQP and
/// IPOPT with the goal as hard equality constraints: the faithful
/// counterpart of the paper's CFSQP). The paper's claims about
/// "optimization" are judged on kOptimization (L-BFGS-B, Ceres), as before
/// the constrained methods were added; kConstrainedOptimization has claims of
/// its own.
enum class Family {
  kAnalytic,
  kOptimization,
  kInverseJacobian,
  kConstrainedOptimization
};

/// One random goal with the start pose of the numerical methods.
struct Trial {
  Eigen::VectorXd q_goal;   ///< pose that generated the goal (7)
  Eigen::VectorXd q_start;  ///< start pose of the numerical methods (7)
  Eigen::Isometry3d goal = Eigen::Isometry3d::Identity();  ///< hand pose, world
  Eigen::Vector3d aim_target = Eigen::Vector3d::Zero();    ///< world
};

/// One arm of the trials: a Model whose seven coordinates form an SRS chain
/// (SrsArm) ending at the effector site, and the choices the paper leaves
/// out for it (which site axis a partial-orientation goal aligns and which
/// one aims). Everything the trials need — random poses, the shoulder
/// centre, the reach, the wrist angles of a pose, the points of a drawing —
/// comes from the Model and its SrsArm, so any SRS arm runs the same tables.
struct ArmSetup {
  /// The paper's arm: TolaniArmGeometry() (left arm of a 1.75 m body,
  /// Winter's segment lengths, AAOS limits) as a LimbFigure; effector the
  /// "hand" site (fingertip); partial orientation aligns the hand's z axis
  /// (along the fingers), aiming uses its x axis.
  static ArmSetup HumanArm();
  /// The paper's leg (Figs. 14–15): TolaniLegGeometry(), effector "foot"
  /// (toe tip), axes as HumanArm().
  static ArmSetup HumanLeg();
  /// The KUKA iiwa14 of data/robots/iiwa14.urdf (DataFile), chain base →
  /// iiwa_link_ee, URDF limits. The tool axis of iiwa_link_ee is its x axis
  /// (along the flange normal, away from the wrist): partial orientation
  /// aligns it (the five-axis tool task, rotation about the tool free) and
  /// aiming points it (a camera on the flange).
  /// @throws std::invalid_argument if the data file is missing.
  static ArmSetup Iiwa14();

  /// Any arm.
  /// @param name short label used in tables, claims and file names.
  /// @param description what the arm is, for the report's parameters.
  /// @param model the arm; its coordinates are exactly the SRS chain's seven,
  ///   each with finite limits (poses are drawn within them).
  /// @param site_name the effector site.
  /// @param partial_axis site axis of partial-orientation goals (unit).
  /// @param aim_axis site axis of aiming goals (unit).
  /// @throws std::invalid_argument naming the argument: an unknown site, a
  ///   chain that is not SRS (with SrsArm::Create's reason), other
  ///   coordinates than the chain's, an unbounded coordinate, a non-unit
  ///   axis.
  ArmSetup(std::string name, std::string description,
           std::shared_ptr<const Model> model, const std::string& site_name,
           const Eigen::Vector3d& partial_axis,
           const Eigen::Vector3d& aim_axis);

  std::string name;
  std::string description;
  std::shared_ptr<const Model> model;
  std::shared_ptr<const SrsArm> srs;
  std::string site_name;
  int site = -1;
  Eigen::Vector3d partial_axis = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d aim_axis = Eigen::Vector3d::UnitX();
  /// Shoulder centre → site length at full stretch, metres: the upper and
  /// lower segments of the SRS reading and the wrist → site offset (the
  /// human limbs: their anthropometric lengths, equal to 1 ulp).
  double reach = 0.0;

  /// q uniform within the limits, coordinate by coordinate.
  Eigen::VectorXd RandomPose(std::mt19937_64* rng) const;
  /// X_WS, the site pose at q.
  Eigen::Isometry3d HandPose(const Eigen::VectorXd& q) const;
  /// The shoulder centre in the world (the SRS limb frame's origin).
  Eigen::Vector3d Shoulder() const;
  /// θ5, θ6, θ7 of q (the wrist angles).
  Eigen::Vector3d WristAngles(const Eigen::VectorXd& q) const;
  /// Shoulder centre, elbow, wrist centre and site at q (world), for
  /// drawings.
  std::array<Eigen::Vector3d, 4> ChainPoints(const Eigen::VectorXd& q) const;
  /// A reachable trial: both poses drawn within the limits; the aim target
  /// kAimDistance along the aim axis of the generating pose.
  Trial RandomTrial(std::mt19937_64* rng) const;
  /// An unreachable one: the hand position of a random pose pushed out along
  /// the shoulder→hand direction to 1.1 … 1.4 × reach (orientation kept).
  Trial UnreachableTrial(std::mt19937_64* rng) const;
};

/// A claim of the paper (made for its human limbs) checked on `arm`, which
/// the paper did not measure: the claim text starts with the arm's name and
/// the paper's statement is quoted as the human limb's, for reference.
Claim OnAnotherArm(const ArmSetup& arm, Claim claim);

/// What one method did on one trial.
struct Outcome {
  double seconds = 0.0;
  double position_error = 0.0;     ///< metres (0 for aiming)
  double orientation_error = 0.0;  ///< the paper's measure (see Evaluate)
  double angle = 0.0;              ///< radians
  bool within_limits = true;
  bool success = false;
  /// The solver's status (the last frame's for the inverse Jacobian).
  SolveStatus status = SolveStatus::kNotSolved;
};

/// Errors of the final pose q, measured as the paper does: position = the
/// distance to the goal; full orientation = 1 − |q_goal · q| (unit
/// quaternions); partial orientation and aiming = (1 − a_e · a_g)².
Outcome Evaluate(const ArmSetup& arm, Task task, const Trial& trial,
                 const Eigen::VectorXd& q, bool limits);

/// A method of the tables: the solver a study runs, and its column.
struct Method {
  StudySolver solver;
  Family family = Family::kAnalytic;
};

/// The methods compared for `task` with joint limits on or off, in table
/// order: the analytic solver ("analytic (ours, IKAN)"; wrist angles of
/// position-only and aiming goals held at the trial's generating pose),
/// L-BFGS-B and Ceres LM (each restarted from random poses within the limits
/// while it misses, at most kOptimizerAttempts solves, all timed), and with
/// `inverse_jacobian` the pseudo-inverse and DLS along a Hermite path
/// (HermitePathSolver: kHermiteFrames frames of at most kIterationsPerFrame
/// iterations; the pseudo-inverse has no limit mechanism and runs free, its
/// final pose judged against the limits; DLS is bounded DLS when the limits
/// are on), and the constrained NLP methods "SQP (NLopt SLSQP)" and "IPOPT"
/// (Family::kConstrainedOptimization; each goal a hard constraint in minimal
/// form — Problem::WithGoalsAsConstraints — minimizing the displacement
/// ½ μ ‖q − q_start‖² from the start pose, restarted like L-BFGS-B).
std::vector<Method> Methods(const ArmSetup& arm, Task task, bool limits,
                            bool inverse_jacobian);

/// A study of `methods` on `trials` of `task`: each trial's problem as the
/// paper states the goal, started from the trial's q_start; success at
/// kSuccessPosition / kSuccessAngle and within the limits when `limits`; the
/// solvers stop at 1e-6 (their defaults); no time budget.
Study TableStudy(const ArmSetup& arm, Task task, std::vector<Trial> trials,
                 const std::vector<Method>& methods, bool limits);

/// The outcomes of method `method` in `result`: the paper's errors
/// (Evaluate) of each answer, with its time and status.
std::vector<Outcome> Outcomes(const ArmSetup& arm, Task task,
                              const std::vector<Trial>& trials,
                              const StudyResult& result, int method,
                              bool limits);

/// Mean/median over trials (errors averaged over the successful ones).
struct Summary {
  int trials = 0;
  double mean_seconds = 0.0;
  double median_seconds = 0.0;
  /// Means over the successful goals; NaN when no goal succeeded.
  double mean_position_error = 0.0;
  double mean_orientation_error = 0.0;
  double failure_percent = 0.0;
};
Summary Summarize(const std::vector<Outcome>& outcomes);

}  // namespace tolani
}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_TOLANI_ARM_TRIALS_H_
