#ifndef IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_SITE_GOAL_KERNEL_H_
#define IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_SITE_GOAL_KERNEL_H_

/// @file
/// A fused kernel for the commonest IK problem, one position, orientation or
/// pose goal on a serial chain of N = 6 or 7 coordinates: forward kinematics
/// of the chain to the goal's site, its Jacobian and the weighted residual in
/// one pass, with fixed-size types, written straight into a solver's M × 1
/// residual and M × N Jacobian (M = 3, 6 or 9), or with a factor of JᵀJ of
/// 3 or 6 rows instead of J (EvaluateFactored, for bounded LM).
///
/// The generic path (Problem::EvaluateResiduals) runs FK over every step of
/// the model into a Data, walks the site's ancestors again for the Jacobian
/// columns, calls the goal through a virtual function with Eigen::Ref
/// outputs, zeroes and rescales the Jacobian for the weight: per iterate of a
/// 7-DOF arm about as much bookkeeping as arithmetic. Here the geometry travels
/// one way, once per model and site (kept per thread): per moving joint from
/// the root to the site its fixed parent transform (the fixed steps in
/// between folded in, quarter and half turns folded away, see Joint), its
/// axis kind, axis and joint type, plus the fixed transform from the last
/// moving joint to the site; √weights are multiplied once per solve. The
/// evaluation reads only that.
///
/// Why in solvers/optimization/internal/: the kernel fuses the framework's FK with the
/// residual definitions of three goals of constraints/ (PositionGoal,
/// OrientationGoal, PositionOrientationGoal: the formulas are theirs, see
/// their headers and Tolani et al. §2.4 goals 1–3) in the form one solver
/// family needs (fixed-size stacked residual and Jacobian of a problem with
/// nothing else in it), so it sits above both, with the solvers that use it.
///
/// Equal to the generic path to rounding: the same sin/cos polynomial and
/// the same joint rotations (framework/internal/kinematics_kernels.h); the
/// folded fixed transforms and the weight multiplied into the scales change
/// the order of a few products, and quarter turns are exact (their cos(π/2)
/// ≈ 6e-17 dropped) (tests/solvers/site_goal_kernel_test.cc compares the two
/// to 1e-12 on the shipped robots, the human figure's limbs, random trees
/// and chains of quarter, half and other turns).

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <memory>
#include <optional>

#include "constraints/problem.h"
#include "framework/internal/kinematics_kernels.h"
#include "framework/model.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/optimization/internal/restart_pool.h"

namespace iklab::internal {

/// The rows a qualifying goal stacks, in its own order: position (3 rows:
/// PositionGoal), orientation (6: OrientationGoal's x and y axes), pose (9:
/// PositionOrientationGoal, position then x and y axes).
enum class SiteGoalRows { kPosition, kOrientation, kPose };

/// What the kernel reads from a problem, independent of the sizes: the goal's
/// site, rows, scales (√weight multiplied in) and target. Filled by
/// ReadSiteGoal.
struct SiteGoalSpec {
  int site = -1;
  SiteGoalRows rows = SiteGoalRows::kPose;
  /// Residual = [s_p (p_WT − p_WS); s_x (x_g − x_e); s_y (y_g − y_e)] (the
  /// rows present), with the goal's weight and scales folded in.
  double s_p = 1.0, s_x = 1.0, s_y = 1.0;
  Eigen::Vector3d p_WT = Eigen::Vector3d::Zero();
  Eigen::Matrix3d R_WG = Eigen::Matrix3d::Identity();
};

/// True if `problem` is exactly one PositionGoal, OrientationGoal or
/// PositionOrientationGoal and nothing else (no regularizer, no hard
/// constraint); then fills `spec` from the goal as it is now (its target may
/// change between solves, so read it per solve).
bool ReadSiteGoal(const Problem& problem, SiteGoalSpec* spec);

/// The fused kernel for M residual rows and N coordinates (see the file
/// comment). One per solve (it keeps the site pose of its last evaluation for
/// the stopping test); no allocation.
template <int M, int N>
class SiteGoalKernel {
 public:
  static_assert(M == 3 || M == 6 || M == 9, "M is 3, 6 or 9");
  static_assert(N > 0, "fixed sizes only");
  using ResidualVector = Eigen::Matrix<double, M, 1>;
  using JacobianMatrix = Eigen::Matrix<double, M, N>;
  /// Rows of the Gauss–Newton factor (EvaluateFactored): 3 per block of
  /// three (position, orientation), fewer than M where there is an
  /// orientation block.
  static constexpr int kFactorRows = M == 9 ? 6 : 3;
  /// The factor J̃ stored transposed, N × kFactorRows: a row of J̃ is then a
  /// contiguous column, as J̃ J̃ᵀ reads it (in the bounded LM solver, 2–3 %
  /// faster per solve than J̃ itself).
  using FactorTranspose = Eigen::Matrix<double, N, kFactorRows>;
  using FactorResidual = Eigen::Matrix<double, kFactorRows, 1>;

  /// The kernel for `problem` if it qualifies (ReadSiteGoal, M rows, nq = N),
  /// else nullopt: the caller keeps the generic path.
  static std::optional<SiteGoalKernel> Create(const Problem& problem) {
    std::optional<SiteGoalKernel> kernel(std::in_place);
    if (!kernel->Init(problem)) kernel.reset();
    return kernel;
  }

  /// Makes this the kernel for `problem` and returns true if it qualifies
  /// (as Create); false otherwise. For a kernel in the caller's storage:
  /// the solver's per-solve set-up, where an empty std::optional of the
  /// kernel would be zero-filled at construction.
  bool Init(const Problem& problem) {
    constexpr SiteGoalRows kRows = M == 3   ? SiteGoalRows::kPosition
                                   : M == 6 ? SiteGoalRows::kOrientation
                                            : SiteGoalRows::kPose;
    if (problem.nq() != N || problem.num_residuals() != M ||
        !ReadSiteGoal(problem, &spec_) || spec_.rows != kRows) {
      return false;
    }
    chain_ = CachedChain(problem.shared_model(), spec_.site);
    const auto inverse = [](double scale) {
      return scale > 0.0 ? 1.0 / scale : 0.0;
    };
    s_z_ = std::sqrt(spec_.s_x * spec_.s_x + spec_.s_y * spec_.s_y);
    inverse_s_x_ = inverse(spec_.s_x);
    inverse_s_y_ = inverse(spec_.s_y);
    inverse_s_z_ = inverse(s_z_);
    return chain_ != nullptr;
  }

  /// Residual R(q) and Jacobian ∂R/∂q, as Problem::EvaluateResiduals would
  /// stack them (to rounding). Returns ½‖R‖².
  /// @pre q has N finite entries (the solver's iterates are).
  double Evaluate(const double* q, ResidualVector* r, JacobianMatrix* J) {
    ForwardPass(q);
    Residual(r);
    Jacobian(J);
    return 0.5 * r->squaredNorm();
  }

  /// R(q) as Evaluate, and instead of J a factor of its Gauss–Newton matrix
  /// and gradient: J̃ (kFactorRows × N, written transposed into `Jt`) and r̃
  /// with J̃ᵀ J̃ = Jᵀ J and J̃ᵀ r̃ = Jᵀ R, all a Levenberg–Marquardt step
  /// needs of J. Returns ½‖R‖².
  ///
  /// The orientation block of J is B A, A = [a_1 … a_N] the joints' world
  /// axes and B = [s_x [x]×; s_y [y]×] (6 × 3; x, y, z the site's axes; the
  /// row ∂(x_g − x)/∂q_k = x × a_k, see Jacobian), and
  ///   BᵀB = s_x² (I − x xᵀ) + s_y² (I − y yᵀ)
  ///       = s_y² x xᵀ + s_x² y yᵀ + (s_x² + s_y²) z zᵀ,
  /// since x xᵀ + y yᵀ + z zᵀ = I. So with D = diag(s_y, s_x, s_z), s_z =
  /// √(s_x² + s_y²), the three rows D [x y z]ᵀ A give the same AᵀBᵀBA as
  /// the six of J: J̃'s orientation rows are s_y x·a_k, s_x y·a_k, s_z z·a_k.
  /// Its gradient part is Aᵀ h with h = Bᵀ r_o = s_x² x_g × x + s_y² y_g × y
  /// (as [x]×ᵀ (x_g − x) = x_g × x), so r̃'s orientation rows are
  /// D⁻¹ [x y z]ᵀ h (h has no component along an axis whose scale is 0,
  /// where r̃ gets 0). The position rows are J's and R's own. For a 7-DOF
  /// pose goal the Levenberg–Marquardt system can then be solved as a 6 × 6
  /// one (bounded_lm_solver.cc).
  /// @pre as Evaluate.
  double EvaluateFactored(const double* q, ResidualVector* r,
                          FactorTranspose* Jt, FactorResidual* r_factor) {
    ForwardPass(q);
    Residual(r);
    const Chain& chain = *chain_;
    // Locals, not members: a store through `out` may alias any double of
    // this object, which would then be read again after every store.
    const double s_p = spec_.s_p, s_x = spec_.s_x, s_y = spec_.s_y, s_z = s_z_;
    const Vec3 p_WS = p_WS_, x = x_WS_, y = y_WS_, z = z_WS_;
    if (chain.num_joints < N) Jt->setZero();  // coordinates off the chain
    for (int k = 0; k < chain.num_joints; ++k) {
      const Joint& joint = chain.joints[k];
      const Vec3 a = axis_[k];
      const Vec3 o = origin_[k];
      const bool prismatic = joint.kind == StepKind::kPrismatic;
      // Row dof of Jᵀ, one stride of N apart.
      double* out = Jt->data() + joint.dof;
      if constexpr (M != 6) {
        const Vec3 v = SiteVelocity(prismatic, a, o, p_WS);
        out[0] = -s_p * v.x;
        out[N] = -s_p * v.y;
        out[2 * N] = -s_p * v.z;
        out += 3 * N;
      }
      if constexpr (M != 3) {
        out[0] = prismatic ? 0.0 : s_y * Dot(x, a);
        out[N] = prismatic ? 0.0 : s_x * Dot(y, a);
        out[2 * N] = prismatic ? 0.0 : s_z * Dot(z, a);
      }
    }
    if constexpr (M != 6) r_factor->template head<3>() = r->template head<3>();
    if constexpr (M != 3) {
      const Vec3 x_g = ToVec3(spec_.R_WG.col(0));
      const Vec3 y_g = ToVec3(spec_.R_WG.col(1));
      const Vec3 h = Add(Scale(Cross(x_g, x), s_x * s_x),
                         Scale(Cross(y_g, y), s_y * s_y));
      double* out = r_factor->data() + (M == 9 ? 3 : 0);
      out[0] = Dot(x, h) * inverse_s_y_;
      out[1] = Dot(y, h) * inverse_s_x_;
      out[2] = Dot(z, h) * inverse_s_z_;
    }
    return 0.5 * r->squaredNorm();
  }

  /// ½‖R(q)‖² alone: the forward pass and the residual, no Jacobian (about
  /// two thirds of Evaluate's work), for ranking candidate start points.
  /// @pre as Evaluate.
  double Cost(const double* q) {
    ForwardPass(q);
    ResidualVector r;
    Residual(&r);
    return 0.5 * r.squaredNorm();
  }

  /// The site pose at q as RestartPool keeps it: p_WS, then the first two
  /// columns of R_WS (RestartPool::kPoseValues values into `pose`).
  /// @pre as Evaluate.
  void SitePose(const double* q, double* pose) {
    ForwardPass(q);
    for (const Vec3* v : {&p_WS_, &x_WS_, &y_WS_}) {
      *pose++ = v->x;
      *pose++ = v->y;
      *pose++ = v->z;
    }
  }

  /// ‖R‖² (twice the cost ½‖R‖²) at each point of `pool` for the current
  /// target, from the pool's site poses (no forward pass), into costs.
  void PoolCosts(const RestartPool& pool, double* costs) const {
    double target[RestartPool::kPoseValues];
    double weights[3] = {0.0, 0.0, 0.0};
    for (int c = 0; c < 3; ++c) {
      target[c] = spec_.p_WT[c];
      target[3 + c] = spec_.R_WG(c, 0);
      target[6 + c] = spec_.R_WG(c, 1);
    }
    if constexpr (M != 6) weights[0] = spec_.s_p * spec_.s_p;
    if constexpr (M != 3) {
      weights[1] = spec_.s_x * spec_.s_x;
      weights[2] = spec_.s_y * spec_.s_y;
    }
    pool.Costs(target, weights, costs);
  }

  /// The stopping test of SolveScope::WithinTolerance for the goal at the
  /// last evaluated q (Evaluate or Cost), with the goal's own error formulas
  /// (its Error(): ‖p_WT − p_WS‖ and the rotation angle of R_WGᵀ R_WS) on
  /// the kernel's site pose, so exactly as strict. The position test (a norm)
  /// comes first; the angle (a quaternion and an atan2) only once it passes. A
  /// NaN error is never within tolerance. `*error` receives the errors it
  /// computed (position for position and pose goals, angle for orientation
  /// and pose goals; fields not computed are 0): when the test passes, the
  /// goal's Error() at that q, for the solver's result.
  bool WithinTolerance(double position_tolerance, double angle_tolerance,
                       GoalError* error) const;

  /// Site pose X_WS at the last evaluated q.
  Eigen::Isometry3d site_pose() const {
    Eigen::Isometry3d X_WS = Eigen::Isometry3d::Identity();
    X_WS.linear() = SiteRotation();
    X_WS.translation() = ToEigen(p_WS_);
    return X_WS;
  }
  /// The goal's site.
  int site() const { return spec_.site; }
  /// Moving joints between the root and the site (≤ N).
  int num_joints() const { return chain_->num_joints; }

  /// Then Init(). User-provided, not defaulted: value-initialization (as
  /// std::optional's in-place construction does) would otherwise zero the
  /// whole object before Init writes it.
  SiteGoalKernel() {}  // NOLINT(modernize-use-equals-default)

 private:
  // The forward pass keeps R_WJ as three column vectors Φ = [c0 c1 c2]
  // with R_WJ = Φ T, where T is a signed permutation known when the kernel
  // is built: a fixed rotation that is one (the ±90° and 180° turns between
  // the joints of most real arms' URDFs) only changes T and costs nothing
  // at run time, instead of a 3 × 3 product per joint. Since T is a
  // rotation, T Rot(a, q) = Rot(T a, q) T: the joint turns Φ about T a,
  // which is then again a signed coordinate axis. BuildChain expresses every
  // constant below in Φ's frame.
  struct Joint {
    // Fixed transform from the previous moving joint's frame (after its
    // motion; the world for the first joint) to this joint's frame before
    // its motion: X_PJ of the step with every fixed step in between folded,
    // in Φ's frame (T p_PJ, and T R_PJ when it is multiplied).
    Eigen::Matrix3d R_PJ;
    Eigen::Vector3d p_PJ;
    // The joint axis in Φ's frame: axis_sign times the unit axis of
    // axis_kind, or `axis` itself for kGeneral.
    Eigen::Vector3d axis;
    double axis_sign = 1.0;
    int dof = 0;
    StepKind kind = StepKind::kRevolute;
    AxisKind axis_kind = AxisKind::kGeneral;
    // Φ ← Φ R_PJ at this joint; false when the fixed rotation is I or was
    // folded into T.
    bool multiply_rotation = true;
  };

  // The chain from the root to the site, as the forward pass reads it: a
  // function of (model, site) alone, built once and shared (CachedChain).
  struct Chain {
    int num_joints = 0;
    std::array<Joint, N> joints;
    // The chain moves coordinates 0, 1, …, N − 1 in this order (an arm
    // whose every coordinate is on the chain).
    bool dofs_in_order = false;
    // Φ and the position before the first joint moves: the first joint's
    // fixed transform (its R_PJ then not multiplied, and its p_PJ zero),
    // such as the Baxter's arm mount turned 0.7854 rad; else I and 0.
    Eigen::Matrix3d base_rotation = Eigen::Matrix3d::Identity();
    Eigen::Vector3d base_position = Eigen::Vector3d::Zero();
    // Last moving joint's frame to the site (fixed steps and X_FS folded),
    // in Φ's frame.
    Eigen::Matrix3d R_LS = Eigen::Matrix3d::Identity();
    Eigen::Vector3d p_LS = Eigen::Vector3d::Zero();
  };

  // Steps from the root to the site at most (fixed ones included): an arm
  // has tens; a longer path takes the generic path.
  static constexpr int kMaxPath = 64;

  // The chain to `site`, or null when it is no arm this kernel takes (a
  // path longer than kMaxPath, more than N moving joints).
  static std::shared_ptr<const Chain> BuildChain(const Model& model, int site);

  // BuildChain's result for (model, site), kept per thread for the last few
  // models (held weakly): building folds the fixed steps and classifies
  // the fixed rotations, ~0.3 µs on a 7-DOF arm, which was a fifth of a
  // solve that converges in a few iterations.
  static std::shared_ptr<const Chain> CachedChain(
      const std::shared_ptr<const Model>& model, int site);

  // Forward pass: the world pose of each moving joint after its rotation
  // (only its axis a_k and origin o_k are kept, for the Jacobian) and the
  // site pose, at q. The steps are FK's (framework/kinematics.cc, the same
  // Vec3 operations), but on the folded chain (fixed steps merged, quarter
  // turns in T): equal to FK to rounding (tested to 1e-12).
  void ForwardPass(const double* q) {
    const Chain& chain = *chain_;
    const int num_joints = chain.num_joints;
    double sin_q[N], cos_q[N];
    if (chain.dofs_in_order) {
      SinCosFixed<N>(q, sin_q, cos_q);
    } else {
      // (Zeroed: GCC cannot see that num_joints ≤ N, and warns.)
      double angle[N] = {};
      for (int k = 0; k < num_joints; ++k) angle[k] = q[chain.joints[k].dof];
      SinCosArray(angle, num_joints, sin_q, cos_q);
    }
    // R_WJ as its columns c0, c1, c2.
    Vec3 c0 = ToVec3(chain.base_rotation.col(0)),
        c1 = ToVec3(chain.base_rotation.col(1)),
        c2 = ToVec3(chain.base_rotation.col(2));
    Vec3 p_WJ = ToVec3(chain.base_position);
    for (int k = 0; k < num_joints; ++k) {
      const Joint& joint = chain.joints[k];
      // X_WJ = X_WP * X_PJ * A(q): the parent's pose is the previous joint's.
      p_WJ = Add(p_WJ, Combine(c0, joint.p_PJ.x(), c1, joint.p_PJ.y(), c2,
                               joint.p_PJ.z()));
      if (joint.multiply_rotation) MultiplyColumns(joint.R_PJ, &c0, &c1, &c2);
      const bool prismatic = joint.kind == StepKind::kPrismatic;
      // Rot(−e, q) = Rot(e, −q): the sign goes into sin q (exactly).
      if (!prismatic) {
        RotateColumns(joint.axis_kind, joint.axis, cos_q[k],
                      joint.axis_sign * sin_q[k], &c0, &c1, &c2);
      }
      switch (joint.axis_kind) {
        case AxisKind::kX:
          axis_[k] = Scale(c0, joint.axis_sign);
          break;
        case AxisKind::kY:
          axis_[k] = Scale(c1, joint.axis_sign);
          break;
        case AxisKind::kZ:
          axis_[k] = Scale(c2, joint.axis_sign);
          break;
        case AxisKind::kGeneral:
          // Off the hot path of real arms (their axes are signed coordinate
          // axes in Φ's frame).
          axis_[k] = Combine(c0, joint.axis.x(), c1, joint.axis.y(), c2,
                             joint.axis.z());
          break;
      }
      if (prismatic) p_WJ = Add(p_WJ, Scale(axis_[k], q[joint.dof]));
      origin_[k] = p_WJ;
    }
    const Eigen::Matrix3d& R_LS = chain.R_LS;
    const Eigen::Vector3d& p_LS = chain.p_LS;
    p_WS_ = Add(Combine(c0, p_LS.x(), c1, p_LS.y(), c2, p_LS.z()), p_WJ);
    x_WS_ = Combine(c0, R_LS(0, 0), c1, R_LS(1, 0), c2, R_LS(2, 0));
    y_WS_ = Combine(c0, R_LS(0, 1), c1, R_LS(1, 1), c2, R_LS(2, 1));
    z_WS_ = Combine(c0, R_LS(0, 2), c1, R_LS(1, 2), c2, R_LS(2, 2));
  }

  // The residual at the last forward pass, target − current (goal.h), each
  // block scaled as its goal and Problem scale it (the weight's √w folded
  // into s_p, s_x, s_y).
  void Residual(ResidualVector* r) const {
    double* out = r->data();
    const auto put = [&out](double scale, const Eigen::Vector3d& target,
                            const Vec3& current) {
      *out++ = scale * (target.x() - current.x);
      *out++ = scale * (target.y() - current.y);
      *out++ = scale * (target.z() - current.z);
    };
    if constexpr (M != 6) put(spec_.s_p, spec_.p_WT, p_WS_);
    if constexpr (M != 3) {
      put(spec_.s_x, spec_.R_WG.col(0), x_WS_);
      put(spec_.s_y, spec_.R_WG.col(1), y_WS_);
    }
  }

  // The Jacobian at the last forward pass, by the chain rule through the
  // site's velocity [v_k; ω_k] = [a_k × (p_WS − o_k); a_k] (revolute) or
  // [a_k; 0] (prismatic), kinematics.h:
  //   ∂(p_WT − p_WS)/∂q_k = −v_k,  ∂(x_g − x_e)/∂q_k = −ω_k × x_e = x_e × ω_k.
  void Jacobian(JacobianMatrix* J) const {
    const Chain& chain = *chain_;
    if (chain.num_joints < N) J->setZero();  // coordinates off the chain
    for (int k = 0; k < chain.num_joints; ++k) {
      double* out = J->col(chain.joints[k].dof).data();
      const auto put = [&out](const Vec3& v, double scale) {
        *out++ = scale * v.x;
        *out++ = scale * v.y;
        *out++ = scale * v.z;
      };
      const Vec3& a = axis_[k];
      const bool prismatic = chain.joints[k].kind == StepKind::kPrismatic;
      if constexpr (M != 6) {
        put(SiteVelocity(prismatic, a, origin_[k], p_WS_), -spec_.s_p);
      }
      if constexpr (M != 3) {
        if (prismatic) {
          for (int i = 0; i < 6; ++i) *out++ = 0.0;
        } else {
          put(Cross(x_WS_, a), spec_.s_x);
          put(Cross(y_WS_, a), spec_.s_y);
        }
      }
    }
  }

  // The site's velocity per unit rate of a joint with world axis a and
  // origin o (the position rows of the geometric Jacobian, kinematics.h):
  // a × (p_WS − o) for a revolute joint, a for a prismatic one.
  static Vec3 SiteVelocity(bool prismatic, const Vec3& a, const Vec3& o,
                           const Vec3& p_WS) {
    const Vec3 arm{p_WS.x - o.x, p_WS.y - o.y, p_WS.z - o.z};
    return prismatic ? a : Cross(a, arm);
  }

  // The site's rotation R_WS at the last forward pass.
  Eigen::Matrix3d SiteRotation() const {
    Eigen::Matrix3d R_WS;
    R_WS << ToEigen(x_WS_), ToEigen(y_WS_), ToEigen(z_WS_);
    return R_WS;
  }

  SiteGoalSpec spec_;
  // EvaluateFactored's scales: s_z = √(s_x² + s_y²) and the inverses of
  // s_x, s_y, s_z (0 for a scale of 0).
  double s_z_ = 0.0, inverse_s_x_ = 0.0, inverse_s_y_ = 0.0, inverse_s_z_ = 0.0;
  std::shared_ptr<const Chain> chain_;
  // Per evaluation: world axes and origins of the moving joints, site pose
  // (position and the columns of R_WS).
  std::array<Vec3, N> axis_;
  std::array<Vec3, N> origin_;
  Vec3 p_WS_{0.0, 0.0, 0.0};
  Vec3 x_WS_{1.0, 0.0, 0.0}, y_WS_{0.0, 1.0, 0.0}, z_WS_{0.0, 0.0, 1.0};
};

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_SITE_GOAL_KERNEL_H_
