#include "framework/kinematics.h"

#include <algorithm>
#include <cmath>

#include "framework/internal/check.h"
#include "framework/internal/kinematics_kernels.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

// sin and cos of the joint angles, computed a block of joints ahead of FK
// (they used to be half of FK's time, as one C library sincos per joint).
//
// Reduction by π: x = k·π + r, |r| ≤ π/2, so sin x = (−1)^k sin r and
// cos x = (−1)^k cos r, with no quadrant swap, hence no branch: the loop is
// vectorized and the polynomial latencies of different joints overlap.
// Cody–Waite: π is split into three parts, the first two 33 bits long, so
// k·kPiParts[0] and k·kPiParts[1] are exact for |k| < 2^20. Then Taylor
// polynomials on |r| ≤ π/2: the first omitted terms, (π/2)^23/23! ≈ 1.2e-18
// for sin and (π/2)^24/24! ≈ 8e-20 for cos, are far below the rounding error
// of the sums, a few 1e-16 (checked against std::sin/std::cos in
// tests/framework/kinematics_accuracy_test.cc). Arguments beyond |x| = 1e5
// (never a joint angle in practice) are redone by the library, which reduces
// them exactly.
constexpr double kOneOverPi = 0.31830988618379067;
constexpr double kPiParts[3] = {2 * 1.5707963267341256,
                                2 * 6.077100506303966e-11,
                                2 * 2.0222662487959506e-21};
// 2^52 + 2^51: adding and subtracting it rounds a double below 2^51 in
// magnitude to the nearest integer (round-to-nearest mode), without a call.
// (-ffast-math would fold (a + shift) − shift to a; iklab does not use it.)
constexpr double kRoundingShift = 6755399441055744.0;
constexpr double kFastSinCosLimit = 1e5;

constexpr double InverseFactorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}
// sin r = r Σ_j S(j) z^j and cos r = Σ_j C(j) z^j with z = r².
constexpr double S(int j) {
  return (j % 2 ? -1.0 : 1.0) * InverseFactorial(2 * j + 1);
}
constexpr double C(int j) {
  return (j % 2 ? -1.0 : 1.0) * InverseFactorial(2 * j);
}

}  // namespace

void internal::SinCosArray(const double* x, int m, double* sin_x,
                           double* cos_x) {
  for (int i = 0; i < m; ++i) {
    const double xi = x[i];
    const double k = (xi * kOneOverPi + kRoundingShift) - kRoundingShift;
    const double r = ((xi - k * kPiParts[0]) - k * kPiParts[1]) -
                     k * kPiParts[2];
    // (−1)^k without integers: h = round(k/2) and |k − 2h| is 1 for odd k.
    const double h = (k * 0.5 + kRoundingShift) - kRoundingShift;
    const double sign = 1.0 - 2.0 * std::abs(k - 2.0 * h);
    const double z = r * r;
    const double w = z * z;
    // Each sum split into even and odd powers of z: two chains of half the
    // length.
    const double sin_even =
        S(0) + w * (S(2) + w * (S(4) + w * (S(6) + w * (S(8) + w * S(10)))));
    const double sin_odd =
        S(1) + w * (S(3) + w * (S(5) + w * (S(7) + w * S(9))));
    const double cos_even =
        C(0) + w * (C(2) + w * (C(4) + w * (C(6) + w * (C(8) + w * C(10)))));
    const double cos_odd =
        C(1) + w * (C(3) + w * (C(5) + w * (C(7) + w * (C(9) + w * C(11)))));
    sin_x[i] = sign * (r * (sin_even + z * sin_odd));
    cos_x[i] = sign * (cos_even + z * cos_odd);
  }
  for (int i = 0; i < m; ++i) {
    if (!(std::abs(x[i]) <= kFastSinCosLimit)) {
      sin_x[i] = std::sin(x[i]);
      cos_x[i] = std::cos(x[i]);
    }
  }
}

void ForwardKinematics(const Model& model,
                       const Eigen::Ref<const Eigen::VectorXd>& q, Data* data) {
  model.CheckConfiguration(q, "ForwardKinematics: q");
  if (data->num_steps() != model.num_steps()) {
    ThrowInvalidArgument("ForwardKinematics: data has ", data->num_steps(),
                         " steps but the model has ", model.num_steps(),
                         " (was it created from another model?)");
  }
  internal::ForwardKinematicsUnchecked(model, q.data(), data);
}

void internal::ForwardKinematicsUnchecked(const Model& model, const double* q,
                                          Data* data) {
  const int n = model.num_steps();
  data->mutable_X_W(0) = model.X_PJ(0);
  // sin/cos of coordinates [block_begin, block_end), computed a block ahead.
  constexpr int kBlock = 32;
  double sines[kBlock], cosines[kBlock];
  int block_begin = 0, block_end = 0;
  for (int i = 1; i < n; ++i) {
    const Eigen::Isometry3d& X_WP = data->X_W(model.parent(i));
    const Eigen::Isometry3d& X_PJ = model.X_PJ(i);
    Eigen::Isometry3d& X_WJ = data->mutable_X_W(i);
    // X_WJ = X_WP * X_PJ * A(q).
    X_WJ.translation().noalias() = X_WP.linear() * X_PJ.translation();
    X_WJ.translation() += X_WP.translation();
    const int dof = model.dof(i);
    const bool pure_translation = model.pure_translation(i);
    if (dof < 0) {
      if (pure_translation) {
        X_WJ.linear() = X_WP.linear();
      } else {
        X_WJ.linear().noalias() = X_WP.linear() * X_PJ.linear();
      }
      continue;
    }
    const double qi = q[dof];
    if (model.kind(i) == StepKind::kPrismatic) {
      if (pure_translation) {
        X_WJ.linear() = X_WP.linear();
      } else {
        X_WJ.linear().noalias() = X_WP.linear() * X_PJ.linear();
      }
      X_WJ.translation().noalias() += qi * (X_WJ.linear() * model.axis(i));
      continue;
    }
    if (dof < block_begin || dof >= block_end) {
      block_begin = dof;
      block_end = std::min(dof + kBlock, model.nq());
      internal::SinCosArray(q + block_begin, block_end - block_begin, sines,
                            cosines);
    }
    const double s = sines[dof - block_begin];
    const double c = cosines[dof - block_begin];
    // Revolute. For the common pure-translation X_PJ, rotate the parent's
    // columns straight into place (no copy of R_WP first).
    if (pure_translation) {
      internal::Rotate(X_WP.linear(), X_WJ.linear(), model.axis_kind(i),
                       model.axis(i),
             c, s);
    } else {
      const Eigen::Matrix3d R = X_WP.linear() * X_PJ.linear();
      internal::Rotate(R, X_WJ.linear(), model.axis_kind(i), model.axis(i), c,
                       s);
    }
  }
}

namespace {

void CheckSite(const Model& model, int site, const char* what) {
  if (site < 0 || site >= model.num_sites()) {
    ThrowInvalidArgument(what, ": site index ", site, " out of range [0, ",
                         model.num_sites(), ")");
  }
}

// Writes the columns of the ancestors of `step` (the only coordinates that
// move a point fixed on it) and zeros the rest.
//   revolute:  [a × (p − o); a],  a = R_WJ axis, o = p_WJ
//   prismatic: [a; 0]
template <int kRows, typename Derived>
void FillColumns(const Model& model, const Data& data, int step,
                 const Eigen::Vector3d& p_WQ,
                 Eigen::MatrixBase<Derived>& J) {
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, step, p_WQ,
      [&J](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d& w) {
        J.col(dof).template head<3>() = v;
        if constexpr (kRows == 6) J.col(dof).template tail<3>() = w;
      });
}

}  // namespace

Eigen::Isometry3d SitePose(const Model& model, const Data& data, int site) {
  CheckSite(model, site, "SitePose");
  return data.X_W(model.site_step(site)) * model.X_FS(site);
}

Eigen::Vector3d SitePosition(const Model& model, const Data& data, int site) {
  CheckSite(model, site, "SitePosition");
  return data.X_W(model.site_step(site)) * model.X_FS(site).translation();
}

const Eigen::Isometry3d& LinkPose(const Model& model, const Data& data,
                                  int link) {
  if (link < 0 || link >= model.num_links()) {
    ThrowInvalidArgument("LinkPose: link index ", link, " out of range [0, ",
                         model.num_links(), ")");
  }
  return data.X_W(model.link_step(link));
}

void SiteJacobian(const Model& model, const Data& data, int site,
                  Eigen::Ref<Matrix6Xd> J) {
  CheckSite(model, site, "SiteJacobian");
  if (J.cols() != model.nq()) {
    ThrowInvalidArgument("SiteJacobian: J must be 6 x ", model.nq(), ", got 6 x ",
                         J.cols());
  }
  const int step = model.site_step(site);
  const Eigen::Vector3d p_WS =
      data.X_W(step) * model.X_FS(site).translation();
  FillColumns<6>(model, data, step, p_WS, J);
}

void SitePositionJacobian(const Model& model, const Data& data, int site,
                          Eigen::Ref<Eigen::Matrix3Xd> J) {
  CheckSite(model, site, "SitePositionJacobian");
  const int step = model.site_step(site);
  PointJacobian(model, data, step,
                data.X_W(step) * model.X_FS(site).translation(), J);
}

void PointJacobian(const Model& model, const Data& data, int step,
                   const Eigen::Vector3d& p_WQ,
                   Eigen::Ref<Eigen::Matrix3Xd> J) {
  if (step < 0 || step >= model.num_steps()) {
    ThrowInvalidArgument("PointJacobian: step index ", step,
                         " out of range [0, ", model.num_steps(), ")");
  }
  if (J.cols() != model.nq()) {
    ThrowInvalidArgument("PointJacobian: J must be 3 x ", model.nq(),
                         ", got 3 x ", J.cols());
  }
  FillColumns<3>(model, data, step, p_WQ, J);
}

}  // namespace iklab
