#ifndef IKLAB_FRAMEWORK_CHAIN_REACH_H_
#define IKLAB_FRAMEWORK_CHAIN_REACH_H_

/// @file
/// How far a site can get from its chain's fixed base: the bound behind the
/// reachability maps' grid (reach/reach_map.h) and the out-of-reach
/// certificate of a solve (constraints/reach_certificate.h).
///
/// Let c be the origin of the first moving step on the path root → site: the
/// steps before it are fixed, so c is a point fixed in the world (on that
/// step's axis). Every later step adds its constant offset X_PJ, rotated,
/// and a prismatic step its travel q along a unit axis, so by the triangle
/// inequality
///
///     |p_WS(q) − c| ≤ R = Σ_{later steps} ‖t(X_PJ)‖ + Σ_{prismatic} max|q|
///                         + ‖t(X_FS)‖
///
/// for every q in the box (revolute steps only rotate, whatever their
/// limits). R is finite unless a prismatic coordinate on the path has
/// unbounded travel (a floating base, a rail without limits).

#include <string>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab {

/// Centre c and reach bound R of the chain root → site (file comment).
struct ChainReach {
  /// c: the origin of the first moving step on the path, fixed in the world;
  /// the site's own (fixed) position when no step on the path moves.
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  /// R ≥ |p_WS(q) − c| for every q in the box; 0 for a fixed site; +∞ when
  /// a prismatic coordinate on the path has unbounded travel.
  double radius = 0.0;
  /// False when no step on the path moves (the site is fixed at `centre`).
  bool moves = false;
  /// Empty when `radius` is finite; otherwise what makes it infinite, e.g.
  /// "prismatic coordinate 'root.tx' has unbounded travel".
  std::string unbounded;
};

/// Computes c and R of the chain root → `site` over the box [lower, upper]
/// (a problem's bounds, the model's limits, or ±∞ when limits are off);
/// only the prismatic coordinates on the path read the box.
/// @throws std::invalid_argument for a site index out of range or a box
///   whose size is not model.nq().
ChainReach ComputeChainReach(const Model& model, int site,
                             const Eigen::VectorXd& lower,
                             const Eigen::VectorXd& upper);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_CHAIN_REACH_H_
