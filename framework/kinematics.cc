#include "framework/kinematics.h"

#include <cmath>

#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

// R ← R * Rot(axis, angle) for a coordinate axis touches only two columns:
// for z, [c0 c1] ← [c·c0 + s·c1, −s·c0 + c·c1] (and cyclically for x, y).
template <typename Rotation>
inline void RotateColumns(Rotation&& R, int a, int b, double c, double s) {
  const Eigen::Vector3d ca = R.col(a);
  const Eigen::Vector3d cb = R.col(b);
  R.col(a) = c * ca + s * cb;
  R.col(b) = c * cb - s * ca;
}

}  // namespace

void ForwardKinematics(const Model& model,
                       const Eigen::Ref<const Eigen::VectorXd>& q, Data* data) {
  model.CheckConfiguration(q, "ForwardKinematics: q");
  if (data->num_steps() != model.num_steps()) {
    ThrowInvalidArgument("ForwardKinematics: data has ", data->num_steps(),
                         " steps but the model has ", model.num_steps(),
                         " (was it created from another model?)");
  }
  const int n = model.num_steps();
  data->mutable_X_W(0) = model.X_PJ(0);
  for (int i = 1; i < n; ++i) {
    const Eigen::Isometry3d& X_WP = data->X_W(model.parent(i));
    const Eigen::Isometry3d& X_PJ = model.X_PJ(i);
    Eigen::Isometry3d& X_WJ = data->mutable_X_W(i);
    // X_WJ = X_WP * X_PJ, skipping the rotation product for the many steps
    // whose constant transform is a pure translation.
    X_WJ.translation().noalias() = X_WP.linear() * X_PJ.translation();
    X_WJ.translation() += X_WP.translation();
    if (model.pure_translation(i)) {
      X_WJ.linear() = X_WP.linear();
    } else {
      X_WJ.linear().noalias() = X_WP.linear() * X_PJ.linear();
    }
    const int dof = model.dof(i);
    if (dof < 0) continue;
    const double qi = q[dof];
    if (model.kind(i) == StepKind::kPrismatic) {
      X_WJ.translation().noalias() += qi * (X_WJ.linear() * model.axis(i));
      continue;
    }
    // Revolute: X_WJ.linear() ← X_WJ.linear() * Rot(axis, qi).
    const double c = std::cos(qi);
    const double s = std::sin(qi);
    auto R = X_WJ.linear();  // a writable block of X_WJ
    switch (model.axis_kind(i)) {
      case AxisKind::kX:
        RotateColumns(R, 1, 2, c, s);
        break;
      case AxisKind::kY:
        RotateColumns(R, 2, 0, c, s);
        break;
      case AxisKind::kZ:
        RotateColumns(R, 0, 1, c, s);
        break;
      case AxisKind::kGeneral: {
        // Rodrigues: Rot(a, q) = c I + s [a]x + (1 − c) a aᵀ.
        const Eigen::Vector3d& a = model.axis(i);
        Eigen::Matrix3d rot = (1.0 - c) * a * a.transpose();
        rot.diagonal().array() += c;
        rot(0, 1) -= s * a.z();
        rot(1, 0) += s * a.z();
        rot(0, 2) += s * a.y();
        rot(2, 0) -= s * a.y();
        rot(1, 2) -= s * a.x();
        rot(2, 1) += s * a.x();
        const Eigen::Matrix3d R0 = R;
        R.noalias() = R0 * rot;
        break;
      }
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
  for (int i = step; i > 0; i = model.parent(i)) {
    const int dof = model.dof(i);
    if (dof < 0) continue;
    const Eigen::Isometry3d& X_WJ = data.X_W(i);
    const Eigen::Vector3d a = X_WJ.linear() * model.axis(i);
    if (model.kind(i) == StepKind::kPrismatic) {
      J.col(dof).template head<3>() = a;
    } else {
      J.col(dof).template head<3>() = a.cross(p_WQ - X_WJ.translation());
      if constexpr (kRows == 6) J.col(dof).template tail<3>() = a;
    }
  }
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
