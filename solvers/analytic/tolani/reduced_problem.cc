#include "solvers/analytic/tolani/limb_ik.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/analytic/tolani/internal/limb_math.h"
#include "solvers/optimization/internal/lbfgsb_objective.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {

namespace {
using internal::limb::AxisRotation;
using internal::limb::ClampRounding;
using internal::limb::ClosestReachTheta4;
using internal::limb::ElbowCoefficients;
using internal::limb::ElbowEquation;
using internal::limb::ElbowRoots;
using internal::kPi;
using internal::limb::kTwoPi;
using internal::limb::Ry;
using internal::limb::ShiftInto;
using internal::limb::Skew;
using internal::limb::Wrap;
}  // namespace

LimbSolution TolaniLimbIk::ApproximatePose(const Eigen::Isometry3d& G_site,
                                           const Eigen::Isometry3d& E,
                                           const LimbIkOptions& options) const {
  LimbSolution s = SolvePose(G_site, E, options);
  if (s.status == LimbIkStatus::kSolved || !options.respect_limits) return s;
  const Eigen::Isometry3d G = G_site * E.inverse(Eigen::Isometry);
  const Eigen::Vector3d t_g = G.translation();
  const Eigen::Matrix3d& R_g = G.linear();
  const Eigen::Vector3d t_e = E.translation();
  // ½‖D‖²_F + ½‖D t_e‖² = ½ tr(D W Dᵀ) with D = R − R_g, W = I + t_e t_eᵀ.
  const Eigen::Matrix3d W = Eigen::Matrix3d::Identity() + t_e * t_e.transpose();
  // θ4: the roots of Eq. (5) within the elbow limits place the wrist
  // exactly; without one, the θ4 within the limits whose reach is closest.
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
  const TrigRoots roots = ElbowRoots(eq, t_g.norm());
  double elbow[2];
  int num_elbow = 0;
  for (int r = 0; r < roots.count; ++r) {
    double t = roots.values[r];
    if (ShiftInto(lower_[3], upper_[3], 0.0, &t)) elbow[num_elbow++] = t;
  }
  const bool exact = num_elbow > 0;
  if (!exact) {
    elbow[num_elbow++] =
        ClosestReachTheta4(eq, t_g.norm(), true, lower_[3], upper_[3]);
  }
  // The wrist's Euler axes and their cross-product matrices.
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  Eigen::Matrix3d K[3];
  for (int n = 0; n < 3; ++n) {
    K[n] = s2_.sign[n] * Skew(Eigen::Vector3d::Unit(a2[n]));
  }
  const double desired =
      options.use_desired_elbow ? 0.0 : options.desired_swivel;
  double best_value = std::numeric_limits<double>::infinity();
  Vector7d best_q = s.q;
  double best_phi = 0.0;
  int best_family = 0, iterations = 0, line_search_failures = 0;
  std::string optimizer_message;
  bool applied = false;
  for (int k = 0; k < num_elbow; ++k) {
    const double t4 = elbow[k];
    SwivelParameterization family;
    BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * t_b_, t_g, options, &family);
    SetWristFree(R_g, &family);
    SwivelAnalysis analysis;
    family.Analyze(&analysis);
    const Eigen::Matrix3d M = R_a_ * Ry(t4) * R_b_;
    const Eigen::Matrix3d N = Skew(family.circle().normal);
    const double phi_desired =
        options.use_desired_elbow
            ? family.circle().SwivelOfElbow(options.desired_elbow)
            : desired;
    for (int sf = 0; sf < kNumFamilies; ++sf) {
      const SwivelIntervals& A = analysis.shoulder[sf];
      std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
      const int num_arcs = A.Arcs(&arcs);
      for (int i = 0; i < num_arcs; ++i) {
        applied = true;
        // 1e-9 inside the arc's ends, so that rounding cannot push a
        // shoulder angle over the limit that ends the arc.
        double lo = arcs[i].lo + 1e-9, hi = arcs[i].hi - 1e-9;
        if (lo > hi) lo = hi = 0.5 * (arcs[i].lo + arcs[i].hi);
        double phi0 = 0.5 * (lo + hi);
        if (A.full()) {
          phi0 = Wrap(phi_desired);
          lo = phi0 - kPi;
          hi = phi0 + kPi;
        }
        // f(x) and ∇f for x = (φ, θ5, θ6, θ7): R = R1(φ) M R2, ∂R/∂φ = N R
        // (R1(φ) = R_n(φ) R0), ∂R2/∂θ_{5+n} = R2 with s_n [e_n]× inserted
        // after its n-th factor.
        const auto objective = [&](const Eigen::VectorXd& x,
                                   Eigen::VectorXd& grad) {
          const double phi = std::clamp(x[0], lo, hi);
          const Eigen::Matrix3d P = family.R1(phi) * M;
          Eigen::Matrix3d F[3];
          for (int n = 0; n < 3; ++n) {
            F[n] = AxisRotation(a2[n], s2_.sign[n] * x[1 + n]);
          }
          const Eigen::Matrix3d R2 = F[0] * F[1] * F[2];
          const Eigen::Matrix3d R = P * R2;
          const Eigen::Matrix3d D = R - R_g;
          const Eigen::Matrix3d DW = D * W;
          grad[0] = DW.cwiseProduct(N * R).sum();
          grad[1] = DW.cwiseProduct(P * K[0] * R2).sum();
          grad[2] = DW.cwiseProduct(P * F[0] * K[1] * F[1] * F[2]).sum();
          grad[3] = DW.cwiseProduct(R * K[2]).sum();
          return 0.5 * DW.cwiseProduct(D).sum();
        };
        for (int wf = 0; wf < kNumFamilies; ++wf) {
          // Start: the exact wrist angles at φ0 clamped into their limits.
          const Vector7d q0 = family.JointAngles(phi0, sf, wf);
          Eigen::VectorXd x(4), lb(4), ub(4);
          x[0] = phi0;
          lb[0] = lo;
          ub[0] = hi;
          for (int n = 0; n < 3; ++n) {
            const double l = lower_[4 + n], u = upper_[4 + n];
            x[1 + n] = std::clamp(q0[4 + n], l, u);
            // Unbounded angles: a box of ± one turn (the error is periodic).
            lb[1 + n] = std::isfinite(l) ? l : x[1 + n] - kTwoPi;
            ub[1 + n] = std::isfinite(u) ? u : x[1 + n] + kTwoPi;
          }
          internal::BoxMinimizationOptions box;
          box.max_iterations = 200;
          box.epsilon = 1e-12;
          const internal::BoxMinimization run =
              internal::MinimizeInBox(objective, x, lb, ub, box);
          iterations += run.iterations;
          if (run.status == SolveStatus::kNumericalFailure) {
            ++line_search_failures;
            optimizer_message = run.message;
          }
          const Eigen::VectorXd& best_x = run.x;
          const double best_fx = run.value;
          if (best_fx < best_value) {
            best_value = best_fx;
            best_phi = std::clamp(best_x[0], lo, hi);
            best_family = sf;
            best_q = family.JointAngles(best_phi, sf, wf);
            for (int n = 0; n < 3; ++n) {
              best_q[4 + n] = std::clamp(best_x[1 + n], lb[1 + n], ub[1 + n]);
            }
          }
        }
      }
    }
  }
  if (!applied) return s;  // no φ satisfies the shoulder limits
  // φ ∈ A_f keeps the shoulder within its limits; clamp rounding at an end.
  ClampRounding(lower_, upper_, &best_q);
  LimbSolution out;
  out.q = best_q;
  out.swivel = Wrap(best_phi);
  out.shoulder_family = best_family;
  out.iterations = iterations;
  out.reduced = true;
  out.valid = SwivelIntervals();
  // The rotation angle ν of Rᵀ R_g from ‖R − R_g‖_F = 2√2 sin(ν/2)
  // (accurate for small ν, unlike acos of the trace).
  const Eigen::Matrix3d R = Forward(best_q).linear();
  const double nu =
      2.0 * std::asin(std::min(1.0, (R - R_g).norm() / (2.0 * std::sqrt(2.0))));
  if (exact && nu <= 1e-10) {
    out.status = LimbIkStatus::kSolved;
    out.message =
        "Table 3 reduced problem: an exact solution within the limits";
  } else if (exact) {
    out.status = LimbIkStatus::kLimitsInfeasible;
    out.message =
        "Table 3 reduced problem: no swivel angle satisfies the joint limits; "
        "wrist placed exactly, orientation error minimized within the limits";
  } else if (roots.count > 0) {
    out.status = LimbIkStatus::kLimitsInfeasible;
    out.message =
        "Table 3 reduced problem: the elbow angle the wrist goal needs is "
        "outside its limits; wrist as close as they allow, orientation error "
        "minimized within the limits";
  } else {
    out.status = LimbIkStatus::kUnreachable;
    out.message =
        "Table 3 reduced problem: the wrist goal is out of reach; limb "
        "stretched toward it, orientation error minimized within the limits";
  }
  if (line_search_failures > 0) {
    out.message += "; the L-BFGS-B line search failed in " +
                   std::to_string(line_search_failures) +
                   " run(s), best point kept (" + optimizer_message + ")";
  }
  return out;
}

}  // namespace iklab
