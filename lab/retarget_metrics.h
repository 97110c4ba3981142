#ifndef IKLAB_LAB_RETARGET_METRICS_H_
#define IKLAB_LAB_RETARGET_METRICS_H_

/// @file
/// Foot contacts detected in a motion, and the measures of a retargeted
/// motion: how closely it tracks its key points, whether it respects the
/// joint limits, whether its feet slide or sink while they should stand,
/// how smooth it is and how long it took (lab/motion_retargeting.h).
///
/// Contact rule (Le Callennec & Boulic, "Robust kinematic constraint
/// detection for motion data", SCA 2006, use the same two tests, on the
/// position and the speed of a point): a foot point is in contact at frame
/// t when both
///
///     h(t) − min_t' h(t') <= height_threshold · L   and
///     ‖v(t)‖              <= speed_threshold · L  per second,
///
/// where h is its height (the up component of its position), the minimum is
/// over the clip (so an ankle, which stands a few centimetres above the
/// floor, is judged against its own lowest point), v its velocity by central
/// differences (one-sided at the ends) and L the source's leg length (the
/// rest-pose height of the root above its lowest key point), which makes
/// the thresholds independent of the file's length unit.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/shape_collision.h"
#include "framework/model.h"

namespace iklab {

/// Thresholds of the contact rule (see the file comment).
struct ContactOptions {
  /// Height above the point's lowest, in leg lengths. 0.05 (about 5 cm on an
  /// adult): above the 1–2 cm noise of optical capture, below the 10–15 cm a
  /// foot clears the floor in mid-swing.
  double height_threshold = 0.05;
  /// Speed, in leg lengths per second. 0.3 (about 0.3 m/s): a planted foot
  /// moves far slower, a swinging one at 2–4 m/s.
  double speed_threshold = 0.3;

  /// True if both thresholds are finite and > 0; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// Contact flags contact[t][k] (1: point k touches the ground at frame t).
/// @param positions positions[t][k] of the foot points, any world.
/// @param up the unit up axis of that world.
/// @param frame_time seconds per frame, > 0.
/// @param leg_length L, > 0, in the positions' unit.
/// @throws std::invalid_argument for invalid options, a non-positive
///   frame_time or leg_length, or rows of unequal length.
std::vector<std::vector<char>> DetectContacts(
    const std::vector<std::vector<Eigen::Vector3d>>& positions,
    const Eigen::Vector3d& up, double frame_time, double leg_length,
    const ContactOptions& options = {});

/// Horizontal speed of the foot points while in contact ("foot skating"):
/// ‖(I − u uᵀ)(p(t+1) − p(t))‖ / frame_time over every t and k with
/// contact[t][k] and contact[t+1][k].
struct Skating {
  double mean = 0.0;  ///< units per second; 0 with no contact frames
  double max = 0.0;
  int samples = 0;
};

/// Skating of `positions` during `contact` (see Skating).
/// @throws std::invalid_argument if the sizes disagree or frame_time <= 0.
Skating FootSkating(const std::vector<std::vector<Eigen::Vector3d>>& positions,
                    const std::vector<std::vector<char>>& contact,
                    const Eigen::Vector3d& up, double frame_time);

/// How deep the target's own collision shapes overlap over a motion: for
/// every frame t and checked shape pair k the signed distance d_k(q_t)
/// (constraints/shape_distance.h; negative: overlapping by −d_k).
struct SelfPenetration {
  /// False where the target has no collision geometry (a BVH skeleton, the
  /// human figure): the other fields are then meaningless, not 0 ("n/a").
  bool measured = false;
  /// Deepest overlap max(0, −min d_k) over frames and pairs (target units).
  double max = 0.0;
  /// Frames with any overlap (some d_k < 0).
  int frames = 0;
  /// PairName of the deepest pair ("" when none overlaps).
  std::string worst_pair;
  /// Shape pairs checked per frame.
  int pairs = 0;
};

/// The self-penetration of `q` over the shape pairs of `shapes` (its
/// self pairs and any obstacles; usually SelfPenetrationGoal's).
/// @throws std::invalid_argument if a q does not fit the model.
SelfPenetration MeasureSelfPenetration(const Model& model,
                                       const std::vector<Eigen::VectorXd>& q,
                                       const ShapeCollisionGoal& shapes);

/// The measures of one retargeted motion (units of the target).
struct RetargetMetrics {
  int frames = 0;
  /// Key-point tracking: ‖p_site(q_t) − target‖ over frames and key points.
  double tracking_mean = 0.0;
  double tracking_max = 0.0;
  /// The target site with the largest error.
  std::string tracking_worst;
  /// (frame, coordinate) pairs outside the target's limits by more than
  /// 1e-9, and the largest excess (radians or length units).
  int limit_violations = 0;
  double limit_violation_max = 0.0;
  /// Foot skating of the target's foot points during the source's contacts.
  Skating skating;
  /// Deepest foot point below the ground (height 0 along `up`), >= 0.
  double penetration_max = 0.0;
  /// Overlap of the target's own collision shapes (n/a without them).
  SelfPenetration self_penetration;
  /// Angular jerk (rad/s³), RotationJerk's RMS over frames and links: the
  /// jerk of each link's rotation relative to its parent link, measured on
  /// rotations, not on joint coordinates, so that an Euler angle's wrap at
  /// ±180° or a gimbal flip costs nothing.
  double jerk_rms = 0.0;
  /// Key-point jerk (target length units/s³), PointJerk's RMS over frames
  /// and key points.
  double keypoint_jerk_rms = 0.0;
  /// Milliseconds of solver time per frame.
  double ms_per_frame_median = 0.0;
  double ms_per_frame_mean = 0.0;
  /// Frames whose solve reported convergence.
  int converged = 0;
};

/// Angular jerk of a motion, frame by frame. For each link ℓ of `model`
/// and frame t, R_ℓ(t) is its rotation relative to its parent link (the
/// link whose step is the nearest ancestor of its own; the world for a
/// root). Its body angular velocity between frames, from the rotation
/// difference,
///
///     ω_ℓ(t + ½) = Log(R_ℓ(t)ᵀ R_ℓ(t + 1)) / Δt       (rad/s; Log: the
///                                                      rotation vector)
///
/// and the jerk its second difference, j_ℓ(t) = (ω(t + 5/2) − 2 ω(t + 3/2)
/// + ω(t + ½)) / Δt² (rad/s³; a constant angular velocity has none, however
/// far it turns). Entry t (t = 0 .. frames − 4) is the RMS of ‖j_ℓ(t)‖ over
/// the links that turn relative to their parent (a revolute coordinate on
/// the steps between them), from frames t .. t + 3.
/// @param q q[t], the model's configuration at frame t.
/// @throws std::invalid_argument if frame_time <= 0 or a q does not fit.
std::vector<double> RotationJerk(const Model& model,
                                 const std::vector<Eigen::VectorXd>& q,
                                 double frame_time);

/// Position jerk of points, frame by frame: entry t is the RMS over the
/// points k of ‖p_k(t+3) − 3 p_k(t+2) + 3 p_k(t+1) − p_k(t)‖ / Δt³ (units
/// of p per s³), t = 0 .. frames − 4.
/// @throws std::invalid_argument if frame_time <= 0 or rows differ in size.
std::vector<double> PointJerk(
    const std::vector<std::vector<Eigen::Vector3d>>& positions,
    double frame_time);

/// Measures a solved motion.
/// @param q q[t], the target's configuration at frame t.
/// @param sites target sites of the key points; targets[t][k] their goals.
/// @param feet indices into `sites` of the foot points; contact[t][j] for
///   feet[j] (may be empty: no skating samples).
/// @param microseconds solver time per frame (may be empty).
/// @param converged per frame (may be empty).
/// @throws std::invalid_argument if the sizes disagree or a site is unknown.
RetargetMetrics MeasureRetargeting(
    const Model& model, const std::vector<Eigen::VectorXd>& q,
    const std::vector<std::string>& sites,
    const std::vector<std::vector<Eigen::Vector3d>>& targets,
    const std::vector<int>& feet,
    const std::vector<std::vector<char>>& contact, const Eigen::Vector3d& up,
    double frame_time, const std::vector<double>& microseconds,
    const std::vector<bool>& converged);

}  // namespace iklab

#endif  // IKLAB_LAB_RETARGET_METRICS_H_
