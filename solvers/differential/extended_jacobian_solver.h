#ifndef IKLAB_SOLVERS_DIFFERENTIAL_EXTENDED_JACOBIAN_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_EXTENDED_JACOBIAN_SOLVER_H_

/// @file
/// The Extended Jacobian of Šoch & Lórencz (Acta Polytechnica 45(2), 2005,
/// §2.2–2.4, Eq. 8–9) for planar revolute chains.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "framework/model.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab {

/// A planar serial chain of revolute joints ending at an effector site, as
/// the Extended Jacobian needs it.
struct PlanarRevoluteChain {
  /// Coordinates of joints 0 … n−1 from the base to the tip.
  std::vector<int> dofs;
  /// The effector site (Šoch & Lórencz's joint n).
  int site = -1;
};

/// Checks that the path from the root to `site` is a planar revolute chain —
/// every moving step revolute about its joint frame's z axis, every constant
/// rotation about z (so all axes are the world z), at least two joints — and
/// that the model has no other coordinates. Fills `chain` on success;
/// otherwise returns false and explains in `why`.
bool FindPlanarChain(const Model& model, int site, PlanarRevoluteChain* chain,
                     std::string* why);

/// The Extended Jacobian (2n × n) at the pose in `data` (FK has run):
///
///  * rows 2i, 2i+1 (i = 0 … n−2): basic element i:i+2 (segments l_i,
///    l_{i+1}), the x and y of its end point (joint i+2, or the effector for
///    i = n−2) relative to joint i, in the element's frame at joint i
///    rotated by Σ_{k<i} q_k (Eq. 8). Non-zero in columns i and i+1 only:
///    ∂e/∂q_i = z × (p_{i+2} − p_i), ∂e/∂q_{i+1} = z × (p_{i+2} − p_{i+1}),
///    rotated into the element frame. Multiplied by `element_weight` (the
///    paper's w).
///  * rows 2n−2, 2n−1: the main link, base → effector: the ordinary planar
///    position Jacobian (x, y of z × (p_e − p_j)) in the world frame.
///
/// Full column rank n wherever consecutive segments have non-zero length,
/// also where the main rows are singular (e.g. the stretched chain).
/// @param J_ext 2n × n, every entry written. Allocation-free.
void ExtendedJacobian(const Model& model, const Data& data,
                      const PlanarRevoluteChain& chain, double element_weight,
                      Eigen::Ref<Eigen::MatrixXd> J_ext);

/// Options of the Extended Jacobian method.
struct ExtendedJacobianOptions {
  SolveOptions common;
  StepControl step;
  /// Row weight w > 0 of the added (element) rows. Default 1, the paper's
  /// first experiment; the paper reports that w → 0 does not recover the
  /// plain pseudo-inverse's behaviour.
  double element_weight = 1.0;
  /// Desired change of the element rows, dx of rows 0 … 2n−3 (before
  /// weighting). Empty (default) = 0, "keep the inner elements as they
  /// are" (the paper's first experiment). Otherwise 2(n − 1) entries.
  Eigen::VectorXd element_displacement;

  /// True if every field is in range (element_displacement's size is checked
  /// against the chain at solve time); otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Extended Jacobian method of Šoch & Lórencz: each step solves the 2n × n
/// system J_ext dq = dx in the least-squares sense by the normal equations
/// (J_extᵀ J_ext) dq = J_extᵀ dx and LU (the paper's choice), with dx = [w ·
/// element displacements; x_T − x_e, y_T − y_e]. J_ext has full column
/// rank, so the step stays bounded at singular poses of the plain Jacobian
/// (the paper's stretched start) — at the price of not following the plain
/// pseudo-inverse's path, since the element rows pull toward keeping the
/// chain's shape. A fixed point has J_mainᵀ(t − p) = 0, so iterating reaches
/// reachable targets.
///
/// Defined only for planar revolute chains (FindPlanarChain) with exactly one
/// goal, a PositionGoal on the chain's effector site, and no regularizers;
/// anything else ends with kInvalidInput. Only x and y are driven (the
/// target's z must match the plane for convergence). Joint limits are not
/// enforced (see pseudo_inverse_solver.h). Name "extended-jacobian".
class ExtendedJacobianSolver final : public Solver {
 public:
  explicit ExtendedJacobianSolver(ExtendedJacobianOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "extended-jacobian"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const ExtendedJacobianOptions& options() const { return options_; }

 private:
  ExtendedJacobianOptions options_;
};

/// Solves with the Extended Jacobian method.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const ExtendedJacobianOptions& options);
std::unique_ptr<Solver> MakeSolver(const ExtendedJacobianOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_EXTENDED_JACOBIAN_SOLVER_H_
