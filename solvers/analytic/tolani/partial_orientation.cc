#include "solvers/analytic/tolani/limb_ik.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/analytic/tolani/internal/limb_math.h"
#include "solvers/optimization/internal/lbfgsb_objective.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {

namespace {
using internal::limb::AddRoots;
using internal::limb::ElbowCoefficients;
using internal::limb::ElbowEquation;
using internal::kPi;
using internal::limb::kTwoPi;
using internal::limb::Perpendicular;
using internal::limb::PiecewiseSet;
using internal::limb::Ry;
using internal::limb::ShiftInto;
using internal::limb::SphericalRotation;
using internal::limb::Violation;
using internal::limb::Wrap;
using internal::limb::Wrap2Pi;
}  // namespace

Eigen::Vector3d WristCurve::operator()(double psi) const {
  return std::cos(psi) * alpha + std::sin(psi) * beta + gamma;
}

namespace {

// R_g(ψ) = Rot(a_G, ψ) R_base with R_base a_S = a_G (Tolani §3.3, G(ψ)): the
// frames [a, u, a × u] built on each axis from the projection axis p̂.
Eigen::Matrix3d PartialGoalRotation(const Eigen::Vector3d& axis_site,
                                    const Eigen::Vector3d& axis_goal,
                                    const Eigen::Vector3d& p_hat, double psi) {
  const Eigen::Vector3d us =
      Perpendicular(axis_site, p_hat, Eigen::Vector3d::UnitY());
  const Eigen::Vector3d ug =
      Perpendicular(axis_goal, p_hat, Eigen::Vector3d::UnitY());
  Eigen::Matrix3d Fs, Fg;
  Fs << axis_site, us, axis_site.cross(us);
  const Eigen::Vector3d u =
      std::cos(psi) * ug + std::sin(psi) * axis_goal.cross(ug);
  Fg << axis_goal, u, axis_goal.cross(u);
  return Fg * Fs.transpose();
}
}  // namespace

LimbSolution TolaniLimbIk::SolveWithParameter(
    SecondParameter kind, double parameter, const Eigen::Vector3d& target,
    const Eigen::Isometry3d& E, const Eigen::Vector3d& axis_site,
    const Eigen::Vector3d& axis_goal, const Eigen::Vector3d& wrist_angles,
    const LimbIkOptions& options) const {
  if (kind == SecondParameter::kPsi) {
    Eigen::Isometry3d G = Eigen::Isometry3d::Identity();
    G.linear() = PartialGoalRotation(axis_site, axis_goal, options.swivel_axis,
                                     parameter);
    G.translation() = target;
    LimbSolution s = SolvePose(G, E, options);
    s.parameter = parameter;
    return s;
  }
  // Aiming (§3.4) for θ4 = parameter: with the wrist fixed the aim point h
  // and direction a are fixed in the rest frame (R1 = I); the target p must
  // lie on R1 (h + λ a) for some λ > 0, and since R1 is a rotation about the
  // shoulder, |h + λ a| = |p| fixes λ (up to two crossings: AimFamilies).
  // R1 then maps w0 = h + λ a onto p: the same one-parameter family as the
  // elbow circle, now about the shoulder → target axis (the paper's "hand
  // circle", Eq. 13).
  std::array<SwivelParameterization, 2> families;
  LimbSolution s;
  s.parameter = parameter;
  const int count = AimFamilies(parameter, target, E, axis_site, wrist_angles,
                                options, &families);
  if (count == 0) {
    s.status = LimbIkStatus::kUnreachable;
    s.message = "no aiming line through the target for this elbow angle";
    s.swivel = Wrap(options.desired_swivel);
    s.q = families[0].JointAngles(s.swivel, 0, 0);
    return s;
  }
  double score;
  SolveFamilies(families, count, options, &s, &score);
  s.parameter = parameter;
  return s;
}

int TolaniLimbIk::AimFamilies(
    double theta4, const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& direction, const Eigen::Vector3d& wrist_angles,
    const LimbIkOptions& options,
    std::array<SwivelParameterization, 2>* families) const {
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  const Eigen::Matrix3d R2 =
      SphericalRotation(s2_.sign, a2, wrist_angles.data());
  // Aim point and direction in F's distal frame, then in the rest frame.
  const Eigen::Vector3d h_F = t_b_ + R_b_ * R2 * E.translation();
  const Eigen::Vector3d d_F = R_b_ * R2 * E.linear() * direction;
  const Eigen::Matrix3d M = R_a_ * Ry(theta4);
  const Eigen::Vector3d h = t_a_ + M * h_F;
  const Eigen::Vector3d a = (M * d_F).normalized();
  // |h + λ a|² = |p|²: λ² + 2(h·a)λ + |h|² − |p|² = 0. Both positive roots
  // are aiming lines: when the aim points back toward the shoulder side and
  // the target is nearer the shoulder than the aim point, the line crosses
  // the sphere |x| = |p| twice and each crossing is its own family (like the
  // two roots of Eq. 5). (Taking only the larger root lost the goals whose
  // solutions within the limits use the nearer crossing.)
  const double ha = h.dot(a);
  const double disc = ha * ha - h.squaredNorm() + target.squaredNorm();
  const double tiny = 1e-9 * (1.0 + target.norm());
  int count = 0;
  if (disc >= 0.0) {
    const double root = std::sqrt(disc);
    for (double lambda : {-ha + root, -ha - root}) {
      if (lambda > tiny && (count == 0 || root > 0.0)) {
        SwivelParameterization& f = (*families)[count++];
        BuildFamily(theta4, h + lambda * a, target, options, &f);
        SetWristGiven(wrist_angles, &f);
      }
    }
  }
  if (count == 0) {
    // No aiming line: the closest approach, for reporting.
    const double lambda = disc >= 0.0 ? -ha + std::sqrt(disc) : -ha;
    BuildFamily(theta4, h + std::max(lambda, 0.0) * a, target, options,
                &(*families)[0]);
    SetWristGiven(wrist_angles, &(*families)[0]);
  }
  return count;
}

WristCurve TolaniLimbIk::PartialOrientationWrist(
    const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& axis_site, const Eigen::Vector3d& axis_goal,
    const LimbIkOptions& options) const {
  // Eq. (10): w(ψ) = G(ψ) E⁻¹ [0 0 0 1]ᵀ = t_g − R_g(ψ) R_eᵀ t_e with
  // R_g(ψ) = Rot(â, ψ) R_g(0), and Rot(â, ψ) y = (â·y)â + cos ψ (y − (â·y)â)
  // + sin ψ (â × y) for y = R_g(0) R_eᵀ t_e.
  const Eigen::Vector3d y =
      PartialGoalRotation(axis_site, axis_goal, options.swivel_axis, 0.0) *
      E.linear().transpose() * E.translation();
  const Eigen::Vector3d& a = axis_goal;
  const double ay = a.dot(y);
  WristCurve w;
  w.alpha = -(y - ay * a);
  w.beta = -a.cross(y);
  w.gamma = target - ay * a;
  return w;
}

double TolaniLimbIk::ChoosePsi(const WristCurve& w,
                               const LimbIkOptions& options,
                               const SwivelIntervals& admissible) const {
  using PsiChoice = LimbIkOptions::PsiChoice;
  if (options.psi_choice == PsiChoice::kDesired || admissible.empty()) {
    return admissible.Closest(options.desired_psi, 1e-9);
  }
  const Eigen::Vector3d up = options.up_axis.normalized();
  const auto objective = [&](double psi) {
    switch (options.psi_choice) {
      case PsiChoice::kLowestWrist:
        return up.dot(w(psi));
      case PsiChoice::kHighestWrist:
        return -up.dot(w(psi));
      default:
        return (w(psi) - options.desired_wrist).squaredNorm();
    }
  };
  double candidates[4 + 2 * SwivelIntervals::kCapacity];
  int n = 0;
  if (options.psi_choice == PsiChoice::kClosestWrist) {
    // Eq. (12): d/dψ ‖w(ψ) − w_d‖² = 0. With δ = γ − w_d, half the
    // derivative is (α·β)(cos²ψ − sin²ψ) + (|β|² − |α|²) cos ψ sin ψ
    // + (β·δ) cos ψ − (α·δ) sin ψ: the paper's a cos²ψ + b sin²ψ
    // + c cos ψ sin ψ + d cos ψ + e sin ψ + f with the coefficients below
    // (rebuilt; the text gives only the form). For our circle α·β = 0 and
    // |α| = |β|, so the quartic's u⁴…u⁰ reduce to a quadratic times 1 + u².
    const Eigen::Vector3d delta = w.gamma - options.desired_wrist;
    const double ab = w.alpha.dot(w.beta);
    std::array<double, 4> roots;
    const int count = SolveTrigQuadratic(
        ab, -ab, w.beta.squaredNorm() - w.alpha.squaredNorm(),
        w.beta.dot(delta), -w.alpha.dot(delta), 0.0, &roots);
    for (int i = 0; i < count; ++i) candidates[n++] = roots[i];
  } else {
    // Eq. (11): d/dψ (up·w) = −(up·α) sin ψ + (up·β) cos ψ = 0; the second
    // derivative −(up·α) cos ψ − (up·β) sin ψ is > 0 at the minimum.
    const double A = up.dot(w.alpha), B = up.dot(w.beta);
    const TrigRoots r = SolveTrigEquation(B, -A, 0.0);
    const bool lowest = options.psi_choice == PsiChoice::kLowestWrist;
    for (int i = 0; i < r.count; ++i) {
      const double psi = r.values[i];
      const double second = -A * std::cos(psi) - B * std::sin(psi);
      if (lowest ? second > 0.0 : second < 0.0) candidates[n++] = psi;
    }
  }
  // A constant objective (e.g. up ∥ â): any ψ will do; keep desired_psi.
  if (n == 0) return admissible.Closest(options.desired_psi, 1e-9);
  // Within reach only: the admissible stationary points and the ends of the
  // admissible arcs (moved 1e-9 inside).
  int stationary = n;
  std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
  if (!admissible.full()) {
    const int num_arcs = admissible.Arcs(&arcs);
    for (int i = 0; i < num_arcs; ++i) {
      double lo = arcs[i].lo + 1e-9, hi = arcs[i].hi - 1e-9;
      if (lo > hi) lo = hi = 0.5 * (arcs[i].lo + arcs[i].hi);
      candidates[n++] = lo;
      candidates[n++] = hi;
    }
  }
  double best = 0.0, best_value = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    if (i < stationary && !admissible.Contains(candidates[i])) continue;
    const double value = objective(candidates[i]);
    if (value < best_value) {
      best_value = value;
      best = candidates[i];
    }
  }
  return Wrap(best);
}

LimbSolution TolaniLimbIk::SolvePartialOrientation(
    const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& axis_site, const Eigen::Vector3d& axis_goal,
    const LimbIkOptions& options) const {
  return SolveTwoParameter(SecondParameter::kPsi, target, E, axis_site,
                           axis_goal, Eigen::Vector3d::Zero(), options);
}

LimbSolution TolaniLimbIk::SolveAiming(const Eigen::Vector3d& target,
                                       const Eigen::Isometry3d& E,
                                       const Eigen::Vector3d& direction_site,
                                       const Eigen::Vector3d& wrist_angles,
                                       const LimbIkOptions& options) const {
  return SolveTwoParameter(SecondParameter::kTheta4, target, E, direction_site,
                           Eigen::Vector3d::Zero(), wrist_angles, options);
}

LimbSolution TolaniLimbIk::SolveTwoParameter(
    SecondParameter kind, const Eigen::Vector3d& target,
    const Eigen::Isometry3d& E, const Eigen::Vector3d& axis_site,
    const Eigen::Vector3d& axis_goal, const Eigen::Vector3d& wrist_angles,
    const LimbIkOptions& options) const {
  const TwoParameterGoal goal{kind,      target,       E,      axis_site,
                              axis_goal, wrist_angles, options};
  // The admissible range of the second parameter, and its first choice.
  SwivelIntervals range;
  double first = 0.0;
  if (kind == SecondParameter::kPsi) {
    double closest = 0.0;
    range = ReachablePsi(goal, &closest);
    if (range.empty()) {
      LimbSolution s = SolveAt(goal, Wrap(closest));
      s.status = LimbIkStatus::kUnreachable;
      s.message = "the position goal is out of reach for every psi";
      return s;
    }
    // Eqs. (10)–(12): ψ per options.psi_choice within the reachable range.
    first = ChoosePsi(
        PartialOrientationWrist(target, E, axis_site, axis_goal, options),
        options, range);
  } else {
    if (std::isfinite(options.aiming_theta4)) {
      LimbSolution s = SolveAt(goal, options.aiming_theta4);
      return s;
    }
    range = AdmissibleTheta4(options, &first);
  }
  // 1. The first choice of the parameter.
  LimbSolution best = SolveAt(goal, first);
  if (best.status == LimbIkStatus::kSolved) return best;
  // 2. Scan the admissible range.
  bool any_reachable = best.status != LimbIkStatus::kUnreachable;
  ScanParameter(goal, range, &best, &any_reachable);
  if (best.status == LimbIkStatus::kSolved) {
    best.message = kind == SecondParameter::kPsi
                       ? "analytic after a scan of psi (valid swivel arc)"
                       : "analytic after a scan of theta4 (valid swivel arc)";
    return best;
  }
  if (!any_reachable) {
    best.status = LimbIkStatus::kUnreachable;
    best.message = kind == SecondParameter::kPsi
                       ? "the goal is out of reach"
                       : "no aiming line through the target is reachable";
    return best;
  }
  // 3. Table 2's small unconstrained optimization.
  return RefineParameter(goal, range, best);
}

LimbSolution TolaniLimbIk::SolveAt(const TwoParameterGoal& goal,
                                   double parameter) const {
  return SolveWithParameter(goal.kind, parameter, goal.target, goal.E,
                            goal.axis_site, goal.axis_goal, goal.wrist_angles,
                            goal.options);
}

SwivelIntervals TolaniLimbIk::ReachablePsi(const TwoParameterGoal& goal,
                                           double* closest) const {
  const Eigen::Vector3d& target = goal.target;
  const Eigen::Isometry3d& E = goal.E;
  const LimbIkOptions& options = goal.options;
  // Reachable ψ (§3.3, Eq. 10): the wrist is w(ψ) = t_g − R_g(ψ) R_eᵀ t_e,
  // so |w|² = |t_g|² + |y|² − 2 t_g·Rot(a, ψ) y with y = R_base R_eᵀ t_e:
  // a sin ψ + b cos ψ + c, to lie within the squared reach of θ4.
  const Eigen::Vector3d y =
      PartialGoalRotation(goal.axis_site, goal.axis_goal, options.swivel_axis,
                          0.0) *
      E.linear().transpose() * E.translation();
  const Eigen::Vector3d& a = goal.axis_goal;
  const double ay = a.dot(y), at = a.dot(target);
  const SwivelTrig w2{-2.0 * target.dot(a.cross(y)),
                      -2.0 * (target.dot(y) - ay * at),
                      target.squaredNorm() + y.squaredNorm() - 2.0 * ay * at};
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
  const auto d2 = [&eq](double t) {
    return eq.ta2 + eq.tb2 +
           2.0 * (eq.a * std::cos(t) + eq.b * std::sin(t) + eq.c0);
  };
  const double lo4 = lower_[3], hi4 = upper_[3];
  const double t_max = std::atan2(eq.b, eq.a);
  double dmin2 = std::numeric_limits<double>::infinity(), dmax2 = 0.0;
  const auto consider = [&](double t) {
    dmin2 = std::min(dmin2, d2(t));
    dmax2 = std::max(dmax2, d2(t));
  };
  if (options.respect_limits && hi4 - lo4 < kTwoPi) {
    consider(lo4);
    consider(hi4);
    for (double t : {t_max, t_max + kPi}) {
      double s = t;
      if (ShiftInto(lo4, hi4, 0.0, &s)) consider(s);
    }
  } else {
    consider(t_max);
    consider(t_max + kPi);
  }
  const double slack = 1e-10 * (eq.ta2 + eq.tb2);
  double roots[4];
  int count = 0;
  AddRoots(w2, dmin2 - slack, roots, &count);
  AddRoots(w2, dmax2 + slack, roots, &count);
  const SwivelIntervals range = PiecewiseSet(roots, count, [&](double psi) {
    const double v = w2(psi);
    return v >= dmin2 - slack && v <= dmax2 + slack;
  });
  if (range.empty()) {
    // Out of reach for every ψ: the ψ closest to the reach.
    const double psi_max = std::atan2(w2.alpha, w2.beta);
    *closest = w2(psi_max) < dmin2 ? psi_max : psi_max + kPi;
  }
  return range;
}

SwivelIntervals TolaniLimbIk::AdmissibleTheta4(const LimbIkOptions& options,
                                               double* first) const {
  const double lo4 = lower_[3], hi4 = upper_[3];
  const bool bounded = std::isfinite(lo4) && std::isfinite(hi4);
  const bool limited = options.respect_limits && bounded && hi4 - lo4 < kTwoPi;
  const double desired = bounded ? 0.5 * (lo4 + hi4) : 0.0;
  SwivelIntervals range;
  if (limited) {
    range.Append(Wrap2Pi(lo4), std::min(kTwoPi, Wrap2Pi(lo4) + (hi4 - lo4)));
    if (Wrap2Pi(lo4) + (hi4 - lo4) > kTwoPi) {
      SwivelIntervals head;
      head.Append(0.0, Wrap2Pi(lo4) + (hi4 - lo4) - kTwoPi);
      range = head.Union(range);
    }
  } else {
    range = SwivelIntervals::Full();
  }
  *first = range.Closest(desired, 1e-9);
  return range;
}

void TolaniLimbIk::ScanParameter(const TwoParameterGoal& goal,
                                 const SwivelIntervals& range,
                                 LimbSolution* best,
                                 bool* any_reachable) const {
  // Keep the sample with the longest valid swivel arc (an exact, admissible
  // solution when any).
  std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
  const int num_arcs = range.Arcs(&arcs);
  double total = 0.0;
  for (int i = 0; i < num_arcs; ++i) total += arcs[i].length();
  const int samples = std::max(1, goal.options.parameter_samples);
  double best_length = -1.0;
  for (int i = 0; i < num_arcs; ++i) {
    const int n = std::max(
        1, static_cast<int>(std::round(samples * arcs[i].length() / total)));
    for (int k = 0; k < n; ++k) {
      const double parameter =
          Wrap(arcs[i].lo + arcs[i].length() * (k + 0.5) / n);
      LimbSolution s = SolveAt(goal, parameter);
      if (s.status == LimbIkStatus::kUnreachable) continue;
      *any_reachable = true;
      if (s.status != LimbIkStatus::kSolved) {
        if (best->status == LimbIkStatus::kUnreachable) *best = s;
        continue;
      }
      SwivelIntervals::Interval arc;
      s.valid.LongestArc(&arc);
      if (arc.length() > best_length) {
        best_length = arc.length();
        *best = s;
      }
    }
  }
}

namespace {

// Minimizes cost(φ, τ) from (φ0, τ0) by L-BFGS-B over φ0 ± π and τ in
// [tau_lo, tau_hi], with central differences clipped at τ's bounds; an
// infinite cost (no such family) reads as 1e10 with a zero gradient.
template <typename Cost>
Eigen::VectorXd MinimizeTwoVariables(const Cost& cost, double phi0,
                                     double tau0, double tau_lo, double tau_hi,
                                     int refine_iterations) {
  const auto objective = [&](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    Vector7d q;
    const double f = cost(x[0], x[1], &q);
    if (!std::isfinite(f)) {
      grad.setZero();
      return 1e10;
    }
    const double h = 1e-6;
    for (int d = 0; d < 2; ++d) {
      Eigen::Vector2d xp(x[0], x[1]), xm(x[0], x[1]);
      xp[d] += h;
      xm[d] -= h;
      if (d == 1) {
        xp[1] = std::min(xp[1], tau_hi);
        xm[1] = std::max(xm[1], tau_lo);
      }
      Vector7d unused;
      const double fp = cost(xp[0], xp[1], &unused);
      const double fm = cost(xm[0], xm[1], &unused);
      grad[d] = std::isfinite(fp) && std::isfinite(fm) && xp[d] > xm[d]
                    ? (fp - fm) / (xp[d] - xm[d])
                    : 0.0;
    }
    return f;
  };
  internal::BoxMinimizationOptions box;
  box.max_iterations = std::max(1, refine_iterations);
  box.epsilon = 1e-8;
  Eigen::VectorXd x0(2), lb(2), ub(2);
  const double t0 = std::clamp(tau_lo + Wrap2Pi(tau0 - tau_lo), tau_lo, tau_hi);
  x0 << phi0, t0;
  lb << phi0 - kPi, tau_lo;
  ub << phi0 + kPi, tau_hi;
  // A line-search failure keeps the best point evaluated; the caller's
  // violation test decides what it is worth.
  return internal::MinimizeInBox(objective, x0, lb, ub, box).x;
}

// θ* of Table 2's F: the middle of each joint's limits, weight 1; weight 0
// (and middle 0) for a joint without two finite limits.
void LimitMiddles(const Vector7d& lower, const Vector7d& upper,
                  Vector7d* middle, Vector7d* weight) {
  *middle = Vector7d::Zero();
  *weight = Vector7d::Zero();
  for (int i = 0; i < 7; ++i) {
    if (std::isfinite(lower[i]) && std::isfinite(upper[i])) {
      (*middle)[i] = 0.5 * (lower[i] + upper[i]);
      (*weight)[i] = 1.0;
    }
  }
}

// The last of the arcs that holds τ (modulo 2π); 0 when none does.
int ArcHolding(
    const std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity>&
        arcs,
    int num_arcs, double tau) {
  int range_arc = 0;
  for (int i = 0; i < num_arcs; ++i) {
    const double t = arcs[i].lo + Wrap2Pi(tau - arcs[i].lo);
    if (t <= arcs[i].hi) range_arc = i;
  }
  return range_arc;
}

}  // namespace

LimbSolution TolaniLimbIk::RefineParameter(const TwoParameterGoal& goal,
                                           const SwivelIntervals& range,
                                           const LimbSolution& best) const {
  const LimbIkOptions& options = goal.options;
  const SecondParameter kind = goal.kind;
  // Table 2's small unconstrained optimization: minimize the paper's
  // F(φ, τ) = Σ_{i≠4} (θ_i − θ_i*)² (θ* = middle of the limits; for
  // aiming θ4 is the free τ and joins the sum) over (φ, τ) with
  // L-BFGS-B, τ kept inside the admissible range's arc. F ignores the
  // limits; the result is accepted only if it satisfies them.
  Vector7d middle, weight;
  LimitMiddles(lower_, upper_, &middle, &weight);
  if (kind == SecondParameter::kPsi) weight[3] = 0.0;
  const double tau0 = best.parameter;
  const double phi0 = best.swivel;
  const auto F = [&](double phi, double tau, int sf, int wf, int root,
                     Vector7d* q) {
    // The exact solution at (φ, τ) with the given families and root.
    std::array<SwivelParameterization, 2> families;
    int count = 1;
    if (kind == SecondParameter::kPsi) {
      Eigen::Isometry3d G = Eigen::Isometry3d::Identity();
      G.linear() = PartialGoalRotation(goal.axis_site, goal.axis_goal,
                                       options.swivel_axis, tau);
      G.translation() = goal.target;
      count =
          Parameterize(G * goal.E.inverse(Eigen::Isometry), options, &families);
    } else {
      count = AimFamilies(tau, goal.target, goal.E, goal.axis_site,
                          goal.wrist_angles, options, &families);
    }
    if (root >= count) return std::numeric_limits<double>::infinity();
    *q = families[root].JointAngles(phi, sf, wf);
    return (weight.array() * (q->array() - middle.array()).square()).sum();
  };
  std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
  const int num_arcs = range.Arcs(&arcs);
  const int range_arc = ArcHolding(arcs, num_arcs, tau0);
  const double tau_lo = arcs[range_arc].lo, tau_hi = arcs[range_arc].hi;
  LimbSolution refined = best;
  double refined_violation = std::numeric_limits<double>::infinity();
  for (int root = 0; root < 2; ++root) {
    for (int sf = 0; sf < kNumFamilies; ++sf) {
      for (int wf = 0; wf < (kind == SecondParameter::kPsi ? kNumFamilies : 1);
           ++wf) {
        const auto cost = [&](double phi, double tau, Vector7d* q) {
          return F(phi, tau, sf, wf, root, q);
        };
        const Eigen::VectorXd x = MinimizeTwoVariables(
            cost, phi0, tau0, tau_lo, tau_hi, options.refine_iterations);
        Vector7d q;
        if (!std::isfinite(F(x[0], x[1], sf, wf, root, &q))) continue;
        double violation = 0.0;
        for (int i = 0; i < 7; ++i) {
          violation =
              std::max(violation, Violation(lower_[i], upper_[i], q[i]));
        }
        if (violation < refined_violation) {
          refined_violation = violation;
          refined.q = q;
          refined.swivel = Wrap(x[0]);
          refined.parameter = Wrap(x[1]);
          refined.elbow_root = root;
          refined.shoulder_family = sf;
          refined.wrist_family = wf;
        }
      }
    }
  }
  if (refined_violation <= 1e-12) {
    refined.status = LimbIkStatus::kSolved;
    refined.message = "analytic + 2-variable optimization (Table 2)";
    return refined;
  }
  refined.status = LimbIkStatus::kLimitsInfeasible;
  refined.message =
      "reachable, but no (swivel, second parameter) found within the limits";
  return refined;
}

}  // namespace iklab
