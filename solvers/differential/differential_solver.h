#ifndef IKLAB_SOLVERS_DIFFERENTIAL_DIFFERENTIAL_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_DIFFERENTIAL_SOLVER_H_

/// @file
/// The iteration shared by the differential (Jacobian) IK methods: re-linearize
/// at q, let a method turn the task error into a joint step, q ← q + Δq,
/// repeat (Parent §5.3.3: "Simple Euler integration ... The Jacobian has
/// changed at the next time step, so the computation must be performed again
/// and another step taken").
///
/// Notation used by every differential method in iklab:
///
///  * R(q): the problem's stacked weighted residual [√w_1 r_1; …] with
///    r_i = target − current (constraints/problem.h).
///  * V = R(q): the desired task-space change ("velocity" in Parent Eq. 5.18,
///    dX in the NLP paper, dx in Šoch & Lórencz).
///  * J = −∂R/∂q: the task Jacobian, so that a step Δq changes the task by
///    J Δq and the linearized residual after the step is V − J Δq. For a
///    position goal J is the site's linear Jacobian J_v.
///
/// The method-specific part is a DifferentialMethod; the loop owns timing,
/// convergence, stall detection, step clamps, the trace and the Result.

#include <string>

#include <Eigen/Core>

#include "constraints/bounds.h"
#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Step safeguards and stopping rules shared by the differential methods.
/// Everything is off or permissive by default where the papers have nothing,
/// so each method runs as published unless asked otherwise.
struct StepControl {
  /// Clamp of the task error: V is scaled so that ‖V‖₂ ≤ max_task_error before
  /// the method sees it (Buss's "clampMag"; Parent: large steps "must be
  /// clamped to more reasonable values"). Length units of the stacked
  /// residual. ≤ 0 = off (default: the papers take the full error).
  double max_task_error = 0.0;
  /// Clamp of the joint step: Δq is scaled (direction kept) so that
  /// ‖Δq‖∞ ≤ max_joint_step (radians or length units). ≤ 0 = off (default,
  /// as in Parent's Euler steps).
  double max_joint_step = 0.0;
  /// Stationarity: the solve stops (kLocalMinimum, or kLimitsInfeasible when
  /// bounds block the descent, or kUnreachable with the reach certificate:
  /// internal::SolveScope::Finish) when ‖Δq‖∞ ≤ step_tolerance. ≥ 0. The
  /// default 1e-12 only catches true fixed points.
  double step_tolerance = 1e-12;
  /// Stall: stop as stationary when the best potential has not decreased by
  /// a relative 1e-12 for this many consecutive iterations (methods that
  /// oscillate around an unreachable goal never take a tiny step). ≥ 1.
  /// Default 50: long enough for the slow, non-monotone transpose method.
  int stall_iterations = 50;
  /// Return the lowest-potential iterate (true, default: the house "best
  /// effort" rule) or the last one (false: the raw behaviour of the method,
  /// e.g. one step per trajectory frame when reproducing a paper's figure).
  bool return_best = true;

  /// True if the fields are in range; otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// What a method sees at the current iterate. All references stay valid for
/// the call only.
struct Linearization {
  const Problem& problem;
  /// Workspace whose Data holds FK at q (goals may be evaluated on it).
  const ProblemWorkspace& workspace;
  const Eigen::VectorXd& q;
  /// Task error V (R(q), after the StepControl clamp).
  const Eigen::VectorXd& V;
  /// Task Jacobian J = −∂R/∂q (not evaluated, so meaningless, when the
  /// method's needs_jacobian() is false).
  const Eigen::MatrixXd& J;
  /// The box the method must keep q in, or nullptr when limits are not
  /// respected (SolveOptions::respect_limits false, or a method that does
  /// not enforce them).
  const Bounds* bounds;
};

/// The method-specific part of a differential solve. One object per solve;
/// it owns its preallocated matrices (no heap allocation in ComputeStep).
class DifferentialMethod {
 public:
  virtual ~DifferentialMethod() = default;

  /// Checks that the method applies to `problem` and sizes its workspace
  /// (may allocate). Returns false and explains in `why` for a problem the
  /// method is not defined for (the solve ends with kInvalidInput).
  virtual bool Prepare(const Problem& problem, std::string* why) = 0;
  /// Computes the step Δq (nq entries) at `lin`. Returns false and explains
  /// in `why` on a numerical failure (the solve ends with kNumericalFailure).
  virtual bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                           std::string* why) = 0;
  /// Called with the potentials at q and at q + Δq; returning false rejects
  /// the step (q stays). Default: accept every step (plain Euler iteration).
  virtual bool AcceptStep(double potential, double trial_potential);

  /// Whether the loop must evaluate J at every iterate (false for CCD).
  virtual bool needs_jacobian() const { return true; }
  /// True if the method keeps every iterate inside the bounds it is given
  /// (bounded DLS, CCD). For other methods the loop passes no bounds.
  virtual bool enforces_limits() const { return false; }
  /// Condition number of the linear system of the last step (0 if the method
  /// has none); recorded in the trace.
  virtual double condition_number() const { return 0.0; }
  /// Damping λ of the last step (0 if none); recorded in the trace.
  virtual double damping() const { return 0.0; }
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_DIFFERENTIAL_SOLVER_H_
