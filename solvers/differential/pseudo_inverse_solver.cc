#include "solvers/differential/pseudo_inverse_solver.h"

#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "solvers/differential/internal/differential_loop.h"
#include "solvers/differential/jacobian_steps.h"

namespace iklab {

using internal::FormatVector;
using internal::Invalid;

namespace {

// ---------------------------------------------------------------------------

class PseudoInverseMethod final : public DifferentialMethod {
 public:
  explicit PseudoInverseMethod(const PseudoInverseOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    step_.Resize(problem.num_residuals(), problem.nq());
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    step_.Compute(lin.J, lin.V, options_.singular_value_cutoff, 0.0, *dq);
    return true;
  }

 private:
  const PseudoInverseOptions& options_;
  PseudoInverseStep step_;
};

// ---------------------------------------------------------------------------

class ControlTermMethod final : public DifferentialMethod {
 public:
  explicit ControlTermMethod(const ControlTermOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    const int n = problem.nq();
    for (const auto* v : {&options_.centers, &options_.gains}) {
      if (v->size() != 0 && v->size() != n) {
        std::ostringstream s;
        s << "ControlTermOptions::" << (v == &options_.centers ? "centers"
                                                              : "gains")
          << " must be empty or have nq = " << n << " entries, got "
          << v->size();
        return Invalid(why, s.str());
      }
    }
    centers_ = options_.centers.size() == n ? options_.centers
                                            : Eigen::VectorXd::Zero(n);
    gains_ = options_.gains.size() == n ? options_.gains
                                        : Eigen::VectorXd::Zero(n);
    z_.resize(n);
    step_.Resize(problem.num_residuals(), n);
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    // Eq. 5.27 as rebuilt in NOTES: z is the gradient of Σ a_i (q_i − q_ci)².
    z_ = 2.0 * gains_.cwiseProduct(lin.q - centers_);
    step_.Compute(lin.J, lin.V, z_, *dq);
    return true;
  }

 private:
  const ControlTermOptions& options_;
  Eigen::VectorXd centers_;
  Eigen::VectorXd gains_;
  Eigen::VectorXd z_;
  ControlTermStep step_;
};

// ---------------------------------------------------------------------------

class AlternativeJacobianMethod final : public DifferentialMethod {
 public:
  explicit AlternativeJacobianMethod(const AlternativeJacobianOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    const Model& model = problem.model();
    targets_.clear();
    for (std::size_t i = 0; i < problem.goals().size(); ++i) {
      const Goal* goal = problem.goals()[i].get();
      const int offset = problem.goal_offset(static_cast<int>(i));
      const double sqrt_w = std::sqrt(goal->weight());
      if (const auto* p = dynamic_cast<const PositionGoal*>(goal)) {
        targets_.push_back(
            {offset, model.site_step(p->site()), sqrt_w, p->target()});
      } else if (const auto* po =
                     dynamic_cast<const PositionOrientationGoal*>(goal)) {
        targets_.push_back({offset, model.site_step(po->site()),
                            sqrt_w * std::sqrt(po->scales().w_p),
                            po->target().translation()});
      }
    }
    J_alt_.resize(problem.num_residuals(), problem.nq());
    point_jacobian_.resize(3, problem.nq());
    step_.Resize(problem.num_residuals(), problem.nq());
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    J_alt_ = lin.J;
    const Model& model = lin.problem.model();
    for (const Target& t : targets_) {
      // Task rows of a position target are √w J_v(p); replace p by the
      // target point t, carried by the effector's link.
      PointJacobian(model, lin.workspace.data(), t.step, t.target,
                    point_jacobian_);
      J_alt_.middleRows(t.offset, 3) = t.scale * point_jacobian_;
    }
    step_.Compute(J_alt_, lin.V, options_.singular_value_cutoff, 0.0, *dq);
    return true;
  }

 private:
  struct Target {
    int offset;
    int step;
    double scale;
    Eigen::Vector3d target;  // world point t
  };

  const AlternativeJacobianOptions& options_;
  std::vector<Target> targets_;
  Eigen::MatrixXd J_alt_;
  Eigen::Matrix3Xd point_jacobian_;
  PseudoInverseStep step_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Options

bool PseudoInverseOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!(singular_value_cutoff >= 0.0 && singular_value_cutoff < 1.0)) {
    return Invalid(why,
                   "PseudoInverseOptions::singular_value_cutoff must be in "
                   "[0, 1), got ",
                   singular_value_cutoff);
  }
  return true;
}

bool ControlTermOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!centers.allFinite()) {
    return Invalid(why, "ControlTermOptions::centers must be finite, got ",
                   FormatVector(centers));
  }
  for (Eigen::Index i = 0; i < gains.size(); ++i) {
    if (!(gains[i] >= 0.0) || !std::isfinite(gains[i])) {
      return Invalid(why, "ControlTermOptions::gains[", i,
                     "] must be finite and >= 0, got ", gains[i]);
    }
  }
  return true;
}

bool AlternativeJacobianOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!(singular_value_cutoff >= 0.0 && singular_value_cutoff < 1.0)) {
    return Invalid(why,
                   "AlternativeJacobianOptions::singular_value_cutoff must be "
                   "in [0, 1), got ",
                   singular_value_cutoff);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Solvers

Result PseudoInverseSolver::Solve(const Problem& problem,
                                  const Eigen::VectorXd& q0) const {
  PseudoInverseMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result ControlTermSolver::Solve(const Problem& problem,
                                const Eigen::VectorXd& q0) const {
  ControlTermMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result AlternativeJacobianSolver::Solve(const Problem& problem,
                                        const Eigen::VectorXd& q0) const {
  AlternativeJacobianMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const PseudoInverseOptions& options) {
  return PseudoInverseSolver(options).Solve(problem, q0);
}
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const ControlTermOptions& options) {
  return ControlTermSolver(options).Solve(problem, q0);
}
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const AlternativeJacobianOptions& options) {
  return AlternativeJacobianSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const PseudoInverseOptions& options) {
  return std::make_unique<PseudoInverseSolver>(options);
}
std::unique_ptr<Solver> MakeSolver(const ControlTermOptions& options) {
  return std::make_unique<ControlTermSolver>(options);
}
std::unique_ptr<Solver> MakeSolver(const AlternativeJacobianOptions& options) {
  return std::make_unique<AlternativeJacobianSolver>(options);
}

}  // namespace iklab
