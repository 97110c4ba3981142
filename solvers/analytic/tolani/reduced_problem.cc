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

namespace {

// The wrist terms of the reduced problem, the same for every elbow angle.
struct ReducedWrist {
  // The goal's wrist frame rotation, and W = I + t_e t_eᵀ.
  Eigen::Matrix3d R_g;
  Eigen::Matrix3d W;
  // The wrist's Euler axes, their signs and cross-product matrices.
  int axes[3];
  std::array<double, 3> sign;
  Eigen::Matrix3d K[3];
};

// The best point of the reduced problem so far, over every elbow angle,
// shoulder arc and wrist family.
struct ReducedBest {
  double value = std::numeric_limits<double>::infinity();
  Vector7d q;
  double phi = 0.0;
  int family = 0;
  int iterations = 0;
  int line_search_failures = 0;
  std::string optimizer_message;
};

// The elbow angles to try: the roots of Eq. (5) within [lower, upper]
// (*exact), else the θ4 within them whose reach is closest to `reach`.
int ElbowCandidates(const ElbowEquation& eq, const TrigRoots& roots,
                    double reach, double lower, double upper, double elbow[2],
                    bool* exact) {
  int num_elbow = 0;
  for (int r = 0; r < roots.count; ++r) {
    double t = roots.values[r];
    if (ShiftInto(lower, upper, 0.0, &t)) elbow[num_elbow++] = t;
  }
  *exact = num_elbow > 0;
  if (!*exact) {
    elbow[num_elbow++] = ClosestReachTheta4(eq, reach, true, lower, upper);
  }
  return num_elbow;
}

// The wrist's Euler axes and their cross-product matrices.
void SetWristAxes(const SphericalJointLayout& s2, ReducedWrist* wrist) {
  wrist->axes[0] = s2.i;
  wrist->axes[1] = s2.j;
  wrist->axes[2] = s2.proper ? s2.i : s2.k;
  wrist->sign = s2.sign;
  for (int n = 0; n < 3; ++n) {
    wrist->K[n] = s2.sign[n] * Skew(Eigen::Vector3d::Unit(wrist->axes[n]));
  }
}

// Minimizes the orientation error over x = (φ, θ5, θ6, θ7) with φ in
// [lo, hi] from φ0, once per wrist family, for shoulder family sf of
// `family` (M = R_a Ry(θ4) R_b, N = [n̂]×); updates *best.
void MinimizeOverArc(const SwivelParameterization& family,
                     const Eigen::Matrix3d& M, const Eigen::Matrix3d& N,
                     const ReducedWrist& wrist, int sf, double lo, double hi,
                     double phi0, const Vector7d& lower, const Vector7d& upper,
                     ReducedBest* best) {
  const Eigen::Matrix3d& R_g = wrist.R_g;
  const Eigen::Matrix3d& W = wrist.W;
  const Eigen::Matrix3d* K = wrist.K;
  // f(x) and ∇f for x = (φ, θ5, θ6, θ7): R = R1(φ) M R2, ∂R/∂φ = N R
  // (R1(φ) = R_n(φ) R0), ∂R2/∂θ_{5+n} = R2 with s_n [e_n]× inserted
  // after its n-th factor.
  const auto objective = [&](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    const double phi = std::clamp(x[0], lo, hi);
    const Eigen::Matrix3d P = family.R1(phi) * M;
    Eigen::Matrix3d F[3];
    for (int n = 0; n < 3; ++n) {
      F[n] = AxisRotation(wrist.axes[n], wrist.sign[n] * x[1 + n]);
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
      const double l = lower[4 + n], u = upper[4 + n];
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
    best->iterations += run.iterations;
    if (run.status == SolveStatus::kNumericalFailure) {
      ++best->line_search_failures;
      best->optimizer_message = run.message;
    }
    const Eigen::VectorXd& best_x = run.x;
    const double best_fx = run.value;
    if (best_fx < best->value) {
      best->value = best_fx;
      best->phi = std::clamp(best_x[0], lo, hi);
      best->family = sf;
      best->q = family.JointAngles(best->phi, sf, wf);
      for (int n = 0; n < 3; ++n) {
        best->q[4 + n] = std::clamp(best_x[1 + n], lb[1 + n], ub[1 + n]);
      }
    }
  }
}

// The status and message of the reduced problem's answer: exact when the
// wrist is placed exactly and the rotation error ν vanishes.
void SetReducedStatus(bool exact, double nu, int num_elbow_roots,
                      LimbSolution* out) {
  if (exact && nu <= 1e-10) {
    out->status = LimbIkStatus::kSolved;
    out->message =
        "Table 3 reduced problem: an exact solution within the limits";
  } else if (exact) {
    out->status = LimbIkStatus::kLimitsInfeasible;
    out->message =
        "Table 3 reduced problem: no swivel angle satisfies the joint limits; "
        "wrist placed exactly, orientation error minimized within the limits";
  } else if (num_elbow_roots > 0) {
    out->status = LimbIkStatus::kLimitsInfeasible;
    out->message =
        "Table 3 reduced problem: the elbow angle the wrist goal needs is "
        "outside its limits; wrist as close as they allow, orientation error "
        "minimized within the limits";
  } else {
    out->status = LimbIkStatus::kUnreachable;
    out->message =
        "Table 3 reduced problem: the wrist goal is out of reach; limb "
        "stretched toward it, orientation error minimized within the limits";
  }
}

}  // namespace

LimbSolution TolaniLimbIk::ApproximatePose(const Eigen::Isometry3d& G_site,
                                           const Eigen::Isometry3d& E,
                                           const LimbIkOptions& options) const {
  LimbSolution s = SolvePose(G_site, E, options);
  if (s.status == LimbIkStatus::kSolved || !options.respect_limits) return s;
  const Eigen::Isometry3d G = G_site * E.inverse(Eigen::Isometry);
  const Eigen::Vector3d t_g = G.translation();
  const Eigen::Vector3d t_e = E.translation();
  ReducedWrist wrist;
  wrist.R_g = G.linear();
  const Eigen::Matrix3d& R_g = wrist.R_g;
  // ½‖D‖²_F + ½‖D t_e‖² = ½ tr(D W Dᵀ) with D = R − R_g, W = I + t_e t_eᵀ.
  wrist.W = Eigen::Matrix3d::Identity() + t_e * t_e.transpose();
  // θ4: the roots of Eq. (5) within the elbow limits place the wrist
  // exactly; without one, the θ4 within the limits whose reach is closest.
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
  const TrigRoots roots = ElbowRoots(eq, t_g.norm());
  double elbow[2];
  bool exact = false;
  const int num_elbow = ElbowCandidates(eq, roots, t_g.norm(), lower_[3],
                                        upper_[3], elbow, &exact);
  SetWristAxes(s2_, &wrist);
  const double desired =
      options.use_desired_elbow ? 0.0 : options.desired_swivel;
  ReducedBest best;
  best.q = s.q;
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
        MinimizeOverArc(family, M, N, wrist, sf, lo, hi, phi0, lower_, upper_,
                        &best);
      }
    }
  }
  if (!applied) return s;  // no φ satisfies the shoulder limits
  // φ ∈ A_f keeps the shoulder within its limits; clamp rounding at an end.
  ClampRounding(lower_, upper_, &best.q);
  LimbSolution out;
  out.q = best.q;
  out.swivel = Wrap(best.phi);
  out.shoulder_family = best.family;
  out.iterations = best.iterations;
  out.reduced = true;
  out.valid = SwivelIntervals();
  // The rotation angle ν of Rᵀ R_g from ‖R − R_g‖_F = 2√2 sin(ν/2)
  // (accurate for small ν, unlike acos of the trace).
  const Eigen::Matrix3d R = Forward(best.q).linear();
  const double nu =
      2.0 * std::asin(std::min(1.0, (R - R_g).norm() / (2.0 * std::sqrt(2.0))));
  SetReducedStatus(exact, nu, roots.count, &out);
  if (best.line_search_failures > 0) {
    out.message += "; the L-BFGS-B line search failed in " +
                   std::to_string(best.line_search_failures) +
                   " run(s), best point kept (" + best.optimizer_message + ")";
  }
  return out;
}

}  // namespace iklab
