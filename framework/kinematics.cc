#include "framework/kinematics.h"

#include <algorithm>
#include <cmath>

#include "framework/internal/check.h"
#include "framework/internal/kinematics_kernels.h"

namespace iklab {

using internal::ThrowInvalidArgument;


void internal::SinCosArray(const double* x, int m, double* sin_x,
                           double* cos_x) {
  for (int i = 0; i < m; ++i) SinCosPolynomial(x[i], &sin_x[i], &cos_x[i]);
  for (int i = 0; i < m; ++i) SinCosOutOfRange(x[i], &sin_x[i], &cos_x[i]);
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
