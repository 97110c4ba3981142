#include "solvers/analytic/six_r_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/internal/constants.h"
#include "solvers/analytic/subproblems.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/internal/warm_up.h"

namespace iklab {
namespace {

using analytic::AnglePairSolutions;
using analytic::AngleSolutions;
using analytic::Subproblem1;
using analytic::Subproblem2;
using analytic::Subproblem3;
using analytic::Subproblem4;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using internal::Invalid;
using internal::StrCat;

using internal::kPi;
constexpr double kTwoPi = 2.0 * kPi;
// Relative slack of the reach tests (|c| ≤ ρ (1 + kReachSlack) in the
// trigonometric equations): rounding of targets on the workspace boundary.
constexpr double kReachSlack = 1e-10;
// Two solutions closer than this (every angle, modulo 2π) are one.
constexpr double kDuplicateAngle = 1e-9;

// Wraps an angle into (−π, π]. The angles here are sums of a few atan2 and
// acos values (|angle| < 8π): a shift or two, std::remainder (a library
// call, the larger part of the wrapping cost) only as a fallback.
double Wrap(double angle) {
  if (!(std::abs(angle) < 8.0 * kPi)) {
    angle = std::remainder(angle, kTwoPi);
  }
  while (angle > kPi) angle -= kTwoPi;
  while (angle <= -kPi) angle += kTwoPi;
  return angle;
}

Matrix3d Rot(const Vector3d& k, double theta) {
  return Eigen::AngleAxisd(theta, k).toRotationMatrix();
}

// R(k, θ) from c = cos θ and s = sin θ (Rodrigues:
// R = c I + s [k]× + (1 − c) k kᵀ), as the subproblems return them.
inline Matrix3d RotCS(const Vector3d& k, double c, double s) {
  Matrix3d R = (1.0 - c) * (k * k.transpose());
  R(0, 0) += c;
  R(1, 1) += c;
  R(2, 2) += c;
  R(0, 1) -= s * k.z();
  R(1, 0) += s * k.z();
  R(0, 2) += s * k.y();
  R(2, 0) -= s * k.y();
  R(1, 2) -= s * k.x();
  R(2, 1) += s * k.x();
  return R;
}

// Component of v perpendicular to the unit vector k.
Vector3d Perp(const Vector3d& k, const Vector3d& v) { return v - k.dot(v) * k; }

// A unit vector perpendicular to the unit vector k.
Vector3d AnyPerpendicular(const Vector3d& k) {
  const Vector3d e = std::abs(k.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitY();
  return k.cross(e).normalized();
}

bool Parallel(const Vector3d& a, const Vector3d& b, double tol) {
  return a.cross(b).norm() <= tol;
}

// Distance between the lines (a, pa) and (b, pb) (unit directions).
double LineDistance(const Vector3d& a, const Vector3d& pa, const Vector3d& b,
                    const Vector3d& pb) {
  const Vector3d n = a.cross(b);
  const double s = n.norm();
  if (s <= 1e-12) return Perp(a, pb - pa).norm();
  return std::abs((pb - pa).dot(n)) / s;
}

// Midpoint of the closest points of two non-parallel lines.
Vector3d ClosestPoint(const Vector3d& a, const Vector3d& pa, const Vector3d& b,
                      const Vector3d& pb) {
  const Vector3d r = pb - pa;
  const double c = a.dot(b);
  const double den = 1.0 - c * c;
  const double s = (a.dot(r) - c * b.dot(r)) / den;  // along a
  const double u = (c * a.dot(r) - b.dot(r)) / den;  // along b
  return 0.5 * ((pa + s * a) + (pb + u * b));
}

// Distance from point x to the line (a, pa).
double PointLineDistance(const Vector3d& x, const Vector3d& a,
                         const Vector3d& pa) {
  return Perp(a, x - pa).norm();
}

// Shifts each angle of q by multiples of 2π into [lower, upper] where one
// fits; true if q ends inside.
bool ShiftIntoLimits(const Vector6d& lower, const Vector6d& upper,
                     Vector6d* q) {
  bool inside = true;
  for (int i = 0; i < 6; ++i) {
    double& qi = (*q)[i];
    if (qi < lower[i] && std::isfinite(lower[i])) {
      const double shifted = qi + kTwoPi * std::ceil((lower[i] - qi) / kTwoPi);
      if (shifted <= upper[i]) qi = shifted;
    } else if (qi > upper[i] && std::isfinite(upper[i])) {
      const double shifted = qi - kTwoPi * std::ceil((qi - upper[i]) / kTwoPi);
      if (shifted >= lower[i]) qi = shifted;
    }
    if (qi < lower[i] || qi > upper[i]) inside = false;
  }
  return inside;
}

}  // namespace

const char* SixRFamilyName(SixRFamily family) {
  return family == SixRFamily::kSphericalWrist ? "spherical wrist"
                                               : "three parallel axes";
}

std::shared_ptr<const SixRArm> SixRArm::Create(const Model& model, int site,
                                               std::string* why,
                                               double tolerance) {
  if (why == nullptr) {
    internal::ThrowInvalidArgument("SixRArm::Create: why must not be null");
  }
  if (site < 0 || site >= model.num_sites()) {
    internal::ThrowInvalidArgument("SixRArm::Create: site must be in [0, ",
                                   model.num_sites(), "), got ", site);
  }
  if (!(tolerance > 0.0 && tolerance <= 1e-3)) {
    internal::ThrowInvalidArgument(
        "SixRArm::Create: tolerance must be in (0, 1e-3], got ", tolerance);
  }
  const std::string where = "analytic-6r: ";
  if (model.nq() != 6) {
    *why = StrCat(where, "needs a model with 6 coordinates (a 6R arm), the "
                         "model has ",
                  model.nq());
    return nullptr;
  }
  if (model.has_mimics()) {
    *why = StrCat(where, "the model has mimic joints (e.g. '",
                  model.full_dof_joint(model.mimics()[0].joint),
                  "'); the closed form is for six independent joints");
    return nullptr;
  }
  std::shared_ptr<SixRArm> arm(new SixRArm());
  arm->site_ = site;
  arm->tolerance_ = tolerance;
  if (!arm->ReadJoints(model, where, why)) return nullptr;
  if (arm->FindSphericalWrist()) {
    if (!arm->SetSphericalWristCase(where, why)) return nullptr;
    return arm;
  }
  if (!arm->SetThreeParallel(where, why)) return nullptr;
  return arm;
}

bool SixRArm::ReadJoints(const Model& model, const std::string& where,
                         std::string* why) {
  // Steps from the root to the site, root first.
  std::vector<int> path;
  for (int s = model.site_step(site_); s >= 0; s = model.parent(s)) {
    path.push_back(s);
    if (s == 0) break;
  }
  std::reverse(path.begin(), path.end());
  AlignedVector<Eigen::Isometry3d> X(model.num_steps(),
                                     Eigen::Isometry3d::Identity());
  int joints = 0;
  for (int s : path) {
    const int parent = model.parent(s);
    X[s] = (parent < 0 ? Eigen::Isometry3d::Identity() : X[parent]) *
           model.X_PJ(s);
    if (model.kind(s) == StepKind::kPrismatic) {
      *why = StrCat(where, "coordinate ", model.dof(s), " (",
                    model.dof_name(model.dof(s)),
                    ") is prismatic; only revolute joints are supported");
      return false;
    }
    if (model.kind(s) != StepKind::kRevolute) continue;
    if (joints == 6) {
      *why = StrCat(where, "more than 6 revolute joints move the site");
      return false;
    }
    coordinate_[joints] = model.dof(s);
    h_[joints] = (X[s].linear() * model.axis(s)).normalized();
    p_[joints] = X[s].translation();
    ++joints;
  }
  if (joints != 6) {
    *why = StrCat(where, "the chain to site \"", model.site_name(site_),
                  "\" has ", joints,
                  " revolute joints; all 6 coordinates must move it");
    return false;
  }
  X_0_ = X[model.site_step(site_)] * model.X_FS(site_);
  for (int k = 0; k < 6; ++k) {
    const int i = coordinate_[k];
    lower_[k] = model.lower()[i];
    upper_[k] = model.upper()[i];
  }
  double scale = (X_0_.translation() - p_[5]).norm();
  for (int k = 1; k < 6; ++k) scale += (p_[k] - p_[k - 1]).norm();
  scale_ = scale > 0.0 ? scale : 1.0;
  return true;
}

bool SixRArm::AxesMeet(int i, int j) const {
  const double length_tol = tolerance_ * scale_;
  return !Parallel(h_[i], h_[j], tolerance_) &&
         LineDistance(h_[i], p_[i], h_[j], p_[j]) <= length_tol;
}

bool SixRArm::AxesParallel(int i, int j) const {
  const double length_tol = tolerance_ * scale_;
  return Parallel(h_[i], h_[j], tolerance_) &&
         LineDistance(h_[i], p_[i], h_[j], p_[j]) > length_tol;
}

bool SixRArm::FindSphericalWrist() {
  const double length_tol = tolerance_ * scale_;
  const auto& h = h_;
  const auto& p = p_;
  // Spherical wrist: axes 4, 5, 6 (k = 3, 4, 5) through one point.
  bool spherical = false;
  if (AxesMeet(3, 4) && AxesMeet(4, 5)) {
    const Vector3d w = ClosestPoint(h[3], p[3], h[4], p[4]);
    spherical = PointLineDistance(w, h[3], p[3]) <= length_tol &&
                PointLineDistance(w, h[4], p[4]) <= length_tol &&
                PointLineDistance(w, h[5], p[5]) <= length_tol;
    w_ = w;
  }
  return spherical;
}

bool SixRArm::SetSphericalWristCase(const std::string& where,
                                    std::string* why) {
  const auto& h = h_;
  const auto& p = p_;
  family_ = SixRFamily::kSphericalWrist;
  if (AxesMeet(0, 1)) {
    position_case_ = 0;
    c_ = ClosestPoint(h[0], p[0], h[1], p[1]);
    decomposition_ = "spherical wrist; axes 1 and 2 intersect";
  } else if (AxesParallel(1, 2)) {
    position_case_ = 1;
    decomposition_ = "spherical wrist; axes 2 and 3 parallel";
  } else if (AxesMeet(1, 2)) {
    position_case_ = 2;
    c_ = ClosestPoint(h[1], p[1], h[2], p[2]);
    decomposition_ = "spherical wrist; axes 2 and 3 intersect";
  } else if (AxesParallel(0, 1)) {
    position_case_ = 3;
    decomposition_ = "spherical wrist; axes 1 and 2 parallel";
  } else {
    *why = StrCat(where, "spherical wrist, but no two consecutive axes of "
                         "1-3 intersect or are parallel (the general case "
                         "needs IK-Geo's subproblem 5, not implemented)");
    return false;
  }
  if ((position_case_ == 1 && Parallel(h[0], h[1], tolerance_)) ||
      (position_case_ == 3 && Parallel(h[1], h[2], tolerance_))) {
    *why = StrCat(where, "axes 1, 2 and 3 are all parallel: the wrist "
                         "centre cannot leave a plane");
    return false;
  }
  v6_ = AnyPerpendicular(h[5]);
  return true;
}

bool SixRArm::SetThreeParallel(const std::string& where, std::string* why) {
  const auto& h = h_;
  const auto& p = p_;
  const double tolerance = tolerance_;
  const bool three_parallel = AxesParallel(1, 2) && AxesParallel(2, 3) &&
                              Parallel(h[1], h[3], tolerance);
  if (three_parallel && AxesMeet(4, 5)) {
    if (Parallel(h[0], h[1], tolerance)) {
      *why = StrCat(where, "axes 2, 3, 4 are parallel but axis 1 is parallel "
                           "to them too");
      return false;
    }
    if (Parallel(h[4], h[1], tolerance)) {
      *why = StrCat(where, "axes 2, 3, 4 are parallel but axis 5 is parallel "
                           "to them too");
      return false;
    }
    family_ = SixRFamily::kThreeParallel;
    decomposition_ = "axes 2, 3, 4 parallel; axes 5 and 6 intersect";
    w_ = ClosestPoint(h[4], p[4], h[5], p[5]);
    sign3_ = h[1].dot(h[2]) > 0.0 ? 1.0 : -1.0;
    sign4_ = h[1].dot(h[3]) > 0.0 ? 1.0 : -1.0;
    v2_ = AnyPerpendicular(h[1]);
    return true;
  }
  if (three_parallel) {
    *why = StrCat(where, "axes 2, 3, 4 are parallel but axes 5 and 6 do not "
                         "intersect (IK-Geo's subproblem 6 case, not "
                         "implemented)");
    return false;
  }
  *why = StrCat(where, "not a supported 6R geometry: axes 4, 5, 6 do not "
                       "meet in a point (spherical wrist) and axes 2, 3, 4 "
                       "are not parallel (UR type), to tolerance ",
                tolerance);
  return false;
}

void SixRArm::Add(const Vector6d& theta, bool exact,
                  SixRSolutions* out) const {
  Vector6d chain;
  for (int k = 0; k < 6; ++k) chain[k] = Wrap(theta[k]);
  if (exact) {
    for (int i = 0; i < out->num_solutions; ++i) {
      bool same = true;
      for (int k = 0; k < 6 && same; ++k) {
        // Stored angles are in (−π, π], usually shifted by at most one turn
        // into the limits: compare the gap with 0 and 2π, reducing it with
        // a library call only when it is larger.
        double gap = std::abs(out->solutions[i].q[coordinate_[k]] - chain[k]);
        if (gap > kTwoPi + kPi) gap = std::abs(std::remainder(gap, kTwoPi));
        same = gap <= kDuplicateAngle ||
               std::abs(gap - kTwoPi) <= kDuplicateAngle;
      }
      if (same) return;
    }
  }
  const bool inside = ShiftIntoLimits(lower_, upper_, &chain);
  SixRSolution& s = exact ? out->solutions[out->num_solutions++]
                          : out->approximations[out->num_approximations++];
  for (int k = 0; k < 6; ++k) s.q[coordinate_[k]] = chain[k];
  s.within_limits = inside;
}

void SixRArm::SolveSphericalWrist(const Matrix3d& R, const Vector3d& t,
                                  const Vector6d& free,
                                  SixRSolutions* out) const {
  const auto& h = h_;
  const auto& p = p_;
  const double tol = kReachSlack;
  // Thresholds of the degenerate (free-angle) tests: lengths, lengths² and
  // unit vectors.
  const double len = tolerance_ * scale_;
  const double len2 = len * scale_;
  const double unit = tolerance_;
  const Vector3d w_t = R * w_ + t;  // g w

  // Position: up to 4 (θ1, θ2, θ3), with exactness.
  // R123 = R(h1, θ1) R(h2, θ2) R(h3, θ3), built from the rotations the
  // decomposition computes anyway.
  struct Position {
    double theta[3];
    bool exact;
    Matrix3d R123;
  };
  std::array<Position, 4> positions;
  int num_positions = 0;
  int free_joint = -1;
  auto push = [&](double t1, double t2, double t3, bool exact,
                  const Matrix3d& R123) {
    positions[num_positions++] = {{t1, t2, t3}, exact, R123};
  };
  switch (position_case_) {
    case 0: {  // h1 ∩ h2 at c: ‖E3 w − c‖ = ‖g w − c‖, then SP2.
      const AngleSolutions t3 = Subproblem3(h[2], w_ - p[2], c_ - p[2],
                                            (w_t - c_).norm(), tol, len2,
                                            free[2]);
      if (t3.free) free_joint = 2;
      for (int i = 0; i < t3.count; ++i) {
        const Matrix3d R3 = RotCS(h[2], t3.cos[i], t3.sin[i]);
        const Vector3d u = R3 * (w_ - p[2]) + p[2] - c_;
        const AnglePairSolutions t12 =
            Subproblem2(h[0], h[1], u, w_t - c_, tol, len, free[0], free[1]);
        if (t12.free1) free_joint = 0;
        if (t12.free2) free_joint = 1;
        for (int j = 0; j < t12.count; ++j) {
          push(t12.theta[j][0], t12.theta[j][1], t3.theta[i],
               t3.exact && t12.exact,
               RotCS(h[0], t12.cos[j][0], t12.sin[j][0]) *
                   RotCS(h[1], t12.cos[j][1], t12.sin[j][1]) * R3);
        }
      }
      break;
    }
    case 1: {  // h2 ∥ h3: h2·(E1⁻¹ g w) = h2·w, then planar 2R ⊥ h2.
      const AngleSolutions t1 = Subproblem4(h[1], h[0], w_t - p[0],
                                            h[1].dot(w_ - p[0]), tol, len,
                                            -free[0]);
      if (t1.free) free_joint = 0;
      for (int i = 0; i < t1.count; ++i) {
        const double theta1 = -t1.theta[i];
        const Matrix3d R1T = RotCS(h[0], t1.cos[i], t1.sin[i]);  // R(h1, −θ1)
        const Vector3d v = R1T * (w_t - p[0]) + p[0];
        const AngleSolutions t3 = Subproblem3(
            h[2], Perp(h[1], w_ - p[2]), Perp(h[1], p[1] - p[2]),
            Perp(h[1], v - p[1]).norm(), tol, len2, free[2]);
        if (t3.free) free_joint = 2;
        for (int j = 0; j < t3.count; ++j) {
          const Matrix3d R3 = RotCS(h[2], t3.cos[j], t3.sin[j]);
          const Vector3d u = R3 * (w_ - p[2]) + p[2] - p[1];
          const AngleSolutions t2 = Subproblem1(h[1], u, v - p[1], len, free[1]);
          if (t2.free) free_joint = 1;
          push(theta1, t2.theta[0], t3.theta[j], t1.exact && t3.exact,
               R1T.transpose() * RotCS(h[1], t2.cos[0], t2.sin[0]) * R3);
        }
      }
      break;
    }
    case 2: {  // h2 ∩ h3 at c: ‖E1⁻¹ g w − c‖ = ‖w − c‖, then SP2.
      const AngleSolutions t1 = Subproblem3(h[0], w_t - p[0], c_ - p[0],
                                            (w_ - c_).norm(), tol, len2,
                                            -free[0]);
      if (t1.free) free_joint = 0;
      for (int i = 0; i < t1.count; ++i) {
        const Vector3d v = RotCS(h[0], t1.cos[i], t1.sin[i]) * (w_t - p[0]) + p[0];
        const AnglePairSolutions t23 =
            Subproblem2(h[1], h[2], w_ - c_, v - c_, tol, len, free[1], free[2]);
        if (t23.free1) free_joint = 1;
        if (t23.free2) free_joint = 2;
        for (int j = 0; j < t23.count; ++j) {
          push(-t1.theta[i], t23.theta[j][0], t23.theta[j][1],
               t1.exact && t23.exact,
               RotCS(h[0], t1.cos[i], -t1.sin[i]) *
                   RotCS(h[1], t23.cos[j][0], t23.sin[j][0]) *
                   RotCS(h[2], t23.cos[j][1], t23.sin[j][1]));
        }
      }
      break;
    }
    default: {  // h1 ∥ h2: h1·(E3 w) = h1·(g w), then planar 2R ⊥ h1.
      const AngleSolutions t3 = Subproblem4(h[0], h[2], w_ - p[2],
                                            h[0].dot(w_t - p[2]), tol, len,
                                            free[2]);
      if (t3.free) free_joint = 2;
      for (int i = 0; i < t3.count; ++i) {
        const Vector3d u = RotCS(h[2], t3.cos[i], t3.sin[i]) * (w_ - p[2]) + p[2];
        const AngleSolutions t2 = Subproblem3(
            h[1], Perp(h[0], u - p[1]), Perp(h[0], p[0] - p[1]),
            Perp(h[0], w_t - p[0]).norm(), tol, len2, free[1]);
        if (t2.free) free_joint = 1;
        for (int j = 0; j < t2.count; ++j) {
          const Vector3d e2u =
              RotCS(h[1], t2.cos[j], t2.sin[j]) * (u - p[1]) + p[1];
          const AngleSolutions t1 =
              Subproblem1(h[0], e2u - p[0], w_t - p[0], len, free[0]);
          if (t1.free) free_joint = 0;
          push(t1.theta[0], t2.theta[j], t3.theta[i], t3.exact && t2.exact,
               RotCS(h[0], t1.cos[0], t1.sin[0]) *
                   RotCS(h[1], t2.cos[j], t2.sin[j]) *
                   RotCS(h[2], t3.cos[i], t3.sin[i]));
        }
      }
      break;
    }
  }

  // Wrist: R(h4, θ4) R(h5, θ5) h6 = R_w h6 (SP2), then θ6 (SP1).
  for (int i = 0; i < num_positions; ++i) {
    const Position& pos = positions[i];
    const Matrix3d R_w = pos.R123.transpose() * R;
    const AnglePairSolutions t45 = Subproblem2(h[3], h[4], h[5], R_w * h[5],
                                               tol, unit, free[3], free[4]);
    if (t45.free1) free_joint = 3;
    if (t45.free2) free_joint = 4;
    for (int j = 0; j < t45.count; ++j) {
      const Matrix3d R45 =
          RotCS(h[3], t45.cos[j][0], t45.sin[j][0]) *
          RotCS(h[4], t45.cos[j][1], t45.sin[j][1]);
      const AngleSolutions t6 = Subproblem1(
          h[5], v6_, R45.transpose() * R_w * v6_, unit, free[5]);
      if (t6.free) free_joint = 5;
      Vector6d theta;
      theta << pos.theta[0], pos.theta[1], pos.theta[2], t45.theta[j][0],
          t45.theta[j][1], t6.theta[0];
      Add(theta, pos.exact && t45.exact, out);
    }
  }
  if (free_joint >= 0) {
    out->singular = true;
    out->free_coordinate = coordinate_[free_joint];
  }
}

void SixRArm::SolveThreeParallel(const Matrix3d& R, const Vector3d& t,
                                 const Vector6d& free,
                                 SixRSolutions* out) const {
  const auto& h = h_;
  const auto& p = p_;
  const double tol = kReachSlack;
  const double len = tolerance_ * scale_;
  const double len2 = len * scale_;
  const double unit = tolerance_;
  int free_joint = -1;
  const Vector3d g_w = R * w_ + t;  // g p56
  const Vector3d R_h6 = R * h[5];
  // θ1: h2ᵀ R(h1, −θ1)(g p56 − p1) = h2·(p56 − p1).
  const AngleSolutions t1 = Subproblem4(h[1], h[0], g_w - p[0],
                                        h[1].dot(w_ - p[0]), tol, len,
                                        -free[0]);
  if (t1.free) free_joint = 0;
  // Arm constants of the planar two-link problem (⊥ h2), formed once per
  // solve instead of once per branch.
  const Vector3d p34 = Perp(h[1], p[3] - p[2]);
  const Vector3d p32 = Perp(h[1], p[1] - p[2]);
  const Vector3d p4w = p[3] - w_;
  // p4 − p3 split for Rodrigues: along h3, across it, and h3 × it.
  const Vector3d p43 = p[3] - p[2];
  const Vector3d p43_along = h[2].dot(p43) * h[2];
  const Vector3d p43_perp = p43 - p43_along;
  const Vector3d h3_x_p43 = h[2].cross(p43);
  for (int i = 0; i < t1.count; ++i) {
    const double theta1 = -t1.theta[i];
    const Matrix3d R1 = RotCS(h[0], t1.cos[i], -t1.sin[i]);
    // θ5: h2ᵀ R(h5, θ5) h6 = h2ᵀ R1ᵀ R h6.
    const AngleSolutions t5 =
        Subproblem4(h[1], h[4], h[5], h[1].dot(R1.transpose() * R_h6), tol,
                    unit, free[4]);
    if (t5.free) free_joint = 4;
    const Vector3d Rt_R1_h2 = R.transpose() * (R1 * h[1]);
    for (int j = 0; j < t5.count; ++j) {
      const double theta5 = t5.theta[j];
      const Matrix3d R5 = RotCS(h[4], t5.cos[j], t5.sin[j]);
      // θ6: R(h6, −θ6) R5ᵀ h2 = Rᵀ R1 h2.
      const AngleSolutions t6 =
          Subproblem1(h[5], R5.transpose() * h[1], Rt_R1_h2, unit, -free[5]);
      if (t6.free) free_joint = 5;
      const double theta6 = -t6.theta[0];
      const Matrix3d R6 = RotCS(h[5], t6.cos[0], -t6.sin[0]);
      // The rotation about h2 of E2 E3 E4 = R1ᵀ R R6ᵀ R5ᵀ (applied to v2,
      // right to left): φ = θ2 + s3 θ3 + s4 θ4.
      const Vector3d R234_v2 =
          R1.transpose() * (R * (R6.transpose() * (R5.transpose() * v2_)));
      const double phi = Subproblem1(h[1], v2_, R234_v2, unit, 0.0).theta[0];
      // Planar two-link: E2 E3 p4 = E1⁻¹ g E6⁻¹ E5⁻¹ p4 =: v.
      const Vector3d x6 = R6.transpose() * (R5.transpose() * p4w) + w_;
      const Vector3d v = R1.transpose() * (R * x6 + t - p[0]) + p[0];
      const AngleSolutions t3 = Subproblem3(
          h[2], p34, p32, Perp(h[1], v - p[1]).norm(), tol, len2, free[2]);
      if (t3.free) free_joint = 2;
      for (int k = 0; k < t3.count; ++k) {
        const double theta3 = t3.theta[k];
        // R(h3, θ3)(p4 − p3) by Rodrigues on the per-solve parts.
        const Vector3d u = p43_along + t3.cos[k] * p43_perp +
                           t3.sin[k] * h3_x_p43 + p[2] - p[1];
        const AngleSolutions t2 = Subproblem1(h[1], u, v - p[1], len, free[1]);
        if (t2.free) free_joint = 1;
        const double theta2 = t2.theta[0];
        const double theta4 = sign4_ * (phi - theta2 - sign3_ * theta3);
        Vector6d theta;
        theta << theta1, theta2, theta3, theta4, theta5, theta6;
        Add(theta, t1.exact && t5.exact && t3.exact, out);
      }
    }
  }
  if (free_joint >= 0) {
    out->singular = true;
    out->free_coordinate = coordinate_[free_joint];
  }
}

SixRSolutions SixRArm::AllSolutions(const Eigen::Isometry3d& X_WT,
                                    const Vector6d& free_values) const {
  SixRSolutions out;
  // g = X_WT X_0⁻¹: R = R_WT R_0ᵀ, t = p_WT − R p_0.
  const Matrix3d R = X_WT.linear() * X_0_.linear().transpose();
  const Vector3d t = X_WT.translation() - R * X_0_.translation();
  Vector6d free;
  for (int k = 0; k < 6; ++k) free[k] = free_values[coordinate_[k]];
  if (family_ == SixRFamily::kSphericalWrist) {
    SolveSphericalWrist(R, t, free, &out);
  } else {
    SolveThreeParallel(R, t, free, &out);
  }
  return out;
}

SixRSolutions SixRArm::AllSolutions(const Eigen::Isometry3d& X_WT) const {
  return AllSolutions(X_WT, Vector6d::Zero());
}

Eigen::Isometry3d SixRArm::Forward(const Vector6d& q) const {
  Eigen::Isometry3d g = Eigen::Isometry3d::Identity();
  for (int k = 0; k < 6; ++k) {
    Eigen::Isometry3d E = Eigen::Isometry3d::Identity();
    E.linear() = Rot(h_[k], q[coordinate_[k]]);
    E.translation() = p_[k] - E.linear() * p_[k];
    g = g * E;
  }
  return g * X_0_;
}

bool SixRAnalyticOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (!(geometry_tolerance > 0.0 && geometry_tolerance <= 1e-3)) {
    return Invalid(why,
                   "SixRAnalyticOptions::geometry_tolerance must be in "
                   "(0, 1e-3], got ",
                   geometry_tolerance);
  }
  return true;
}

std::shared_ptr<const SixRArm> SixRAnalyticSolver::Arm(
    const std::shared_ptr<const Model>& model, int site,
    std::string* why) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_model_ != model || cached_site_ != site) {
    cached_model_ = model;
    cached_site_ = site;
    cached_why_.clear();
    cached_arm_ = SixRArm::Create(*model, site, &cached_why_,
                                  options_.geometry_tolerance);
  }
  *why = cached_why_;
  return cached_arm_;
}

Result SixRAnalyticSolver::Solve(const Problem& problem,
                                 const Eigen::VectorXd& q0) const {
  if (first_solve_.Claim()) Prepare(problem);  // outside the clock
  internal::SolveScope scope(problem, q0, options_.common, name());
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options_.IsValid(&why)) return scope.Reject(why);
  if (problem.goals().size() != 1) {
    return scope.Reject(
        StrCat("analytic-6r: the problem must have exactly one goal (a "
               "PositionOrientationGoal), got ",
               problem.goals().size()));
  }
  const auto* goal =
      dynamic_cast<const PositionOrientationGoal*>(problem.goals()[0].get());
  if (goal == nullptr) {
    return scope.Reject(StrCat("analytic-6r: the goal must be a "
                               "PositionOrientationGoal, got \"",
                               problem.goals()[0]->name(), "\""));
  }
  const std::shared_ptr<const SixRArm> arm =
      Arm(problem.shared_model(), goal->site(), &why);
  if (arm == nullptr) return scope.Reject(why);

  // Fixed-size copies: the selection below allocates nothing.
  const Vector6d start = scope.start();
  const Vector6d lower = scope.lower();
  const Vector6d upper = scope.upper();
  const SixRSolutions all = arm->AllSolutions(goal->target(), start);
  const std::string singular =
      all.singular
          ? StrCat("; singular pose: infinitely many solutions, coordinate ",
                   all.free_coordinate, " (",
                   problem.model().dof_name(all.free_coordinate),
                   ") kept at the start pose's value")
          : std::string();

  // Per joint, the 2π shift within the bounds nearest the start.
  const auto nearest_shift = [&](Vector6d* q) {
    bool inside = true;
    for (int i = 0; i < 6; ++i) {
      double& qi = (*q)[i];
      // The number of turns nearest to the start: std::round(gap / 2π),
      // rounded half away from zero by truncation (std::round is a library
      // call; |gap| is a few turns at most: q and the start are finite).
      const double turns = (start[i] - qi) / kTwoPi;
      qi += kTwoPi * static_cast<double>(static_cast<long long>(
                         turns + (turns >= 0.0 ? 0.5 : -0.5)));
      if (qi < lower[i]) qi += kTwoPi * std::ceil((lower[i] - qi) / kTwoPi);
      if (qi > upper[i]) qi -= kTwoPi * std::ceil((qi - upper[i]) / kTwoPi);
      if (qi < lower[i] || qi > upper[i]) inside = false;
    }
    return inside;
  };
  if (all.num_solutions == 0) {
    // Out of reach: the least-squares branch with the smallest potential.
    double best_potential = std::numeric_limits<double>::infinity();
    Eigen::VectorXd best = scope.start();
    for (int i = 0; i < all.num_approximations; ++i) {
      Vector6d q = all.approximations[i].q;
      nearest_shift(&q);
      const Eigen::VectorXd candidate = q.cwiseMax(lower).cwiseMin(upper);
      const double potential =
          problem.EvaluatePotential(candidate, scope.workspace(), nullptr);
      if (potential < best_potential) {
        best_potential = potential;
        best = candidate;
      }
    }
    return scope.Finish(best, SolveStatus::kUnreachable,
                        StrCat("analytic-6r (", arm->decomposition(),
                               "): no exact solution, the target is out of "
                               "reach; closest least-squares branch",
                               singular));
  }
  int best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  int nearest_box = 0;
  double nearest_box_distance = std::numeric_limits<double>::infinity();
  std::array<Vector6d, 8> shifted;
  for (int i = 0; i < all.num_solutions; ++i) {
    Vector6d& q = shifted[i];
    q = all.solutions[i].q;
    if (nearest_shift(&q)) {
      const double distance = (q - start).squaredNorm();
      if (distance < best_distance) {
        best_distance = distance;
        best = i;
      }
    } else {
      const double outside =
          (q - q.cwiseMax(lower).cwiseMin(upper)).squaredNorm();
      if (outside < nearest_box_distance) {
        nearest_box_distance = outside;
        nearest_box = i;
      }
    }
  }
  if (best < 0) {
    const Eigen::VectorXd clamped =
        shifted[nearest_box].cwiseMax(lower).cwiseMin(upper);
    return scope.Finish(
        clamped, SolveStatus::kLimitsInfeasible,
        StrCat("analytic-6r (", arm->decomposition(), "): all ",
               all.num_solutions,
               " solutions lie outside the joint limits; the nearest one "
               "clamped into them",
               singular));
  }
  // Built with one allocation: this message is made on every successful
  // solve.
  constexpr const char* kPrefix = "analytic-6r (";
  constexpr const char* kNearest = "): the solution nearest the start of ";
  std::string message;
  message.reserve(
      std::char_traits<char>::length(kPrefix) + arm->decomposition().size() +
      std::char_traits<char>::length(kNearest) + 1 + singular.size());
  message.append(kPrefix).append(arm->decomposition()).append(kNearest);
  message.push_back(static_cast<char>('0' + all.num_solutions));  // 1 ... 8
  message.append(singular);
  return scope.Finish(Eigen::VectorXd(shifted[best]), SolveStatus::kConverged,
                      std::move(message));
}

void SixRAnalyticSolver::Prepare(const Problem& problem) const {
  first_solve_.Claim();
  // Never throws: with invalid options (SixRArm::Create would throw on the
  // tolerance) Solve says why.
  if (!options_.IsValid(nullptr) || problem.goals().size() != 1) return;
  const auto* goal =
      dynamic_cast<const PositionOrientationGoal*>(problem.goals()[0].get());
  if (goal == nullptr) return;
  std::string why;
  if (Arm(problem.shared_model(), goal->site(), &why) != nullptr) {
    internal::WarmUp(*this, problem);  // a closed form: cheap
  }
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const SixRAnalyticOptions& options) {
  return SixRAnalyticSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const SixRAnalyticOptions& options) {
  return std::make_unique<SixRAnalyticSolver>(options);
}

}  // namespace iklab
