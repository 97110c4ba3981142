#ifndef IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_RESTART_POOL_H_
#define IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_RESTART_POOL_H_

/// @file
/// Bounded LM's pool of restart points for arm problems: uniform random
/// points in the joint box, each with the site pose it puts the arm in, drawn
/// once and shared by every later solve of the same arm, box and seed.
///
/// Why: a random restart that starts from the lowest-cost of K uniform draws
/// succeeds more often the larger K is (on the Baxter from mid-limits, 23 %
/// of restarts at K = 1, 37 % at 16, 58 % at 256), but ranking a draw costs a
/// forward pass (~90 ns on a 7-DOF arm), so per solve only K ≈ 4 paid off.
/// With the site poses kept, ranking a point for a new target is a 9-row
/// residual from a stored pose: ~1.6 ns a point, ~0.2 µs for a pool of 128,
/// less than one iteration (docs/performance-log.md, "Bounded LM: a pool of
/// restart points, a lighter set-up, and quarter turns folded").
///
/// The pool is a pure function of (model, site, box, seed, size), so whether
/// a solve finds it cached or builds it does not change its answer; the cache
/// only saves the building (size forward passes).

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab::internal {

/// The interval a coordinate with bounds [lower, upper] is sampled from:
/// the bounds, except that an unbounded side falls back to [−π, π] around 0
/// (a revolute joint without limits), where a random start is meaningful; a
/// one-sided bound keeps its finite side.
std::pair<double, double> SamplingInterval(double lower, double upper);

/// Draws a uniform point of the box [lower, upper] (each coordinate from its
/// SamplingInterval) into *q, sized as lower.
void DrawUniform(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                 std::mt19937_64* rng, Eigen::VectorXd* q);

/// The points and their site poses. Point i is q(i) (coordinates); its site
/// pose is the site position p_WS then the first two columns of R_WS, 9
/// values, kept value by value across the points (for Costs).
class RestartPool {
 public:
  static constexpr int kPoseValues = 9;

  int size() const { return size_; }
  const double* q(int i) const { return &q_[std::size_t(i) * nq_]; }
  /// Pose value v (0..kPoseValues) of every point: size() doubles.
  const double* pose_values(int v) const {
    return &poses_[std::size_t(v) * size_];
  }

  /// costs[i] = Σ_b weights[b] ‖target_b − pose_b(i)‖² over the three
  /// 3-vector blocks b of the site pose (position, x and y columns): with
  /// the residual's squared row scales as weights, ‖R‖² at point i. A loop
  /// over the points, value by value (the poses are stored so), which the
  /// compiler vectorizes.
  void Costs(const double target[kPoseValues], const double weights[3],
             double* costs) const;

  /// The pool of `size` draws of DrawUniform from std::mt19937_64(seed), for
  /// the site `site` of `model` in the box [lower, upper]: the one cached for
  /// these arguments, or one built now with `site_pose(q, pose)` (which
  /// writes the kPoseValues values of q's site pose) and cached. Thread-safe;
  /// the cache keeps the last few pools and holds its models weakly.
  static std::shared_ptr<const RestartPool> Get(
      const std::shared_ptr<const Model>& model, int site,
      const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
      std::uint64_t seed, int size,
      const std::function<void(const double* q, double* pose)>& site_pose);

 private:
  int size_ = 0;
  Eigen::Index nq_ = 0;
  std::vector<double> q_;
  std::vector<double> poses_;
};

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_RESTART_POOL_H_
