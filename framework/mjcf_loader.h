#ifndef IKLAB_FRAMEWORK_MJCF_LOADER_H_
#define IKLAB_FRAMEWORK_MJCF_LOADER_H_

/// @file
/// Figures from MuJoCo models (MJCF), compiled by MuJoCo itself (Debian's
/// libmujoco-dev, `mj_loadXML`): iklab never parses MJCF; it reads the
/// compiled mjModel, so defaults classes, `<include>`, `fromto`, degrees vs
/// radians, euler/axisangle/xyaxes/zaxis orientations and every other piece of
/// the format mean exactly what MuJoCo makes of them.
///
///     MjcfFigure panda = LoadMjcfChain("panda.xml", "panda_link0",
///                                      "panda_hand");
///     Model model = panda.figure.Compile();   // 7 revolute coordinates
///     int hand = model.SiteIndex("panda_hand");
///
/// Bodies and frames. Every MuJoCo body becomes a link of the same name (an
/// unnamed body is "body<id>"; the world body is MuJoCo's "world"), and the
/// link frame is the body frame, so a body's pos/quat relative to its parent
/// body is the X_PJ of the joint that carries it. A body without joints hangs
/// on a fixed joint named "fixed:<body>". MuJoCo moves a body about its
/// joints in order, each about its anchor `pos` (in the body frame, after the
/// preceding joints): X_PB = X_body * Π_k T(p_k) A_k(q_k) T(-p_k). A body with
/// joints j1…jn therefore becomes the chain
///
///     parent --j1--> "<body>:<j1>" --j2--> … --jn--> <body>
///
/// with X_PJ(j1) = X_body T(p_1) and X_PJ(jk) = T(p_k - p_{k-1}); the last
/// joint's child is the body itself, or, when its anchor p_n is not zero, one
/// more link "<body>:<jn>" followed by a fixed joint "anchor:<body>" with
/// X_PJ = T(-p_n). Joint names are MuJoCo's ("joint<id>" when unnamed).
///
/// | MuJoCo joint | Figure joint and coordinates                              |
/// |--------------|-----------------------------------------------------------|
/// | hinge        | kRevolute about jnt_axis; q = qpos - qpos0               |
/// | slide        | kPrismatic along jnt_axis; q = qpos - qpos0              |
/// | ball         | kSpherical, axes z, y, x: R(qpos quat) = Rz(q0)Ry(q1)Rx(q2) |
/// | free         | kFloating: tx,ty,tz = qpos[0:3], Rz(rz)Ry(ry)Rx(rx) = R(qpos[3:7]) |
///
/// Coordinates. MuJoCo measures hinge and slide joints from their reference
/// `ref` (qpos0): its kinematics rotate by qpos - qpos0. iklab's coordinate is
/// that difference, so q = 0 is MuJoCo's reference pose, and the limits are
/// range - qpos0. Ball and free joints hold a unit quaternion in qpos (4
/// numbers, no reference); iklab's spherical and floating joints are Euler-like
/// chains of revolute steps, so their rotation is stored as intrinsic z-y-x
/// angles (q0 about z, then q1 about the new y, then q2 about the newest x):
/// R = Rz(q0) Ry(q1) Rx(q2) is MuJoCo's quaternion as a rotation matrix. The
/// angles are singular at q1 = ±π/2 (gimbal lock), where MuJoCo's quaternion
/// is not. A free joint's position is qpos[0:3] as it stands (a free body
/// hangs on the world, its pose is in world coordinates, X_PJ is the
/// identity). MjcfQposToQ and MjcfQToQpos convert a whole configuration
/// either way (quaternion → angles takes q1 in [-π/2, π/2]).
///
/// Limits. A limited hinge or slide has [range[0], range[1]] - qpos0; an
/// unlimited one is unbounded. A limited ball joint in MuJoCo bounds the
/// rotation angle by range[1] = θ (a cone); iklab's per-coordinate box cannot
/// express that, so each of its three angles gets [-θ/3, θ/3]: a rotation with
/// |q0|, |q1|, |q2| <= θ/3 turns by at most θ (rotation angles add at most,
/// ‖log(R1 R2)‖ <= ‖log R1‖ + ‖log R2‖), so every iklab answer lies inside
/// MuJoCo's cone, at the price of part of it. Such joints are listed in
/// MjcfFigure::narrowed_ball_joints. Free joints are unbounded.
///
/// Sites. Every MJCF `<site>` on a loaded body is a site of the figure with
/// its pos/quat (an unnamed one is "site<id>"). In chain mode a tip that is a
/// body (not a site) gets a site of the same name at the body frame.
///
/// Couplings. An active `<equality><joint joint1="a" joint2="b"
/// polycoef="a0 a1 0 0 0">` says qpos_a - qpos0_a = a0 + a1 (qpos_b - qpos0_b):
/// in iklab coordinates q_a = a1 q_b + a0, listed as a mimic relation in
/// MjcfFigure::mimics (the same struct and meaning as UrdfFigure::mimics: the
/// loader lists the relation; imposing it is the caller's). A nonzero a2, a3 or
/// a4 (a polynomial coupling), a joint equality without joint2 (a locked
/// joint) and any other active equality (connect, weld, tendon, distance: a
/// closed loop a tree cannot express) touching the loaded figure are refused.
/// Inactive equalities (active="false") are ignored.
///
/// Geoms. The geoms of the loaded bodies are listed (type, MuJoCo's size
/// numbers, pose in the body frame, mesh name and convex hull, collision
/// masks) in MjcfFigure::geoms for collision use
/// (framework/collision_geometry.h); they do not change the figure.
///
/// Whole model or chain. By default the whole body tree is loaded, rooted at
/// the world body. With a base body and a tip (a site or a body:
/// MjcfOptions::base_body/tip, or LoadMjcfChain) only the bodies on the path
/// base → tip and the joints between them are kept.
///
/// Errors. Every failure throws std::invalid_argument whose message starts
/// with the file name: "arm.xml: MuJoCo could not compile the model: Error:
/// unknown attribute 'rnage' ... line = 12" (MuJoCo's own message, which names
/// the element and its line, is quoted). MuJoCo's compile warnings are kept in
/// MjcfFigure::warnings, never printed.
///
/// MuJoCo's error hook. MuJoCo reports a fatal error by calling the
/// process-wide `mju_user_error` hook, and without one it prints and calls
/// exit(). On first use this loader installs hooks (InstallMujocoHandlers)
/// that throw std::runtime_error("MuJoCo error: ...") instead, and that
/// collect warnings on the calling thread (or print them to stderr if
/// nothing collects); hooks someone else installed first are kept. MuJoCo's
/// compiler swaps the hooks while it runs, so loads are serialized.

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/figure.h"
#include "framework/model.h"
#include "framework/urdf_loader.h"  // UrdfMimic: the shape of a mimic relation

namespace iklab {

/// Options of the MJCF loaders. The defaults load the whole tree.
struct MjcfOptions {
  /// Chain mode: when both are set, keep only the path from the body
  /// `base_body` (the figure's root) to `tip`, a site name or else a body
  /// name. Both empty: the whole tree. Setting only one is an error.
  std::string base_body;
  std::string tip;
};

/// MuJoCo's joint types, as the loader maps them (see the file comment).
enum class MjcfJointType { kFree, kBall, kSlide, kHinge };

/// One MuJoCo joint of the loaded figure and where its numbers live.
struct MjcfJoint {
  /// Name in the figure and in MuJoCo ("joint<id>" when unnamed in MuJoCo).
  std::string name;
  MjcfJointType type = MjcfJointType::kHinge;
  /// Index of the joint in the mjModel.
  int mujoco_id = -1;
  /// First index of the joint's numbers in MuJoCo's qpos (1, 4 or 7 numbers).
  int qpos_address = -1;
  /// Hinge and slide: qpos0 (the `ref`), subtracted to give iklab's q.
  double reference = 0.0;
};

/// A geom of a loaded body, as MuJoCo compiled it.
struct MjcfGeom {
  std::string name;  ///< "geom<id>" when unnamed.
  /// "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box"
  /// or "mesh".
  std::string type;
  /// The link (body) it is attached to.
  std::string link;
  /// MuJoCo's geom_size: sphere radius; capsule/cylinder radius and half
  /// length; box and ellipsoid half sizes; plane half sizes and grid spacing.
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  /// Pose of the geom frame G in the body (link) frame B; capsules and
  /// cylinders lie along G's z axis.
  Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();
  /// Mesh name for "mesh" geoms, else empty.
  std::string mesh;
  /// MuJoCo's collision bit masks: both 0 marks a visual-only geom.
  int contype = 1;
  int conaffinity = 1;
  /// "mesh" geoms: the convex hull MuJoCo's compiler made of the mesh
  /// (mesh_graph), vertices in the geom frame G and triangles indexing them;
  /// empty when MuJoCo made none.
  std::vector<Eigen::Vector3d> hull_vertices;
  std::vector<Eigen::Vector3i> hull_triangles;
};

/// A loaded MJCF model: the figure and what the Figure itself cannot say.
struct MjcfFigure {
  Figure figure;
  /// The `<mujoco model=...>` attribute (MuJoCo's default "MuJoCo Model" if
  /// absent).
  std::string model_name;
  /// The file path (or source name) the figure came from.
  std::string source;
  /// The MuJoCo joints of the figure, in MuJoCo's order.
  std::vector<MjcfJoint> joints;
  /// MuJoCo's qpos size and default configuration (qpos0) of the whole model.
  Eigen::VectorXd qpos0;
  /// Joint equalities as mimic relations in iklab coordinates, for followers
  /// in the loaded figure (the leader may have been dropped in chain mode).
  std::vector<UrdfMimic> mimics;
  std::vector<MjcfGeom> geoms;
  /// MuJoCo joints left out of the figure (chain mode), in MuJoCo's order.
  std::vector<std::string> dropped_joints;
  /// Limited ball joints whose cone became the inner box [-θ/3, θ/3]^3.
  std::vector<std::string> narrowed_ball_joints;
  /// MuJoCo's compile warnings.
  std::vector<std::string> warnings;
};

/// Loads an MJCF file through MuJoCo's compiler.
/// @param path file to read (relative `<include>` and asset paths are
///   resolved from its folder, as MuJoCo does).
/// @throws std::invalid_argument if the file cannot be read, MuJoCo rejects
///   it (its message quoted), or it uses something the mapping refuses; the
///   message starts with "path: ".
MjcfFigure LoadMjcf(const std::string& path, const MjcfOptions& options = {});

/// Loads the chain base_body → tip (a site, or else a body) of an MJCF file.
/// @throws std::invalid_argument as LoadMjcf, and if either name is unknown
///   or base_body is not an ancestor of tip.
MjcfFigure LoadMjcfChain(const std::string& path, const std::string& base_body,
                         const std::string& tip, MjcfOptions options = {});

/// Loads MJCF text held in memory (tests, generated models), through a
/// MuJoCo virtual file named `source_name`.
/// @throws std::invalid_argument as LoadMjcf.
MjcfFigure LoadMjcfFromString(const std::string& xml,
                              const std::string& source_name = "model.xml",
                              const MjcfOptions& options = {});

/// iklab's configuration of `model` (compiled from mjcf.figure) from MuJoCo's
/// qpos (see the file comment). Coordinates of joints outside the figure are
/// ignored.
/// @throws std::invalid_argument if qpos.size() != mjcf.qpos0.size() or the
///   model lacks a joint of mjcf.joints.
Eigen::VectorXd MjcfQposToQ(const MjcfFigure& mjcf, const Model& model,
                            const Eigen::Ref<const Eigen::VectorXd>& qpos);

/// MuJoCo's qpos from iklab's q; joints outside the figure keep qpos0.
/// @throws std::invalid_argument if q.size() != model.nq() or the model lacks
///   a joint of mjcf.joints.
Eigen::VectorXd MjcfQToQpos(const MjcfFigure& mjcf, const Model& model,
                            const Eigen::Ref<const Eigen::VectorXd>& q);

/// Installs MuJoCo error and warning hooks that throw std::runtime_error and
/// collect warnings instead of printing and calling exit() (see the file
/// comment). Idempotent and thread-safe; the loaders call it. Call it before
/// using MuJoCo's own functions on a model from these loaders.
void InstallMujocoHandlers();

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_MJCF_LOADER_H_
