#include "lab/planted_point_goal.h"

#include <cmath>
#include <stdexcept>

#include <Eigen/QR>
#include <Eigen/SVD>

#include "framework/kinematics.h"

namespace iklab {

PlantedPointGoal::PlantedPointGoal(const Model& model, const std::string& site,
                                   const Eigen::Vector3d& anchor,
                                   const Eigen::Matrix3Xd& directions,
                                   double weight)
    : SiteGoal(model, site, static_cast<int>(directions.cols()), weight,
               "planted point"),
      anchor_(anchor),
      directions_(directions) {
  if (!anchor.allFinite()) {
    throw std::invalid_argument("PlantedPointGoal: anchor must be finite");
  }
  const int m = static_cast<int>(directions.cols());
  if (m < 1 || m > 3) {
    throw std::invalid_argument(
        "PlantedPointGoal: directions must have 1 to 3 columns; got " +
        std::to_string(m));
  }
  const double off =
      (directions.transpose() * directions -
       Eigen::MatrixXd::Identity(m, m))
          .cwiseAbs()
          .maxCoeff();
  if (!(off <= 1e-9)) {
    throw std::invalid_argument(
        "PlantedPointGoal: directions must be orthonormal columns; UᵀU − I "
        "is off by " +
        std::to_string(off));
  }
}

void PlantedPointGoal::DoEvaluate(const Model& model, const Data& data,
                                  const Eigen::Ref<const Eigen::VectorXd>&,
                                  Eigen::Ref<Eigen::VectorXd> residual,
                                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  residual =
      directions_.transpose() * (anchor_ - SitePosition(model, data, site()));
  if (jacobian == nullptr) return;
  // r = Uᵀ (p_WA − p_WS(q))  ⇒  ∂r/∂q = −Uᵀ ∂p_WS/∂q = −Uᵀ J_v.
  Eigen::Matrix3Xd J_v(3, model.nq());
  SitePositionJacobian(model, data, site(), J_v);
  *jacobian = -directions_.transpose() * J_v;
}

GoalError PlantedPointGoal::Error(const Model& model, const Data& data) const {
  GoalError error;
  error.position =
      (directions_.transpose() * (anchor_ - SitePosition(model, data, site())))
          .norm();
  return error;
}

GoalErrorParts PlantedPointGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> PlantedPointGoal::Parameters() const {
  return {{"anchor_x", anchor_.x()},
          {"anchor_y", anchor_.y()},
          {"anchor_z", anchor_.z()}};
}

std::vector<Eigen::Matrix3Xd> PlantedPointDirections(
    const Model& model, const Data& data, const std::vector<int>& sites,
    double relative_threshold) {
  if (!(relative_threshold > 0.0 && relative_threshold < 1.0)) {
    throw std::invalid_argument(
        "PlantedPointDirections: relative_threshold must be in (0, 1); got " +
        std::to_string(relative_threshold));
  }
  const int nq = model.nq();
  std::vector<Eigen::Matrix3Xd> out;
  // Q: an orthonormal basis (nq × r) of the rows chosen so far.
  Eigen::MatrixXd Q(nq, 0);
  Eigen::Matrix3Xd J(3, nq);
  for (int site : sites) {
    if (site < 0 || site >= model.num_sites()) {
      throw std::invalid_argument("PlantedPointDirections: site index " +
                                  std::to_string(site) + " is not a site");
    }
    SitePositionJacobian(model, data, site, J);
    // What J adds: its rows with the chosen row space projected out.
    const Eigen::MatrixXd added = J - (J * Q) * Q.transpose();
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(added, Eigen::ComputeFullU);
    const double scale = Eigen::JacobiSVD<Eigen::MatrixXd>(J).singularValues()(0);
    int m = 0;
    while (m < 3 && svd.singularValues()(m) > relative_threshold * scale) ++m;
    out.push_back(svd.matrixU().leftCols(m));
    if (m == 0) continue;
    // Extend Q by the new rows Uᵀ J (their parts outside Q are independent).
    Eigen::MatrixXd rows(nq, Q.cols() + m);
    rows << Q, (svd.matrixU().leftCols(m).transpose() * added).transpose();
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(rows);
    Q = qr.householderQ() * Eigen::MatrixXd::Identity(nq, rows.cols());
  }
  return out;
}

}  // namespace iklab
