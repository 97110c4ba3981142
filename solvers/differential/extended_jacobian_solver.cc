#include "solvers/differential/extended_jacobian_solver.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <sstream>
#include <utility>

#include <Eigen/LU>

#include "constraints/position_goal.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "solvers/differential/internal/differential_loop.h"

namespace iklab {

using internal::FormatVector;
using internal::Invalid;

namespace {

// z × v: the velocity of a point at offset v (in the xy plane) under a unit
// rotation about the world z axis.
Eigen::Vector3d CrossZ(const Eigen::Vector3d& v) {
  return Eigen::Vector3d(-v.y(), v.x(), 0.0);
}

}  // namespace

bool FindPlanarChain(const Model& model, int site, PlanarRevoluteChain* chain,
                     std::string* why) {
  if (site < 0 || site >= model.num_sites()) {
    std::ostringstream s;
    s << "extended Jacobian: site index " << site << " out of range";
    return Invalid(why, s.str());
  }
  if (model.has_mimics()) {
    return Invalid(why,
                   "extended Jacobian: defined for chains of independent "
                   "joints, but joint '" +
                       model.full_dof_joint(model.mimics()[0].joint) +
                       "' is a mimic joint");
  }
  std::vector<int> dofs;
  for (int s = model.site_step(site); s > 0; s = model.parent(s)) {
    const Eigen::Matrix3d& R = model.X_PJ(s).linear();
    if (std::abs(R(2, 2) - 1.0) > 1e-9) {
      return Invalid(why,
                     "extended Jacobian: defined for planar chains only, but a "
                     "constant transform on the path to site '" +
                         model.site_name(site) +
                         "' rotates out of the xy plane");
    }
    if (model.kind(s) == StepKind::kPrismatic) {
      return Invalid(why,
                     "extended Jacobian: defined for revolute chains only, but "
                     "coordinate '" +
                         model.dof_name(model.dof(s)) + "' is prismatic");
    }
    if (model.kind(s) == StepKind::kRevolute) {
      if ((model.axis(s) - Eigen::Vector3d::UnitZ()).norm() > 1e-12) {
        return Invalid(why,
                       "extended Jacobian: defined for planar chains (revolute "
                       "axes +z), but coordinate '" +
                           model.dof_name(model.dof(s)) + "' has another axis");
      }
      dofs.push_back(model.dof(s));
    }
  }
  std::reverse(dofs.begin(), dofs.end());
  if (static_cast<int>(dofs.size()) != model.nq()) {
    std::ostringstream s;
    s << "extended Jacobian: defined for serial chains only, but the model "
         "has "
      << model.nq() << " coordinates and the path to site '"
      << model.site_name(site) << "' only " << dofs.size();
    return Invalid(why, s.str());
  }
  if (dofs.size() < 2) {
    return Invalid(why,
                   "extended Jacobian: needs a chain of at least 2 joints "
                   "(one basic element)");
  }
  chain->dofs = std::move(dofs);
  chain->site = site;
  return true;
}

void ExtendedJacobian(const Model& model, const Data& data,
                      const PlanarRevoluteChain& chain, double element_weight,
                      Eigen::Ref<Eigen::MatrixXd> J_ext) {
  const int n = static_cast<int>(chain.dofs.size());
  assert(J_ext.rows() == 2 * n && J_ext.cols() == n);
  J_ext.setZero();
  // Joint i's world position p_i; p_n is the effector.
  auto position = [&](int i) -> Eigen::Vector3d {
    if (i == n) return SitePosition(model, data, chain.site);
    return data.X_W(model.dof_step(chain.dofs[i])).translation();
  };
  const Eigen::Vector3d effector = position(n);
  for (int i = 0; i + 1 < n; ++i) {
    // Element i:i+2 in its frame at joint i, rotated by Σ_{k<i} q_k: the
    // joint frame before joint i's own rotation.
    const int step = model.dof_step(chain.dofs[i]);
    const Eigen::Matrix3d R_WE =
        data.X_W(model.parent(step)).linear() * model.X_PJ(step).linear();
    const Eigen::Vector3d p_i = position(i);
    const Eigen::Vector3d p_next = position(i + 1);
    const Eigen::Vector3d p_end = position(i + 2);
    const Eigen::Vector3d d_i = CrossZ(p_end - p_i);
    const Eigen::Vector3d d_next = CrossZ(p_end - p_next);
    J_ext.block<2, 1>(2 * i, i) =
        element_weight * (R_WE.transpose() * d_i).head<2>();
    J_ext.block<2, 1>(2 * i, i + 1) =
        element_weight * (R_WE.transpose() * d_next).head<2>();
  }
  for (int j = 0; j < n; ++j) {
    J_ext.block<2, 1>(2 * n - 2, j) = CrossZ(effector - position(j)).head<2>();
  }
}

namespace {

class ExtendedJacobianMethod final : public DifferentialMethod {
 public:
  explicit ExtendedJacobianMethod(const ExtendedJacobianOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    if (problem.goals().size() != 1 || !problem.regularizers().empty()) {
      return Invalid(
          why,
          "extended Jacobian: needs exactly one goal (a position goal "
          "on the chain's effector) and no regularizers");
    }
    goal_ = dynamic_cast<const PositionGoal*>(problem.goals()[0].get());
    if (goal_ == nullptr) {
      return Invalid(why,
                     "extended Jacobian: defined for a position goal only, got "
                     "goal '" +
                         problem.goals()[0]->name() + "'");
    }
    if (!FindPlanarChain(problem.model(), goal_->site(), &chain_, why)) {
      return false;
    }
    const int n = static_cast<int>(chain_.dofs.size());
    if (options_.element_displacement.size() != 0 &&
        options_.element_displacement.size() != 2 * (n - 1)) {
      std::ostringstream s;
      s << "ExtendedJacobianOptions::element_displacement must be empty or "
           "have 2(n - 1) = "
        << 2 * (n - 1) << " entries for this " << n << "-joint chain, got "
        << options_.element_displacement.size();
      return Invalid(why, s.str());
    }
    J_ext_.resize(2 * n, n);
    dx_.setZero(2 * n);
    if (options_.element_displacement.size() != 0) {
      dx_.head(2 * (n - 1)) =
          options_.element_weight * options_.element_displacement;
    }
    normal_.resize(n, n);
    rhs_.resize(n);
    solution_.resize(n);
    lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(n);
    return true;
  }

  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string* why) override {
    const Model& model = lin.problem.model();
    const Data& data = lin.workspace.data();
    const int n = static_cast<int>(chain_.dofs.size());
    ExtendedJacobian(model, data, chain_, options_.element_weight, J_ext_);
    dx_.tail<2>() =
        (goal_->target() - SitePosition(model, data, chain_.site)).head<2>();
    // Ordinary least squares by the normal equations and LU (§2.4).
    normal_.noalias() = J_ext_.transpose() * J_ext_;
    rhs_.noalias() = J_ext_.transpose() * dx_;
    lu_.compute(normal_);
    const auto pivots = lu_.matrixLU().diagonal().cwiseAbs();
    if (!(pivots.minCoeff() > 1e-13 * pivots.maxCoeff())) {
      return Invalid(why,
                     "extended Jacobian: J_extᵀJ_ext is singular (a segment of "
                     "zero length?)");
    }
    solution_.noalias() = lu_.solve(rhs_);
    dq->setZero();
    for (int i = 0; i < n; ++i) (*dq)(chain_.dofs[i]) = solution_(i);
    return true;
  }

 private:
  const ExtendedJacobianOptions& options_;
  const PositionGoal* goal_ = nullptr;
  PlanarRevoluteChain chain_;
  Eigen::MatrixXd J_ext_;
  Eigen::VectorXd dx_;
  Eigen::MatrixXd normal_;
  Eigen::VectorXd rhs_;
  Eigen::VectorXd solution_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

}  // namespace

bool ExtendedJacobianOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!(element_weight > 0.0) || !std::isfinite(element_weight)) {
    return Invalid(why,
                   "ExtendedJacobianOptions::element_weight must be finite and "
                   "> 0, got ",
                   element_weight);
  }
  if (!element_displacement.allFinite()) {
    return Invalid(why,
                   "ExtendedJacobianOptions::element_displacement must be "
                   "finite, got ",
                   FormatVector(element_displacement));
  }
  return true;
}

Result ExtendedJacobianSolver::Solve(const Problem& problem,
                                     const Eigen::VectorXd& q0) const {
  ExtendedJacobianMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const ExtendedJacobianOptions& options) {
  return ExtendedJacobianSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const ExtendedJacobianOptions& options) {
  return std::make_unique<ExtendedJacobianSolver>(options);
}

}  // namespace iklab
