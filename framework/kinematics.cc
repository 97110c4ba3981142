#include "framework/kinematics.h"

#include <algorithm>
#include <cmath>

#include "framework/internal/check.h"
#include "framework/internal/kinematics_kernels.h"

namespace iklab {

using internal::Add;
using internal::Combine;
using internal::MultiplyColumns;
using internal::Scale;
using internal::ThrowInvalidArgument;
using internal::Vec3;

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

namespace {

// [c0 c1 c2] ← [c0 c1 c2] · Rot(axis, angle) by the Rodrigues matrix, for
// every revolute step of a model with mimic joints. Not RotateColumns:
// called from a second function, GCC no longer inlines that one into the
// FK without mimics (+10 % instructions per FK of a 7-DOF arm, callgrind).
[[gnu::noinline]] void RotateByMatrix(const Eigen::Vector3d& a, double c,
                                      double s, Vec3* c0, Vec3* c1, Vec3* c2) {
  MultiplyColumns(internal::RodriguesMatrix(a, c, s), c0, c1, c2);
}

// The FK loop. kMimic: the model has mimic joints, whose steps turn by
// a·q + b (model.h), not by an entry of q. Without them (the common case)
// the loop is the code it was before mimic joints existed.
template <bool kMimic>
void ForwardKinematicsLoop(const Model& model, const double* q, Data* data) {
  const int n = model.num_steps();
  data->mutable_X_W(0) = model.X_PJ(0);
  // The last step's world pose, carried in registers (Vec3) from one step
  // to the next along a chain (parent(i) = i − 1, every step of a serial
  // arm), not stored and read back: R_WJ as its columns c0, c1, c2, and
  // p_WJ.
  const auto column = [](const Eigen::Isometry3d& X, int j) {
    return Vec3{X(0, j), X(1, j), X(2, j)};
  };
  Vec3 c0 = column(model.X_PJ(0), 0), c1 = column(model.X_PJ(0), 1),
      c2 = column(model.X_PJ(0), 2), p = column(model.X_PJ(0), 3);
  // sin/cos of coordinates [block_begin, block_end), computed a block ahead.
  constexpr int kBlock = 32;
  double sines[kBlock], cosines[kBlock];
  int block_begin = 0, block_end = 0;
  for (int i = 1; i < n; ++i) {
    const int parent = model.parent(i);
    if (parent != i - 1) {
      const Eigen::Isometry3d& X_WP = data->X_W(parent);
      c0 = column(X_WP, 0);
      c1 = column(X_WP, 1);
      c2 = column(X_WP, 2);
      p = column(X_WP, 3);
    }
    // X_WJ = X_WP * X_PJ * A(q).
    const Eigen::Isometry3d& X_PJ = model.X_PJ(i);
    p = Add(p, Combine(c0, X_PJ(0, 3), c1, X_PJ(1, 3), c2, X_PJ(2, 3)));
    if (!model.pure_translation(i)) {
      MultiplyColumns(X_PJ.linear(), &c0, &c1, &c2);
    }
    const int dof = model.dof(i);
    if (dof >= 0) {
      const Eigen::Vector3d& axis = model.axis(i);
      // A mimic step's joint value a·q + b: the same expression as
      // Model::FullConfiguration, so the same bits.
      const bool mimic = kMimic && (model.dof_scale(i) != 1.0 ||
                                    model.dof_offset(i) != 0.0);
      const double value =
          mimic ? model.dof_scale(i) * q[dof] + model.dof_offset(i) : q[dof];
      if (model.kind(i) == StepKind::kPrismatic) {
        p = Add(p, Scale(Combine(c0, axis.x(), c1, axis.y(), c2, axis.z()),
                         value));
      } else {
        double c, s;
        if (mimic) {
          internal::SinCosArray(&value, 1, &s, &c);
        } else {
          if (dof < block_begin || dof >= block_end) {
            block_begin = dof;
            block_end = std::min(dof + kBlock, model.nq());
            internal::SinCosArray(q + block_begin, block_end - block_begin,
                                  sines, cosines);
          }
          c = cosines[dof - block_begin];
          s = sines[dof - block_begin];
        }
        if constexpr (kMimic) {
          RotateByMatrix(axis, c, s, &c0, &c1, &c2);
        } else {
          internal::RotateColumns(model.axis_kind(i), axis, c, s, &c0, &c1,
                                  &c2);
        }
      }
    }
    Eigen::Isometry3d& X_WJ = data->mutable_X_W(i);
    X_WJ(0, 0) = c0.x, X_WJ(1, 0) = c0.y, X_WJ(2, 0) = c0.z;
    X_WJ(0, 1) = c1.x, X_WJ(1, 1) = c1.y, X_WJ(2, 1) = c1.z;
    X_WJ(0, 2) = c2.x, X_WJ(1, 2) = c2.y, X_WJ(2, 2) = c2.z;
    X_WJ(0, 3) = p.x, X_WJ(1, 3) = p.y, X_WJ(2, 3) = p.z;
  }
}

}  // namespace

void internal::ForwardKinematicsUnchecked(const Model& model, const double* q,
                                          Data* data) {
  if (model.has_mimics()) {
    ForwardKinematicsLoop<true>(model, q, data);
  } else {
    ForwardKinematicsLoop<false>(model, q, data);
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
