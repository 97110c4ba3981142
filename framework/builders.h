#ifndef IKLAB_FRAMEWORK_BUILDERS_H_
#define IKLAB_FRAMEWORK_BUILDERS_H_

/// @file
/// Builders for the figures the source papers use. Each returns a Figure (not
/// a Model) so callers can add sites or joints before compiling.
///
/// Frames. Planar figures lie in the world x–y plane with every revolute axis
/// along z (Parent §5.3: planar figures are 3-D figures; report x, y). Human
/// figures use x forward (anterior), y to the figure's left, z up, in metres.
///
/// Lengths and limits that the papers do not give are chosen here, once, and
/// stated next to the number.

#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/figure.h"

namespace iklab {

// ---------------------------------------------------------------------------
// Planar chains
// ---------------------------------------------------------------------------

/// A planar serial chain of revolute joints about z with relative angles
/// (Parent §5.3, Fig. 5.20; Šoch & Lórencz Fig. 4): joint i sits at the start
/// of link i, link i has length lengths[i] along its own x axis, so at q = 0
/// the chain is stretched along +x from `base`.
///
/// Names (with `prefix` prepended to each): root link "base" (no prefix);
/// joints/coordinates "q0" … "q{n-1}"; links "link0" … "link{n-1}"; sites
/// "joint0" … "joint{n}" at each joint position ("joint{n}" is the tip) and
/// "effector" at the tip. Joints are unlimited.
///
/// @param lengths link lengths, at least one, each finite and > 0.
/// @param base position of joint 0 in the world x–y plane.
/// @param prefix prepended to joint, link and site names (not to "base").
/// @throws std::invalid_argument naming the first bad length, or if `lengths`
///   is empty or `base` is not finite.
Figure PlanarChain(const std::vector<double>& lengths,
                   const Eigen::Vector2d& base = Eigen::Vector2d::Zero(),
                   const std::string& prefix = "");

/// Parent's three-link planar arm: lengths 15, 10, 5, base at the origin
/// (Parent §5.3.2, Fig. 5.20: start {π/8, π/4, π/4}, goal (−20, 5)).
Figure ParentArm();

/// Šoch & Lórencz's six-link test chain (Fig. 4): lengths 90, 60, 90, 150,
/// 150, 90 (sum 630), base at (−230, 0), so q = 0 puts the effector at
/// (400, 0), the right vertex of the ellipse x²/400² + y²/50² = 1 it follows.
Figure SochChain();

/// The branched planar figures of the NLP multi-effector paper (Example 5.7
/// and the 3- and 4-effector examples of §6). All joints revolute about z with
/// relative angles, every link `link_length` long, joints unlimited. Names
/// follow the paper's 1-based θ_i: joint/coordinate "theta{i}", link "link{i}"
/// (link i starts at joint i), site "joint{i}" at joint i's position.
///
///  - 2 effectors (Example 5.7): a 6-joint chain θ1…θ6 with "effector1" at the
///    end of link 6, and a 3-joint branch θ7…θ9 leaving after joint 3 (joint 7
///    sits at the end of link 3, where joint 4 also sits) with "effector2" at
///    the end of link 9. Absolute angle of link 6+i is θ1+θ2+θ3+Σ_{j≤i}θ_{6+j}.
///  - 3 effectors: the above plus a second 3-joint branch θ10…θ12 also leaving
///    after joint 3, "effector3" at the end of link 12. The paper's Figure 7
///    did not survive extraction; this "trunk with three limbs" is our choice.
///  - 4 effectors: the 3-effector figure plus "effector4", a point inserted on
///    the trunk. The paper starts it at "P2"; we read that as the end of link 2
///    (the position of joint 3), so effector 4 depends on θ1, θ2 only.
///
/// The paper gives no lengths; we choose 1 for every link, matching the unit
/// displacement "P2 + (0, −1)" of its 4-effector example.
///
/// @param num_effectors 2, 3 or 4.
/// @param link_length finite and > 0.
/// @throws std::invalid_argument for any other count or a bad length.
Figure NlpBranchedFigure(int num_effectors, double link_length = 1.0);

// ---------------------------------------------------------------------------
// The 7-DOF limb of Tolani, Goswami & Badler (2000), §3
// ---------------------------------------------------------------------------

/// Body side of a limb. Right limbs are mirror images of left ones in the
/// sagittal (x–z) plane; see TolaniArmGeometry for the sign rule.
enum class Side { kLeft, kRight };

/// Returns "left" or "right".
const char* SideName(Side side);

/// Everything an analytic solver needs to know about a 7-DOF limb, in the
/// notation of Tolani §3.1, Eq. (3):
///
///     G = T1(θ1, θ2, θ3) · A · Ty(θ4) · B · T2(θ5, θ6, θ7)
///
/// where G is the pose of S2's distal frame (the wrist/ankle frame) in S1's
/// proximal frame. T1 = R1 = R(s1_axes[0], θ1) R(s1_axes[1], θ2)
/// R(s1_axes[2], θ3) (intrinsic Euler angles, first factor applied about the
/// fixed proximal axis), Ty = Rot(y, θ4), T2 = R2 likewise with s2_axes.
///
/// Limb frame (S1's proximal frame): origin at the shoulder/hip centre,
/// x anterior, y to the figure's right, z distal (down the hanging limb). It is
/// the world frame of a standing figure rotated by π about x, so that positive
/// rotation about y swings the limb forward for both arm and leg and q = 0 is
/// the anatomical standing posture (limb hanging, palm forward).
///
/// Mirror rule: the right limb is the left one conjugated by the reflection
/// M = diag(1, −1, 1). Rotations about x and z change sign, rotations about y
/// do not; so a right coordinate about x or z has limits [−hi, −lo] of its
/// left twin and the same coordinate value moves it to the mirror pose.
struct LimbGeometry {
  Side side = Side::kLeft;
  /// "arm" or "leg".
  std::string kind;
  /// |t_a|: shoulder→elbow (upper arm) or hip→knee (thigh) length, metres.
  double upper_length = 0.0;
  /// |t_b|: elbow→wrist (forearm) or knee→ankle (shank) length, metres.
  double lower_length = 0.0;
  /// A: from S1's distal frame to F's proximal frame, A = [R_a, t_a].
  Eigen::Isometry3d A = Eigen::Isometry3d::Identity();
  /// B: from F's distal frame to S2's proximal frame, B = [R_b, t_b].
  Eigen::Isometry3d B = Eigen::Isometry3d::Identity();
  /// Euler axes of S1 and S2 in applied order (see the struct comment). The
  /// middle one is the angle whose sine stands alone in R (the paper's
  /// "sin θ1 = f1(φ)" of §3.2.4); the box limits keep it inside (−π/2, π/2)
  /// except the shoulder abduction, whose upper limit is exactly π/2.
  std::array<Eigen::Vector3d, 3> s1_axes;
  std::array<Eigen::Vector3d, 3> s2_axes;
  /// Axis of the revolute joint F in its proximal frame: always +y (Tolani
  /// §3.1 "without loss of generality").
  Eigen::Vector3d f_axis = Eigen::Vector3d::UnitY();
  /// Limits of θ1 … θ7 (radians), in the order of the coordinates.
  Eigen::Matrix<double, 7, 1> lower;
  Eigen::Matrix<double, 7, 1> upper;
  /// Pose of S1's proximal frame in the figure's root frame for the standalone
  /// limb figure (TolaniArm/TolaniLeg): shoulder at the origin, X = Rot(x, π).
  Eigen::Isometry3d X_RS1 = Eigen::Isometry3d::Identity();
  /// Distal segment beyond S2 (wrist to fingertip, or ankle to toe tip) in
  /// S2's distal frame; the "hand"/"foot" site.
  Eigen::Vector3d p_S2_tip = Eigen::Vector3d::Zero();
  /// Names of the joints, sites and links used by the figure builders.
  std::string s1_name, f_name, s2_name;  // e.g. "shoulder", "elbow", "wrist"
  std::string tip_site_name;             // "hand" or "foot"
};

/// Anthropometry used by the human builders: Winter, "Biomechanics and Motor
/// Control of Human Movement" (4th ed., 2009), Fig. 4.1, segment lengths as
/// fractions of body height H (after Drillis & Contini):
///   upper arm 0.186 H, forearm 0.146 H, hand 0.108 H,
///   thigh 0.245 H, shank 0.246 H, ankle height 0.039 H, foot length 0.152 H,
///   shoulder height 0.818 H, shoulder width 0.259 H, hip (joint) height
///   0.530 H, chin 0.870 H.
/// These fractions are consistent: 0.530 − 0.245 − 0.246 = 0.039 (ankle) and
/// 0.818 − 0.186 − 0.146 = 0.486 (Winter's wrist height 0.485 H).
struct Anthropometry {
  /// Body height H in metres. 1.75 m is our choice (an adult male of about
  /// median stature).
  double height = 1.75;
  /// Elbow carrying angle (valgus of the extended forearm), radians. Typical
  /// adult values are 5°–15°; we choose 10°. It makes the elbow axis not
  /// perpendicular to the shoulder–elbow–wrist plane, the general case of
  /// Tolani Eq. (5) (b ≠ 0 in a cos θ4 + b sin θ4 = c).
  double carrying_angle = 0.17453292519943295;  // 10° in radians
};

/// Geometry of Tolani's 7-DOF arm.
///
/// S1 (shoulder) = Ry(θ1) Rx(θ2) Rz(θ3): flexion(+)/extension, then
///   abduction/adduction, then humeral axial rotation. Middle angle θ2.
/// F (elbow) = Ry(θ4), flexion positive. A = [I, (0, 0, 0.186 H)].
/// S2 (wrist) = Rz(θ5) Ry(θ6) Rx(θ7): forearm pronation(+ left)/supination,
///   wrist flexion(+)/extension, radial/ulnar deviation. Middle angle θ6.
/// B = [Rx(±γ), Rx(±γ)·(0, 0, 0.146 H)], γ the carrying angle (+ left,
///   − right): the forearm leans laterally and S2's z axis runs along it.
/// Hand tip (fingertip) at (0, 0, 0.108 H) in the wrist frame.
///
/// Limits (left side; the right mirrors θ2, θ3, θ5, θ7), from the American
/// Academy of Orthopaedic Surgeons' average ranges ("Joint Motion: Method of
/// Measuring and Recording", 1965, as tabulated in Norkin & White,
/// "Measurement of Joint Motion"):
///   θ1 flexion 180°, extension 60°            → [−60°, 180°]
///   θ2 abduction 90° (glenohumeral part of the 180° arm elevation; the
///      scapula is not modelled and 90° is also where this Euler order is
///      singular), adduction 30° (across the body) → [−30°, 90°]
///   θ3 internal rotation 70°, external 90°     → [−90°, 70°]
///   θ4 elbow flexion 150°, extension 0°        → [0°, 150°]
///   θ5 zero = anatomical position (full supination); pronation + supination
///      80° + 80° measured from mid-position      → [0°, 160°]
///   θ6 wrist flexion 80°, extension 70°        → [−70°, 80°]
///   θ7 radial deviation 20°, ulnar 30°         → [−30°, 20°]
LimbGeometry TolaniArmGeometry(Side side = Side::kLeft,
                               const Anthropometry& body = {});

/// Geometry of Tolani's 7-DOF leg (the paper's arm chain with hip, knee,
/// ankle: §1 footnote).
///
/// S1 (hip) = Ry(θ1) Rx(θ2) Rz(θ3): flexion(+)/extension, abduction(+ left),
///   axial rotation (internal + left). Middle angle θ2.
/// F (knee) = Ry(θ4) in a frame turned by π about z (A = [Rz(π), (0, 0,
///   0.245 H)]) so that positive θ4 is flexion (the shank swings back).
/// B = [Rz(π), (0, 0, 0.246 H)] turns it back: at q = 0 the ankle frame equals
///   the limb frame.
/// S2 (ankle) = Rz(θ5) Ry(θ6) Rx(θ7): foot adduction(+ left)/abduction,
///   dorsiflexion(+)/plantarflexion, eversion(+ left)/inversion. Middle θ6.
/// Toe tip at (0.75 · 0.152 H, 0, 0.039 H) in the ankle frame: the ankle sits
///   above the point a quarter of the foot length from the heel (our choice)
///   and 0.039 H above the floor.
///
/// Limits (left side; AAOS 1965 as above):
///   θ1 hip flexion 120°, extension 30°          → [−30°, 120°]
///   θ2 abduction 45°, adduction 30°             → [−30°, 45°]
///   θ3 internal rotation 45°, external 45°      → [−45°, 45°]
///   θ4 knee flexion 135°, extension 0°          → [0°, 135°]
///   θ5 foot adduction/abduction (the ankle has no axial joint; this stands
///      for the subtalar and midtarsal twist, ±20° is our choice) → [−20°, 20°]
///   θ6 dorsiflexion 20°, plantarflexion 50°     → [−50°, 20°]
///   θ7 eversion 15°, inversion 35°              → [−35°, 15°]
LimbGeometry TolaniLegGeometry(Side side = Side::kLeft,
                               const Anthropometry& body = {});

/// A standalone 7-DOF limb: root link "torso" (arm) or "pelvis" (leg) with the
/// world axes (x forward, y left, z up), S1 at the origin. Joints: spherical
/// S1 (coordinates "<s1>.0/.1/.2" = θ1…θ3), revolute F (θ4), spherical S2
/// (θ5…θ7), so q = (θ1, …, θ7). Sites: "shoulder"/"hip" at S1, "elbow"/"knee"
/// at F, "wrist"/"ankle" = S2's distal frame (the paper's end-effector frame G)
/// and "hand"/"foot" at the distal tip (fingertip, toe tip).
///
/// X_W(wrist) = X_RS1 · T1 · A · Ty · B · T2, with the quantities of
/// `geometry`.
Figure LimbFigure(const LimbGeometry& geometry);

/// LimbFigure(TolaniArmGeometry(side, body)).
Figure TolaniArm(Side side = Side::kLeft, const Anthropometry& body = {});

/// LimbFigure(TolaniLegGeometry(side, body)).
Figure TolaniLeg(Side side = Side::kLeft, const Anthropometry& body = {});

// ---------------------------------------------------------------------------
// Whole human figure
// ---------------------------------------------------------------------------

/// Options of HumanFigure.
struct HumanFigureOptions {
  Anthropometry body;
  /// A 6-DOF floating root at the pelvis (true) or a pelvis fixed in the world
  /// (false).
  bool floating_root = true;
  /// Two-DOF sternoclavicular joints (elevation, protraction) between the
  /// chest and each arm.
  bool clavicles = true;
};

/// A whole human figure for many-goal problems, standing in the anatomical
/// position at q = 0 with the feet on the floor z = 0 and the head top at
/// z = H (world: x forward, y left, z up).
///
/// Tree (joint → child link; DOF):
///   root (floating 6 or fixed) → pelvis, origin midway between the hip
///     centres at height 0.530 H;
///   lumbar → abdomen, lower_thoracic → chest, upper_thoracic → upper_chest:
///     three spherical spine joints at 0.578 H, 0.674 H, 0.770 H (our split of
///     the trunk between the hip and shoulder heights);
///   neck → neck_link at 0.818 H, head → head_link at 0.910 H (skull base; our
///     choice between chin 0.870 H and eyes 0.936 H), both spherical;
///   per side: {left,right}_clavicle_protraction (about z), _clavicle_elevation
///     (about x) from the sternoclavicular joint at (0, ±0.020 H, 0.800 H) (our
///     choice) to the shoulder at (0, ±0.1295 H, 0.818 H) (half of Winter's
///     shoulder width 0.259 H); then the 7-DOF arm of TolaniArmGeometry;
///   per side: the 7-DOF leg of TolaniLegGeometry at hip centres (0, ±0.05 H,
///     0.530 H) (our choice, inside Winter's hip width 0.191 H).
/// Spherical trunk joints use Ry(flexion +) Rx(lateral bend) Rz(axial turn)
/// about world-aligned frames. DOF: 6 (root) + 9 (spine) + 3 + 3 (neck, head)
/// + 2 × 2 (clavicles) + 2 × 7 (arms) + 2 × 7 (legs) = 53; 49 without
/// clavicles, 6 fewer with a fixed root.
///
/// Limits (AAOS 1965): thoracolumbar flexion 80°, extension 25°, lateral
/// bending 35°, rotation 45° to each side, split equally over the three spine
/// joints; cervical flexion 45°, extension 45°, lateral bending 45°, rotation
/// 60°, split equally over neck and head. Sternoclavicular elevation 40°,
/// depression 10°, protraction/retraction ±25° (approximate values; our
/// choice). Limbs as in TolaniArmGeometry/TolaniLegGeometry. The root is
/// unlimited.
///
/// Joint, link and site names carry "left_"/"right_" for the limbs (e.g.
/// joint "left_shoulder", coordinates "left_shoulder.0"). Sites: "pelvis",
/// "neck", "head" (top of the head), and per side "_shoulder", "_elbow",
/// "_wrist", "_hand" (fingertip), "_hip", "_knee", "_ankle", "_foot" (toe
/// tip). The limb joints satisfy the mirror rule of LimbGeometry, and so do
/// the root (ty, rz, rx change sign) and the trunk (x and z rotations).
Figure HumanFigure(const HumanFigureOptions& options = {});

/// Names of the end-effector sites of HumanFigure: both hands, both feet and
/// the head.
std::vector<std::string> HumanEndEffectorSites();

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_BUILDERS_H_
