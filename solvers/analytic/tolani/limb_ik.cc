#include "solvers/analytic/tolani/limb_ik.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/internal/check.h"
#include "solvers/analytic/tolani/internal/limb_math.h"

namespace iklab {

namespace {
using internal::limb::ClampRounding;
using internal::limb::ClosestReachTheta4;
using internal::limb::ElbowCoefficients;
using internal::limb::ElbowEquation;
using internal::limb::ElbowRoots;
using internal::limb::kTwoPi;
using internal::limb::Perpendicular;
using internal::limb::Ry;
using internal::limb::ShiftInto;
using internal::limb::Skew;
using internal::limb::SphericalRotation;
using internal::limb::Wrap;
}  // namespace

// ---------------------------------------------------------------------------
// TolaniLimbIk
// ---------------------------------------------------------------------------

namespace {

// Two elbow roots whose longest valid swivel arcs differ by no more than
// this (radians) tie; the first root is kept (SolveFamilies).
constexpr double kRootTieRadians = 1e-9;

// Index and sign of a ± coordinate axis, or false.
bool CoordinateAxis(const Eigen::Vector3d& a, int* index, double* sign) {
  for (int i = 0; i < 3; ++i) {
    for (double s : {1.0, -1.0}) {
      if ((a - s * Eigen::Vector3d::Unit(i)).norm() <= 1e-12) {
        *index = i;
        *sign = s;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

TolaniLimbIk::TolaniLimbIk(const LimbGeometry& g) {
  const auto layout = [](const std::array<Eigen::Vector3d, 3>& axes,
                         const char* name) {
    SphericalJointLayout L;
    int idx[3];
    for (int n = 0; n < 3; ++n) {
      if (!CoordinateAxis(axes[n], &idx[n], &L.sign[n])) {
        internal::ThrowInvalidArgument("TolaniLimbIk: geometry.", name, "[", n,
                                       "] must be a +/- coordinate axis, got ",
                                       internal::FormatVector(axes[n]));
      }
    }
    if (idx[0] == idx[1] || idx[1] == idx[2]) {
      internal::ThrowInvalidArgument(
          "TolaniLimbIk: geometry.", name,
          " must have a middle axis different from its neighbours (Euler "
          "angles), got axes ",
          idx[0], ", ", idx[1], ", ", idx[2]);
    }
    L.proper = idx[0] == idx[2];
    L.i = idx[0];
    L.j = idx[1];
    L.k = L.proper ? 3 - idx[0] - idx[1] : idx[2];
    L.parity = (L.j - L.i + 3) % 3 == 1 ? 1.0 : -1.0;
    return L;
  };
  s1_ = layout(g.s1_axes, "s1_axes");
  s2_ = layout(g.s2_axes, "s2_axes");
  if ((g.f_axis - Eigen::Vector3d::UnitY()).norm() > 1e-12) {
    internal::ThrowInvalidArgument(
        "TolaniLimbIk: geometry.f_axis must be +y "
        "(Tolani 3.1), got ",
        internal::FormatVector(g.f_axis));
  }
  if (!internal::IsRigidTransform(g.A) || !internal::IsRigidTransform(g.B)) {
    internal::ThrowInvalidArgument(
        "TolaniLimbIk: geometry.A and geometry.B "
        "must be finite rigid transforms");
  }
  t_a_ = g.A.translation();
  R_a_ = g.A.linear();
  t_b_ = g.B.translation();
  R_b_ = g.B.linear();
  if (!(t_a_.norm() > 0.0) || !(t_b_.norm() > 0.0)) {
    internal::ThrowInvalidArgument(
        "TolaniLimbIk: the translations of "
        "geometry.A and geometry.B (upper and lower "
        "limb) must be non-zero");
  }
  // NaN: the first set_limits never takes the "unchanged" shortcut.
  lower_.setConstant(std::numeric_limits<double>::quiet_NaN());
  upper_ = lower_;
  set_limits(g.lower, g.upper);
}

void TolaniLimbIk::set_limits(const Vector7d& lower, const Vector7d& upper) {
  for (int i = 0; i < 7; ++i) {
    if (std::isnan(lower[i]) || std::isnan(upper[i]) || lower[i] > upper[i]) {
      internal::ThrowInvalidArgument("TolaniLimbIk: limits of coordinate ", i,
                                     " must satisfy lower <= upper, got [",
                                     lower[i], ", ", upper[i], "]");
    }
  }
  // A solver sets the same limits at every solve: keep the arcs then.
  if (lower == lower_ && upper == upper_) return;
  lower_ = lower;
  upper_ = upper;
  // The arcs of the spherical joints' limits in their primed angles (sign ·
  // θ: the limits [lo, hi] become [−hi, −lo] for an axis −e_i).
  for (int k = 0; k < 7; ++k) {
    SwivelParameterization::LimitArc& arc = arcs_[k];
    arc = SwivelParameterization::LimitArc();
    const double lo = lower[k], hi = upper[k];
    if (k == 3 || !(hi - lo < kTwoPi)) continue;  // θ4, or every angle fits
    const double sign = (k < 3 ? s1_ : s2_).sign[k < 3 ? k : k - 4];
    const double primed_lo = sign > 0.0 ? lo : -hi;
    const double primed_hi = sign > 0.0 ? hi : -lo;
    const double mid = 0.5 * (primed_lo + primed_hi);
    arc.full = false;
    arc.cos_lo = std::cos(primed_lo);
    arc.sin_lo = std::sin(primed_lo);
    arc.cos_hi = std::cos(primed_hi);
    arc.sin_hi = std::sin(primed_hi);
    arc.cos_mid = std::cos(mid);
    arc.sin_mid = std::sin(mid);
    arc.cos_half = std::cos(0.5 * (hi - lo));
  }
}

Eigen::Isometry3d TolaniLimbIk::Forward(const Vector7d& q) const {
  const int a1[3] = {s1_.i, s1_.j, s1_.proper ? s1_.i : s1_.k};
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  const Eigen::Matrix3d R1 = SphericalRotation(s1_.sign, a1, &q[0]);
  const Eigen::Matrix3d R2 = SphericalRotation(s2_.sign, a2, &q[4]);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  const Eigen::Matrix3d M = R1 * R_a_ * Ry(q[3]);
  X.linear() = M * R_b_ * R2;
  X.translation() = R1 * t_a_ + M * t_b_;
  return X;
}

Eigen::Vector3d TolaniLimbIk::Elbow(const Vector7d& q) const {
  const int a1[3] = {s1_.i, s1_.j, s1_.proper ? s1_.i : s1_.k};
  return SphericalRotation(s1_.sign, a1, &q[0]) * t_a_;
}

TrigRoots TolaniLimbIk::SolveElbow(double distance) const {
  return ElbowRoots(ElbowCoefficients(t_a_, R_a_, t_b_), distance);
}

void TolaniLimbIk::BuildFamily(double theta4, const Eigen::Vector3d& w0,
                               const Eigen::Vector3d& goal_point,
                               const LimbIkOptions& options,
                               SwivelParameterization* f) const {
  f->shoulder_layout_ = s1_;
  f->wrist_layout_ = s2_;
  f->lower_ = lower_;
  f->upper_ = upper_;
  f->arcs_ = arcs_;
  f->theta4_ = theta4;
  // Eq. (7), rebuilt: R1 maps the rest triangle (shoulder 0, elbow e0 = t_a,
  // wrist w0) onto the goal triangle (0, e(φ), goal). The paper's frames
  // [x̂ ŷ ẑ] are built from x̂ = e/|e|, which degenerates for a stretched
  // limb; we build them on the shoulder → wrist axis instead, F0 = [n̂0, m̂0,
  // n̂0 × m̂0] with m̂0 the unit elbow offset from that axis, and Fg(φ) = [n̂,
  // û(φ), n̂ × û(φ)] with û(φ) = cos φ û + sin φ v̂. For a non-degenerate
  // triangle the rotation between congruent triangles is unique, so this is
  // the paper's R1; when the radius vanishes any m̂0 ⊥ n̂0 gives a valid R1
  // and φ then only twists the limb about its axis (§3.6).
  const double w_norm = w0.norm();
  const Eigen::Vector3d n0 =
      w_norm > 0.0 ? Eigen::Vector3d(w0 / w_norm) : Eigen::Vector3d::UnitZ();
  const double g_norm = goal_point.norm();
  const Eigen::Vector3d n =
      g_norm > 0.0 ? Eigen::Vector3d(goal_point / g_norm) : Eigen::Vector3d(n0);
  const Eigen::Vector3d e0 = t_a_;
  const double along = e0.dot(n0);
  const Eigen::Vector3d e_perp = e0 - along * n0;
  const double radius = e_perp.norm();
  ElbowCircle& c = f->circle_;
  c.normal = n;
  c.center = along * n;
  c.radius = radius;
  c.u = Perpendicular(n, options.swivel_axis, Eigen::Vector3d::UnitY());
  c.v = n.cross(c.u);
  // Near full stretch e_perp is the small difference of two long vectors:
  // its direction carries an n̂0 component of relative size ε|e0|/R, which
  // would make F0 non-orthonormal; Perpendicular() projects it out again.
  const Eigen::Vector3d m0 =
      radius > 1e-12 * e0.norm()
          ? Perpendicular(n0, e_perp / radius, Eigen::Vector3d::UnitX())
          : Perpendicular(n0, Eigen::Vector3d::UnitX(),
                          Eigen::Vector3d::UnitY());
  Eigen::Matrix3d F0, Fg;
  F0 << n0, m0, n0.cross(m0);
  Fg << n, c.u, c.v;
  f->R0_ = Fg * F0.transpose();
  // R1(φ) = R_n(φ) R0 = sin φ (N R0) + cos φ (−N² R0) + (I + N²) R0
  // (Tolani §3.2.4; the printed coefficients are garbled, rebuilt here).
  const Eigen::Matrix3d N = Skew(n);
  const Eigen::Matrix3d N2 = N * N;
  f->S1_ = N * f->R0_;
  f->C1_ = -N2 * f->R0_;
  f->K1_ = (Eigen::Matrix3d::Identity() + N2) * f->R0_;
  FillEuler(s1_, f->S1_, f->C1_, f->K1_, &f->shoulder_);
  f->wrist_free_ = false;
}

void TolaniLimbIk::SetWristFree(const Eigen::Matrix3d& R_g,
                                SwivelParameterization* f) const {
  // R2(φ) = Mᵀ R1(φ)ᵀ R_g with M = R_a Ry(θ4) R_b: each term of R1 carries
  // through, so R2 = sin φ (Mᵀ S1ᵀ R_g) + cos φ (Mᵀ C1ᵀ R_g) + Mᵀ K1ᵀ R_g.
  const Eigen::Matrix3d Mt = (R_a_ * Ry(f->theta4_) * R_b_).transpose();
  f->S2_ = Mt * f->S1_.transpose() * R_g;
  f->C2_ = Mt * f->C1_.transpose() * R_g;
  f->K2_ = Mt * f->K1_.transpose() * R_g;
  f->wrist_free_ = true;
  FillEuler(s2_, f->S2_, f->C2_, f->K2_, &f->wrist_);
}

void TolaniLimbIk::FillEuler(const SphericalJointLayout& L,
                             const Eigen::Matrix3d& S, const Eigen::Matrix3d& C,
                             const Eigen::Matrix3d& K,
                             SwivelParameterization::EulerTrig* e) {
  const auto trig = [&](int r, int col, double k) {
    return SwivelTrig{k * S(r, col), k * C(r, col), k * K(r, col)};
  };
  const int i = L.i, j = L.j, k = L.k;
  const double eps = L.parity;
  if (L.proper) {
    // R = R_i(a) R_j(b) R_i(c), k the remaining axis, ε the parity of
    // (i, j, k): cos b = R_ii, tan a = R_ji / (−ε R_ki), tan c = R_ij / (ε
    // R_ik).
    e->m = trig(i, i, 1.0);
    e->n1 = trig(j, i, 1.0);
    e->d1 = trig(k, i, -eps);
    e->n3 = trig(i, j, 1.0);
    e->d3 = trig(i, k, eps);
  } else {
    // R = R_i(a) R_j(b) R_k(c), ε the parity of (i, j, k): sin b = ε R_ik,
    // tan a = −ε R_jk / R_kk, tan c = −ε R_ij / R_ii (divided by cos b, whose
    // sign is the family's).
    e->m = trig(i, k, eps);
    e->n1 = trig(j, k, -eps);
    e->d1 = trig(k, k, 1.0);
    e->n3 = trig(i, j, -eps);
    e->d3 = trig(i, i, 1.0);
  }
}

void TolaniLimbIk::SetWristGiven(const Eigen::Vector3d& wrist_angles,
                                 SwivelParameterization* f) const {
  f->wrist_free_ = false;
  f->wrist_angles_ = wrist_angles;
}

int TolaniLimbIk::Parameterize(
    const Eigen::Isometry3d& G, const LimbIkOptions& options,
    std::array<SwivelParameterization, 2>* out) const {
  const Eigen::Vector3d t_g = G.translation();
  const TrigRoots roots =
      ElbowRoots(ElbowCoefficients(t_a_, R_a_, t_b_), t_g.norm());
  for (int r = 0; r < roots.count; ++r) {
    const double t4 = roots.values[r];
    const Eigen::Vector3d w0 = t_a_ + R_a_ * Ry(t4) * t_b_;
    BuildFamily(t4, w0, t_g, options, &(*out)[r]);
    SetWristFree(G.linear(), &(*out)[r]);
  }
  return roots.count;
}

bool TolaniLimbIk::ChooseSwivel(const SwivelParameterization& family,
                                const SwivelAnalysis& analysis,
                                const LimbIkOptions& options,
                                double* phi) const {
  const double desired =
      options.use_desired_elbow
          ? family.circle().SwivelOfElbow(options.desired_elbow)
          : options.desired_swivel;
  if (!options.respect_limits) {
    *phi = Wrap(desired);
    return true;
  }
  const SwivelIntervals& V = analysis.valid;
  if (V.empty()) return false;
  if (V.full()) {
    *phi = Wrap(desired);
    return true;
  }
  if (options.swivel_choice == SwivelChoice::kLongestArcMidpoint) {
    SwivelIntervals::Interval arc;
    V.LongestArc(&arc);
    *phi = Wrap(0.5 * (arc.lo + arc.hi));
    return true;
  }
  // Keep a margin from the ends so that rounding cannot push an angle over
  // its limit.
  *phi = V.Closest(desired, 1e-9);
  return true;
}

bool TolaniLimbIk::SolveFamilies(
    const std::array<SwivelParameterization, 2>& families, int count,
    const LimbIkOptions& options, LimbSolution* s, double* score) const {
  *score = -1.0;
  if (count == 0) return false;
  // Prefer the elbow root inside its limits (Tolani §3.2.1: "only one
  // solution is physically realizable because of joint limits").
  int preferred = 0;
  for (int r = count - 1; r >= 0; --r) {
    double t = families[r].theta4();
    if (ShiftInto(lower_[3], upper_[3], 0.0, &t)) preferred = r;
  }
  if (!options.respect_limits) {
    const SwivelParameterization& f = families[preferred];
    const double phi =
        Wrap(options.use_desired_elbow
                 ? f.circle().SwivelOfElbow(options.desired_elbow)
                 : options.desired_swivel);
    s->status = LimbIkStatus::kSolved;
    s->message = "analytic (limits off)";
    s->q = f.JointAngles(phi, 0, 0);
    s->swivel = phi;
    s->elbow_root = preferred;
    s->shoulder_family = s->wrist_family = 0;
    s->valid = SwivelIntervals::Full();
    *score = kTwoPi;
    return true;
  }
  SwivelAnalysis analysis;
  bool found = false;
  for (int r = 0; r < count; ++r) {
    const SwivelParameterization& f = families[r];
    double t4 = f.theta4();
    if (!ShiftInto(lower_[3], upper_[3], 0.0, &t4)) continue;  // V empty
    f.Analyze(&analysis);
    double phi;
    if (!ChooseSwivel(f, analysis, options, &phi)) continue;
    SwivelIntervals::Interval arc;
    analysis.valid.LongestArc(&arc);
    const double length = arc.length();
    // A later root replaces the earlier one only when its longest arc is
    // longer by more than rounding: the mirror roots of an arm with
    // symmetric elbow limits (the iiwa14's) have arcs of equal length, and
    // letting the last bits decide flipped the answer between neighbouring
    // goals (a 180° jump of θ1 along a smooth path).
    if (found && length <= *score + kRootTieRadians) continue;
    // The families whose sets hold φ (V = ∪ A_f ∩ B_g); FamiliesAt's
    // evaluation of all four pairs only if rounding at an end leaves none.
    int sf = -1, wf = 0;
    for (int a = 0; a < kNumFamilies && sf < 0; ++a) {
      for (int b = 0; b < kNumFamilies; ++b) {
        if (analysis.shoulder[a].Contains(phi) &&
            analysis.wrist[b].Contains(phi)) {
          sf = a;
          wf = b;
          break;
        }
      }
    }
    if (sf < 0) f.FamiliesAt(phi, 1e-9, &sf, &wf);
    Vector7d q = f.JointAngles(phi, sf, wf);
    // Rounding at an interval end: clamp violations of a few ulps.
    ClampRounding(lower_, upper_, &q);
    found = true;
    *score = length;
    s->status = LimbIkStatus::kSolved;
    s->message = "analytic (valid swivel intervals)";
    s->q = q;
    s->swivel = phi;
    s->elbow_root = r;
    s->shoulder_family = sf;
    s->wrist_family = wf;
    s->valid = analysis.valid;
  }
  if (found) return true;
  // No admissible φ: the exact solution of the preferred root at the desired
  // φ, with the families that violate the limits least.
  const SwivelParameterization& f = families[preferred];
  const double phi = options.use_desired_elbow
                         ? f.circle().SwivelOfElbow(options.desired_elbow)
                         : Wrap(options.desired_swivel);
  int sf = 0, wf = 0;
  f.FamiliesAt(phi, 0.0, &sf, &wf);
  s->status = LimbIkStatus::kLimitsInfeasible;
  s->message = "reachable, but no swivel angle satisfies the joint limits";
  s->q = f.JointAngles(phi, sf, wf);
  s->swivel = phi;
  s->elbow_root = preferred;
  s->shoulder_family = sf;
  s->wrist_family = wf;
  s->valid = SwivelIntervals();
  return false;
}

LimbSolution TolaniLimbIk::SolvePose(const Eigen::Isometry3d& G_site,
                                     const Eigen::Isometry3d& E,
                                     const LimbIkOptions& options) const {
  const Eigen::Isometry3d G = G_site * E.inverse(Eigen::Isometry);
  std::array<SwivelParameterization, 2> families;
  const int count = Parameterize(G, options, &families);
  LimbSolution s;
  double score;
  if (count > 0) {
    SolveFamilies(families, count, options, &s, &score);
    return s;
  }
  // Out of reach: the limb stretched (or folded) toward the wrist goal with
  // the goal orientation, the closest θ4 within the limits.
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
  const double t4 = ClosestReachTheta4(
      eq, G.translation().norm(), options.respect_limits, lower_[3], upper_[3]);
  BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * t_b_, G.translation(), options,
              &families[0]);
  SetWristFree(G.linear(), &families[0]);
  const double phi = Wrap(options.desired_swivel);
  int sf = 0, wf = 0;
  families[0].FamiliesAt(phi, 0.0, &sf, &wf);
  s.status = LimbIkStatus::kUnreachable;
  s.message = "the wrist goal is out of reach (Eq. 5 has no root)";
  s.q = families[0].JointAngles(phi, sf, wf);
  s.swivel = phi;
  s.shoulder_family = sf;
  s.wrist_family = wf;
  return s;
}

LimbSolution TolaniLimbIk::SolvePosition(const Eigen::Vector3d& target,
                                         const Eigen::Vector3d& p_site,
                                         const Eigen::Vector3d& wrist_angles,
                                         const LimbIkOptions& options) const {
  // With R2 given, the site is a fixed point of the forearm: the lower limb
  // vector becomes t_b' = t_b + R_b R2 p_site and Eqs. (5)–(7) apply as is.
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  const Eigen::Matrix3d R2 =
      SphericalRotation(s2_.sign, a2, wrist_angles.data());
  const Eigen::Vector3d tb = t_b_ + R_b_ * R2 * p_site;
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, tb);
  const TrigRoots roots = ElbowRoots(eq, target.norm());
  std::array<SwivelParameterization, 2> families;
  for (int r = 0; r < roots.count; ++r) {
    const double t4 = roots.values[r];
    BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * tb, target, options, &families[r]);
    SetWristGiven(wrist_angles, &families[r]);
  }
  LimbSolution s;
  double score;
  if (roots.count > 0) {
    SolveFamilies(families, roots.count, options, &s, &score);
    return s;
  }
  const double t4 = ClosestReachTheta4(
      eq, target.norm(), options.respect_limits, lower_[3], upper_[3]);
  BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * tb, target, options, &families[0]);
  SetWristGiven(wrist_angles, &families[0]);
  const double phi = Wrap(options.desired_swivel);
  int sf = 0, wf = 0;
  families[0].FamiliesAt(phi, 0.0, &sf, &wf);
  s.status = LimbIkStatus::kUnreachable;
  s.message = "the position goal is out of reach (Eq. 5 has no root)";
  s.q = families[0].JointAngles(phi, sf, wf);
  s.swivel = phi;
  s.shoulder_family = sf;
  return s;
}

}  // namespace iklab
