#ifndef IKLAB_LAB_MOTION_RETARGETING_H_
#define IKLAB_LAB_MOTION_RETARGETING_H_

/// @file
/// Motion retargeting onto another figure: a source motion (BVH) re-solved
/// on a target figure of other proportions, joint names or structure (a
/// scaled or renamed BVH skeleton, the human figure), frame by frame, with
/// the key points of a RetargetMap (lab/retarget_map.h), the source's
/// posture, foot contacts, smoothness and the target's joint limits.
///
///     BvhFigure clip = LoadBvh("walk.bvh");
///     Model source = clip.figure.Compile();
///     auto target = std::make_shared<const Model>(HumanFigure().Compile());
///     KeyPointTrack track = MakeKeyPointTrack(source, clip.poses, frames,
///                                             clip.frame_time, HumanoidMap(),
///                                             *target);
///     MotionRetargetOptions options;
///     options.contacts = ContactMode::kPenalty;
///     MotionRetargetResult r = RetargetMotion(target, track, solver,
///                                             options, start);
///
/// Key points and scaling (the per-segment scaling of Gleicher, "Retargetting
/// motion to new characters", SIGGRAPH 1998, and of the GMR/PHC
/// retargeters). Each pair k of the map has a parent: the pair whose source
/// site is its nearest ancestor in the source tree (none for the root, e.g.
/// the hips). With R = R_TS (the map's axes), s = L_T / L_S (the ratio of
/// the leg lengths, each the rest-pose height of the root key point above
/// the lowest foot key point, or of any key point without feet; where the
/// root is the lowest, both are the largest rest distance from the root to
/// a key point) and ρ_k = |p_T,rest(k) − p_T,rest(parent)| /
/// |p_S,rest(k) − p_S,rest(parent)| (the ratio of the segment's rest
/// lengths), the target of key point k at frame t is
///
///     root:  P(k, t) = s R (p_S(k, t) − g_S u_S)
///     other: P(k, t) = P(parent, t) + ρ_k R (p_S(k, t) − p_S(parent, t)),
///
/// where g_S is the source's ground height (the lowest height a foot key
/// point reaches in the clip) along its up axis u_S: the root's height above
/// the ground and its stride are scaled by s, each segment keeps the
/// source's direction and takes the target's length. The target's ground is
/// the plane through its world origin normal to its up axis u_T; since a
/// foot placed by per-segment scaling reaches lower or higher than s times
/// the source's, every key point is then shifted along u_T so that the
/// lowest foot key point of the clip (of any key point without feet)
/// touches the ground.
///
/// Posture. Where a pair has an orientation weight, the target site turns in
/// the world as the source site does from its rest pose,
///
///     R_goal(k, t) = R R_S(k, t) R_S,rest(k)ᵀ Rᵀ R_T,rest(k),
///
/// R_S(k, t) being the product of the source's local joint rotations from
/// the root to the site: when both skeletons stand alike at rest this asks
/// for the source's local joint rotations, whatever the target's joint
/// frames and parameterization. The rest poses (also those of the lengths
/// above): the source's q = 0; the target's q = 0 with the map's
/// target_rest coordinates (TargetRestPose, lab/retarget_map.h), so that a
/// robot whose q = 0 is not the source's rest (the H1's forearms point
/// forward) is compared in the pose that is.
///
/// The problem of frame t (weights w of MotionRetargetOptions; L = L_T, so
/// that every term is invariant to the target's length unit and size):
///
///     Σ_k ½ (w_key w_k / L²) ‖P(k, t) − p_k(q)‖²        key points
///   + Σ_k ½ w_orient w'_k ‖r_orient,k(q)‖²               posture
///   + Σ_i a_i (q_i − q_{t−1,i})²                         smoothness
///   + contacts (below),  subject to  lower ≤ q ≤ upper    joint limits
///
/// with a_i = w_smooth for revolute coordinates and w_smooth / L² for
/// prismatic ones (the root's translation), and q_{t−1} the previous frame's
/// answer (also the solve's start). Contacts: the source's contact phases
/// are detected (lab/retarget_metrics.h); while foot key point k is in
/// contact it stays at its position at the phase's first frame (lifted onto
/// the ground if below it) — no sliding — and at every frame every foot key
/// point stays on or above the ground — no penetration. After the phase the
/// planted goal fades out over contact_blend_seconds (a weighted goal in
/// both modes), unless a point of the same foot (foot key points one of
/// which is the other's key-point ancestor: an ankle and its toe) lands
/// first: the foot's old anchor no longer says where it stands. kPenalty
/// adds both as goals of weight w_contact / L² (the exterior penalty of
/// constraints/inequality_goal.h for the ground); kHard adds them as hard
/// equality and inequality constraints, which only the constrained solvers
/// (slsqp, ipopt) accept.
///
/// Where a phase begins, its points are anchored where the target's own
/// foot puts them (lifted onto the ground if below it), not at the source's
/// points: the source's foot has other proportions, so its points need not
/// fit the target's foot, and a toe anchored at the source's toe beside an
/// ankle planted earlier would pull the foot off that ankle's anchor. So
/// such a frame is first solved with the points planted before held as
/// they stand (their planted goals, and in kHard their equalities) and the
/// new phase's points placed: with penalties they follow their key points
/// only; in kHard they are pulled to the source's points by penalties
/// (the equalities keep the foot standing) and keep the ground as a
/// constraint. The new anchors are that answer's foot points. Hard
/// constraints must be consistent and independent (SLSQP's subproblem needs
/// linearly independent active constraints), so in kHard each planted point
/// is an equality constraint only in the directions its position Jacobian
/// adds to the points before it (lab/planted_point_goal.h; chosen again
/// whenever a phase begins or ends) — given a rigid foot's first point its
/// second adds 2 directions and a third, off their line, 1: the foot's 6
/// degrees of freedom, so every point of the foot is held, without
/// dependent equalities. Planted points keep their penalty goals and have
/// no ground constraint (their anchors are on or above the ground).
///
/// Branch check. A limb with position goals only (as the H1's arms were
/// before the map gave them a rest pose and posture) has more than
/// one joint-space answer near some poses (an arm raised sideways turns its
/// shoulder pitch almost about the upper arm's axis, as the shoulder yaw
/// does), and the warm start can drift along them into a corner of the
/// joint limits from which a local solver does not come back when the key
/// points move on. So a frame whose largest key-point error exceeds
/// branch_check_error × L is solved a second time from the previous answer
/// with every coordinate that does not move the root key point set back to
/// the target's rest pose (KeyPointTrack::target_rest; the start where a
/// track has none), and the second answer replaces the first
/// when its key-point cost Σ_k w_k ‖P(k, t) − p_k(q)‖² is below half the
/// first's.
///
/// Self-collision. Where the target has collision geometry
/// (MotionRetargetOptions::collision_shapes, e.g. a robot's URDF/MJCF
/// shapes), its self-collision matrix (constraints/self_collision_matrix.h)
/// is computed once per retarget unless the options bring one
/// (self_collision_matrix), and with self_collision on every frame
/// adds the minimum-distance inequalities c_k = −d_k(q) ≤ 0 of the matrix's
/// enabled link pairs (constraints/shape_collision.h): kPenalty as the
/// exterior penalty ½ (w_self / L²) Σ_k max(0, c_k)², kHard as hard
/// inequality constraints (slsqp, ipopt). Self-penetration is measured over
/// the enabled and the "never" pairs (SelfPenetrationGoal).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/self_collision_matrix.h"
#include "constraints/shape_collision.h"
#include "framework/builders.h"
#include "framework/collision_geometry.h"
#include "framework/model.h"
#include "lab/retarget_map.h"
#include "lab/retarget_metrics.h"
#include "lab/retargeting.h"
#include "solvers/solver.h"

namespace iklab {

/// How foot contacts enter the problem (see the file comment).
enum class ContactMode { kOff, kPenalty, kHard };

/// "off", "penalty", "hard".
const char* ContactModeName(ContactMode mode);

/// The mode named `name`.
/// @throws std::invalid_argument naming the known modes.
ContactMode ParseContactMode(const std::string& name);

/// The key points of a motion on the target, frame by frame (see the file
/// comment), and what the contacts need.
struct KeyPointTrack {
  /// Per key point (one per map pair, in map order).
  std::vector<std::string> source_sites;
  std::vector<std::string> target_sites;
  std::vector<double> position_weights;
  std::vector<double> orientation_weights;
  /// Index of the parent key point; −1 for a root.
  std::vector<int> parent;
  /// ρ_k (s for a root).
  std::vector<double> segment_scale;
  /// P(k, t) and R_goal(k, t): p[t][k], R[t][k], target world.
  std::vector<std::vector<Eigen::Vector3d>> p;
  std::vector<std::vector<Eigen::Matrix3d>> R;
  /// Key point indices of the feet, and their source positions per frame
  /// (source world), for contact detection.
  std::vector<int> feet;
  std::vector<std::vector<Eigen::Vector3d>> source_feet;
  Eigen::Vector3d source_up = Eigen::Vector3d::UnitY();
  Eigen::Vector3d target_up = Eigen::Vector3d::UnitY();
  /// L_S, L_T and s = L_T / L_S; g_S.
  double source_leg_length = 0.0;
  double target_leg_length = 0.0;
  double scale = 1.0;
  double source_ground = 0.0;
  /// Seconds per frame and the source frames the rows stand for.
  double frame_time = 0.0;
  std::vector<int> frames;
  /// The target's rest pose: q = 0 with the map's target_rest coordinates
  /// (TargetRestPose); the branch check's seed.
  Eigen::VectorXd target_rest;
};

/// The key points of `frames` of a source motion (rows of `poses`) on
/// `target` (see the file comment).
/// @throws std::invalid_argument if a site of the map is unknown
///   (CheckRetargetMap), a frame is not a row of poses, poses has not
///   source.nq() columns, frame_time <= 0, or a leg length is not > 0 (every
///   key point at the root at rest).
KeyPointTrack MakeKeyPointTrack(const Model& source,
                                const Eigen::MatrixXd& poses,
                                const std::vector<int>& frames,
                                double frame_time, const RetargetMap& map,
                                const Model& target);

/// Weights and contacts of RetargetMotion (see the file comment for the
/// terms they weigh).
struct MotionRetargetOptions {
  /// w_key: key points (a miss of 1% of the leg costs ½ w_key 1e-4).
  double keypoint_weight = 1.0;
  /// w_orient: posture; 0.05 lets a 0.1 rad twist cost what a key point miss
  /// of about 2% of the leg does, so positions lead and the posture settles
  /// what they leave free (axial twists, the feet's and hands' turn).
  double orientation_weight = 0.05;
  /// w_smooth: pull toward the previous frame, which fixes the coordinates
  /// no goal determines and damps frame-to-frame jitter, at the price of a
  /// lag: on the procedural walk at 120 Hz onto its own skeleton the answer
  /// trails the clip's joint angles by at most 0.0011 rad at 0.001 (0.011
  /// rad at 0.01; exact at 0).
  double smoothness_weight = 0.001;
  ContactMode contacts = ContactMode::kOff;
  /// w_contact (kPenalty): 100 × the key points', so a planted foot yields
  /// about 1% as much as a key point would.
  double contact_weight = 100.0;
  /// Seconds over which a released foot's planted goal fades out (its
  /// weight falls linearly to 0), so that the foot does not jump from where
  /// it stood to the source's key point in one frame — the blend of the
  /// adjustments around contact boundaries of Kovar, Schreiner & Gleicher,
  /// "Footskate cleanup for motion capture editing", SCA 2002. 0.1 s: a
  /// few frames of a 30–120 Hz clip, short against a 0.3–0.4 s swing.
  double contact_blend_seconds = 0.1;
  /// Contact detection thresholds.
  ContactOptions contact;
  /// Branch check (see the file comment), in leg lengths; 0: off. 0.1
  /// (about 10 cm on the H1 and on an adult): twice the largest error a
  /// well-tracked frame shows on the shipped walk onto the H1, so the
  /// second solve runs only on frames that fail.
  double branch_check_error = 0.1;
  /// The target's collision geometry (RobotTarget::collision_shapes); empty:
  /// none, self_collision must be kOff and self-penetration is n/a.
  std::vector<LinkShape> collision_shapes;
  /// Self-collision of the target (see the file comment): kOff, kPenalty
  /// (a goal of weight self_collision_weight / L²) or kHard (inequality
  /// constraints; slsqp, ipopt).
  ContactMode self_collision = ContactMode::kOff;
  /// w_self: as contact_weight, so a 1% of the leg overlap costs what a
  /// planted foot's 1% slide does.
  double self_collision_weight = 100.0;
  /// How the self-collision matrix is computed (MoveIt's 10,000 samples by
  /// default).
  SelfCollisionMatrixOptions collision_matrix;
  /// The self-collision matrix of collision_shapes, made beforehand (e.g.
  /// RobotSelfCollisionMatrix, lab/robot_target.h: once per process and
  /// robot file, so that several retargets onto one robot compute it once);
  /// nullptr: RetargetMotion computes it with collision_matrix.
  std::shared_ptr<const SelfCollisionMatrix> self_collision_matrix;

  /// True if every weight is finite and >= 0, `contact` and
  /// `collision_matrix` are valid, and self_collision is kOff and
  /// self_collision_matrix null without collision_shapes.
  bool IsValid(std::string* why) const;
};

/// A retargeted motion: the solved frames, the source's contact phases
/// (contact[t][j] for track.feet[j]) and the metrics.
struct MotionRetargetResult {
  RetargetRun run;
  std::vector<std::vector<char>> contact;
  RetargetMetrics metrics;
  /// The target's self-collision matrix (empty pairs without
  /// collision_shapes).
  SelfCollisionMatrix self_collision_matrix;
};

/// The shape pairs self-penetration is measured on: every pair of the
/// matrix's kEnabled and kNever link pairs (those that may overlap in
/// motion; adjacent links touch at their joint by construction, and
/// "default" and "always" pairs overlap at rest), margin 0; nullptr when
/// there are none.
/// @throws std::invalid_argument as ShapeCollisionGoal.
std::shared_ptr<const ShapeCollisionGoal> SelfPenetrationGoal(
    const Model& model, const std::vector<LinkShape>& shapes,
    const SelfCollisionMatrix& matrix);

/// The contact phases of the track's feet in the source motion.
/// @throws std::invalid_argument as DetectContacts.
std::vector<std::vector<char>> SourceContacts(const KeyPointTrack& track,
                                              const ContactOptions& options);

/// Solves every frame of `track` on `target` (see the file comment), each
/// from the previous answer (`start` for the first).
/// @throws std::invalid_argument for invalid options, a track of another
///   figure (unknown site), start of the wrong size, collision shapes on
///   unknown links, a self_collision_matrix that does not fit the target
///   and shapes (CheckSelfCollisionMatrix), or kHard (contacts or
///   self-collision) with a solver that refuses hard constraints (its
///   message).
MotionRetargetResult RetargetMotion(const std::shared_ptr<const Model>& target,
                                    const KeyPointTrack& track,
                                    const Solver& solver,
                                    const MotionRetargetOptions& options,
                                    const Eigen::VectorXd& start);

/// The metrics of any solved motion of `track` on `model` (e.g. an
/// effector-only RetargetRun), with `contact` from SourceContacts;
/// self-penetration over `self_penetration`'s pairs (nullptr: n/a).
/// @throws std::invalid_argument if the run's size differs from the track's.
RetargetMetrics MeasureAgainstTrack(
    const Model& model, const KeyPointTrack& track, const RetargetRun& run,
    const std::vector<std::vector<char>>& contact,
    const ShapeCollisionGoal* self_penetration = nullptr);

/// The human figure's options that a retarget target name asks for:
/// "human" (the default proportions) or "human:H" (height H metres, e.g.
/// "human:1.6"); nullopt for any other name (a skeleton or robot file).
/// @throws std::invalid_argument naming `onto` when H is not a finite
///   number of metres > 0.
std::optional<HumanFigureOptions> HumanRetargetOptions(const std::string& onto);

/// A solver of the registry (solvers/registry.h) set up for frame-by-frame
/// retargeting: goal tolerance `tolerance` (target length units), at most
/// 10,000 iterations, no time budget and no random restarts (bounded-lm's
/// own are off too): a restart would jump to an unrelated pose and break
/// the frame-to-frame continuity.
/// @throws std::invalid_argument for an unknown name (listing the known
///   ones), an analytic solver or extended-jacobian (which take one arm of
///   a given shape or one planar goal), or a tolerance that is not > 0.
std::unique_ptr<Solver> MakeMotionRetargetSolver(const std::string& name,
                                                 double tolerance = 1e-4);

}  // namespace iklab

#endif  // IKLAB_LAB_MOTION_RETARGETING_H_
