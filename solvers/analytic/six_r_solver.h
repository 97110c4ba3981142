#ifndef IKLAB_SOLVERS_ANALYTIC_SIX_R_SOLVER_H_
#define IKLAB_SOLVERS_ANALYTIC_SIX_R_SOLVER_H_

/// @file
/// Every inverse-kinematics solution (up to 8) of two families of 6R arms,
/// by the subproblem decomposition of Paden and Kahan (subproblems.h) as
/// IK-Geo organizes it (Elias & Wen, "IK-Geo: Unified robot inverse
/// kinematics using subproblem decomposition", arXiv:2211.05737, §V); the
/// decomposition and code are ours.
///
/// Kinematics. The chain base → tip site of a Model with six revolute
/// coordinates is written once, at construction, in product-of-exponentials
/// form (Murray, Li & Sastry §3.2): at q = 0 joint i has the world axis h_i
/// through the point p_i, the site has the pose X_0, and
///
///     X_WS(q) = E_1(q_1) ⋯ E_6(q_6) X_0,   E_i(θ) x = R(h_i, θ)(x − p_i) + p_i.
///
/// For a target X_WT the unknown motion g = X_WT X_0⁻¹ = E_1 ⋯ E_6 (rotation
/// R, translation t) is split into subproblems:
///
/// Spherical wrist (h_4, h_5, h_6 meet at a point w). E_4 E_5 E_6 fix w, so
/// E_1 E_2 E_3 w = g w: a 3-axis position problem, solved by one of
///  - h_1, h_2 meet at c: ‖E_3 w − c‖ = ‖g w − c‖ (SP3 for θ3), then SP2;
///  - h_2 ∥ h_3: h_2·(E_1⁻¹ g w) = h_2·w (SP4 for θ1), then the planar
///    two-link problem in the plane ⊥ h_2 (SP3 for θ3, SP1 for θ2);
///  - h_2, h_3 meet at c: ‖E_1⁻¹ g w − c‖ = ‖w − c‖ (SP3 for θ1), then SP2;
///  - h_1 ∥ h_2: h_1·(E_3 w) = h_1·(g w) (SP4 for θ3), then the planar
///    two-link problem ⊥ h_1;
/// (≤ 4 solutions), then the wrist R(h_4, θ4) R(h_5, θ5) h_6 = R_w h_6 with
/// R_w = (R_1 R_2 R_3)ᵀ R (SP2, ≤ 2) and θ6 by SP1.
///
/// UR type (h_2 ∥ h_3 ∥ h_4, and h_5, h_6 meet at a point p56). Rotations
/// about axes parallel to h_2 keep the h_2 component of points and h_2
/// itself, which gives two scalar equations with one unknown each:
///  - h_2·(E_1⁻¹ g p56) = h_2·p56 (SP4 for θ1, ≤ 2),
///  - h_2ᵀ R_1ᵀ R h_6 = h_2ᵀ R(h_5, θ5) h_6 (SP4 for θ5, ≤ 2),
/// then R(h_6, −θ6) R_5ᵀ h_2 = Rᵀ R_1 h_2 (SP1 for θ6), the sum
/// θ2 ± θ3 ± θ4 from R_2 R_3 R_4 = R_1ᵀ R R_6ᵀ R_5ᵀ (SP1), and the planar
/// two-link problem E_2 E_3 p_4 = E_1⁻¹ g E_6⁻¹ E_5⁻¹ p_4 (SP3 for θ3, SP1 for
/// θ2; p_4 on axis 4); θ4 from the sum (≤ 2 · 2 · 2 = 8 solutions).
///
/// Singular poses (e.g. the wrist singularity, axis 6 aligned with axis 4,
/// or, for the UR type, axis 6 parallel to axes 2–4) have infinitely many
/// solutions: one angle is free. The representative rule: the free joint
/// takes the value given in `free_values` (the seed, in the Solver; 0 by
/// default) and the others follow; SixRSolutions::singular says so.

#include <array>
#include <memory>
#include <mutex>
#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/problem.h"
#include "framework/model.h"
#include "solvers/first_solve.h"
#include "solvers/solver.h"

namespace iklab {

using Vector6d = Eigen::Matrix<double, 6, 1>;

/// Which decomposition a SixRArm uses.
enum class SixRFamily {
  /// Axes 4, 5, 6 intersect in a point (PUMA, KUKA KR, ABB IRB, Fanuc, ...).
  kSphericalWrist,
  /// Axes 2, 3, 4 are parallel and axes 5, 6 intersect (Universal Robots).
  kThreeParallel,
};

/// "spherical wrist" or "three parallel axes".
const char* SixRFamilyName(SixRFamily family);

/// One solution of a SixRArm.
struct SixRSolution {
  /// Joint values in model coordinate order. Each angle is in (−π, π],
  /// shifted by ±2π into the model's limits where that makes it fit.
  Vector6d q = Vector6d::Zero();
  /// True if q is within the model's limits.
  bool within_limits = false;
};

/// All solutions of one target.
struct SixRSolutions {
  /// The exact solutions (each reaches the target up to rounding),
  /// distinct modulo 2π; entries [0, num_solutions) are valid.
  std::array<SixRSolution, 8> solutions;
  int num_solutions = 0;
  /// When num_solutions is 0 (target out of reach): the least-squares
  /// branches (each subproblem without an exact solution replaced by its
  /// least-squares answer, IK-Geo §IV), candidates for the closest pose.
  std::array<SixRSolution, 8> approximations;
  int num_approximations = 0;
  /// True when a subproblem had infinitely many solutions (a singular pose):
  /// the joint `free_coordinate` (model order) took its value from
  /// `free_values` and the solutions are representatives of families.
  bool singular = false;
  int free_coordinate = -1;
};

/// A 6R arm's geometry, read once from a Model, and its closed-form IK.
/// Immutable and thread-safe.
class SixRArm {
 public:
  /// Default tolerance of the geometry tests: axes count as parallel when
  /// ‖h_i × h_j‖ ≤ tolerance, lines as meeting when their distance is
  /// ≤ tolerance · L (L = the summed distances between consecutive joint
  /// points and the tip, the arm's length scale).
  static constexpr double kDefaultTolerance = 1e-9;

  /// Reads the chain root → `site` of `model` and detects its family.
  /// @param model a Model whose nq() coordinates are all revolute steps on
  ///   the path from the root to the site.
  /// @param site site index in `model`.
  /// @param why set to the reason when the chain is not a supported 6R arm
  ///   (not six revolute joints on the chain, no spherical wrist and no three
  ///   parallel axes, degenerate axes, ...).
  /// @param tolerance geometry tolerance (see kDefaultTolerance), in (0, 1e-3].
  /// @return the arm, or nullptr with `*why` set.
  /// @throws std::invalid_argument for a site index out of range, a null
  ///   `why` or a tolerance out of range.
  static std::shared_ptr<const SixRArm> Create(
      const Model& model, int site, std::string* why,
      double tolerance = kDefaultTolerance);

  SixRFamily family() const { return family_; }
  /// Which of the four position decompositions a spherical-wrist arm uses
  /// ("axes 1 and 2 intersect", "axes 2 and 3 parallel", ...), or "axes 2, 3,
  /// 4 parallel" for the UR type.
  const std::string& decomposition() const { return decomposition_; }
  /// Site the arm was built for.
  int site() const { return site_; }
  /// Model coordinate of the chain's k-th joint (k = 0 … 5, base to tip).
  int coordinate(int k) const { return coordinate_[k]; }
  /// h_k, p_k of the product-of-exponentials form (k = 0 … 5, chain order).
  const Eigen::Vector3d& axis(int k) const { return h_[k]; }
  const Eigen::Vector3d& point(int k) const { return p_[k]; }
  /// The site pose at q = 0.
  const Eigen::Isometry3d& zero_pose() const { return X_0_; }

  /// Every solution for the site pose X_WT (allocation-free).
  /// @param X_WT target pose of the site in the world (model root) frame.
  /// @param free_values value (model order) a free joint takes at a
  ///   singular pose.
  SixRSolutions AllSolutions(const Eigen::Isometry3d& X_WT,
                             const Vector6d& free_values) const;
  /// As above with every free value 0.
  SixRSolutions AllSolutions(const Eigen::Isometry3d& X_WT) const;

  /// Site pose at q (model order) by the product of exponentials.
  Eigen::Isometry3d Forward(const Vector6d& q) const;

 private:
  SixRArm() = default;
  void SolveSphericalWrist(const Eigen::Matrix3d& R, const Eigen::Vector3d& t,
                           const Vector6d& free, SixRSolutions* out) const;
  void SolveThreeParallel(const Eigen::Matrix3d& R, const Eigen::Vector3d& t,
                          const Vector6d& free, SixRSolutions* out) const;
  // Adds a branch (chain order) to the solutions or approximations.
  void Add(const Vector6d& theta, bool exact, SixRSolutions* out) const;
  // The steps of Create. ReadJoints reads the six revolute joints before
  // site_ (h_, p_, X_0_, the limits and the length scale); false with *why
  // when the chain is not 6R.
  bool ReadJoints(const Model& model, const std::string& where,
                  std::string* why);
  // Axes i and j (chain order) meet in a point / are parallel and distinct,
  // to tolerance_ (lengths to tolerance_ · scale_).
  bool AxesMeet(int i, int j) const;
  bool AxesParallel(int i, int j) const;
  // True if axes 4, 5, 6 pass through one point (then w_ is that point).
  bool FindSphericalWrist();
  // The position decomposition of a spherical-wrist arm, or the UR type
  // (axes 2, 3, 4 parallel, 5 and 6 meeting); false with *why if none fits.
  bool SetSphericalWristCase(const std::string& where, std::string* why);
  bool SetThreeParallel(const std::string& where, std::string* why);

  SixRFamily family_ = SixRFamily::kSphericalWrist;
  // Spherical wrist: which position decomposition (0: h1 ∩ h2,
  // 1: h2 ∥ h3, 2: h2 ∩ h3, 3: h1 ∥ h2).
  int position_case_ = 0;
  std::string decomposition_;
  int site_ = -1;
  std::array<int, 6> coordinate_{};
  std::array<Eigen::Vector3d, 6> h_;
  std::array<Eigen::Vector3d, 6> p_;
  Eigen::Isometry3d X_0_ = Eigen::Isometry3d::Identity();
  // Spherical wrist: w, the wrist centre; c, the intersection of the
  // intersecting pair of the position case. UR type: w = p56.
  Eigen::Vector3d w_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d c_ = Eigen::Vector3d::Zero();
  // A unit vector ⊥ h_6 (θ6 by SP1) and ⊥ h_2 (UR type: the sum angle).
  Eigen::Vector3d v6_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d v2_ = Eigen::Vector3d::Zero();
  // UR type: ±1 as h_3, h_4 run along or against h_2.
  double sign3_ = 1.0;
  double sign4_ = 1.0;
  // Length scale L and the subproblem thresholds derived from it.
  double scale_ = 1.0;
  double tolerance_ = kDefaultTolerance;
  Vector6d lower_ = Vector6d::Zero();  // chain order
  Vector6d upper_ = Vector6d::Zero();
};

/// Options of the 6R analytic solver.
struct SixRAnalyticOptions {
  SolveOptions common;
  /// Geometry tolerance of SixRArm::Create, in (0, 1e-3].
  double geometry_tolerance = SixRArm::kDefaultTolerance;
  /// True if every field is in range; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// The 6R analytic IK through the common interface. The problem must have
/// exactly one goal, a PositionOrientationGoal, on a site of a chain that
/// SixRArm::Create accepts; otherwise kInvalidInput with the reason (the
/// arm's rejection reason for an unsupported geometry). Regularizers are
/// ignored (the answer is exact). The arm is read once per model and site
/// and kept by the solver (a solver object reused across solves, as the
/// benchmark does, reads it once).
///
/// Selection: every solution is shifted per joint by multiples of 2π to the
/// representative within the bounds closest to the start pose (q0 projected
/// onto the bounds); of those within the bounds, the closest to the start
/// (Euclidean) is returned, kConverged. None within the bounds →
/// kLimitsInfeasible, returning the solution nearest the box clamped into
/// it. No exact solution → kUnreachable, returning the least-squares branch
/// with the smallest potential (clamped into the bounds). A singular pose
/// says so in the message (the free joint keeps the start pose's value).
/// Iterations: 0. Name "analytic-6r".
class SixRAnalyticSolver final : public Solver {
 public:
  explicit SixRAnalyticSolver(SixRAnalyticOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "analytic-6r"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  /// Reads and keeps the arm's geometry for the problem's goal site, and
  /// solves once (discarded) to pay the first-solve cost. The first Solve of
  /// an instance on which Prepare was not called calls it, outside its clock.
  void Prepare(const Problem& problem) const override;
  const SixRAnalyticOptions& options() const { return options_; }

 private:
  // The arm for (model, site), read on first use and kept (nullptr with the
  // reason when the chain is rejected).
  std::shared_ptr<const SixRArm> Arm(const std::shared_ptr<const Model>& model,
                                     int site, std::string* why) const;

  SixRAnalyticOptions options_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const Model> cached_model_;
  mutable int cached_site_ = -1;
  mutable std::shared_ptr<const SixRArm> cached_arm_;
  mutable std::string cached_why_;
  internal::FirstSolve first_solve_;
};

/// SixRAnalyticSolver(options).Solve(problem, q0).
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const SixRAnalyticOptions& options);
std::unique_ptr<Solver> MakeSolver(const SixRAnalyticOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_SIX_R_SOLVER_H_
