#include "solvers/optimization/internal/restart_pool.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

#include "solvers/optimization/internal/model_key.h"

namespace iklab::internal {

std::pair<double, double> SamplingInterval(double lower, double upper) {
  double lo = std::isfinite(lower) ? lower : -M_PI;
  double hi = std::isfinite(upper) ? upper : M_PI;
  if (lo > hi) std::swap(lo, hi);  // one-sided bound beyond ±π
  return {std::max(lo, lower), std::min(hi, upper)};
}

void DrawUniform(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                 std::mt19937_64* rng, Eigen::VectorXd* q) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index i = 0; i < q->size(); ++i) {
    const auto [lo, hi] = SamplingInterval(lower[i], upper[i]);
    (*q)[i] = lo + (hi - lo) * unit(*rng);
  }
}

void RestartPool::Costs(const double target[kPoseValues],
                        const double weights[3], double* costs) const {
  std::fill(costs, costs + size_, 0.0);
  for (int b = 0; b < 3; ++b) {
    if (weights[b] == 0.0) continue;
    const double* x = &poses_[std::size_t(3 * b) * size_];
    const double* y = x + size_;
    const double* z = y + size_;
    const double tx = target[3 * b], ty = target[3 * b + 1],
                 tz = target[3 * b + 2], weight = weights[b];
    for (int i = 0; i < size_; ++i) {
      const double dx = tx - x[i], dy = ty - y[i], dz = tz - z[i];
      costs[i] += weight * (dx * dx + dy * dy + dz * dz);
    }
  }
}

namespace {

struct CacheEntry {
  std::weak_ptr<const Model> model;
  int site = -1;
  Eigen::VectorXd lower, upper;
  std::uint64_t seed = 0;
  int size = 0;
  std::shared_ptr<const RestartPool> pool;

  bool Matches(const std::shared_ptr<const Model>& other_model, int other_site,
               const Eigen::VectorXd& other_lower,
               const Eigen::VectorXd& other_upper, std::uint64_t other_seed,
               int other_size) const {
    return IsModel(model, other_model) && site == other_site &&
           seed == other_seed && size == other_size &&
           lower.size() == other_lower.size() &&
           // Bounds may be ±∞ (respect_limits off): compare exactly, not by
           // a difference.
           (lower.array() == other_lower.array()).all() &&
           (upper.array() == other_upper.array()).all();
  }
};

// A handful of pools: a benchmark alternates at most a few arms per thread,
// and a pool of 128 points on a 7-DOF arm is ~16 KB.
constexpr std::size_t kCacheCapacity = 8;

}  // namespace

std::shared_ptr<const RestartPool> RestartPool::Get(
    const std::shared_ptr<const Model>& model, int site,
    const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
    std::uint64_t seed, int size,
    const std::function<void(const double* q, double* pose)>& site_pose) {
  static std::mutex mutex;
  static std::vector<CacheEntry> cache;
  static std::size_t next_victim = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const CacheEntry& entry : cache) {
      if (entry.Matches(model, site, lower, upper, seed, size)) {
        return entry.pool;
      }
    }
  }
  // Built outside the lock (two threads may both build the same pool; they
  // build equal ones).
  auto pool = std::make_shared<RestartPool>();
  pool->size_ = size;
  pool->nq_ = lower.size();
  pool->q_.resize(std::size_t(size) * pool->nq_);
  pool->poses_.resize(std::size_t(size) * kPoseValues);
  std::mt19937_64 rng(seed);
  Eigen::VectorXd q(lower.size());
  double pose[kPoseValues];
  for (int i = 0; i < size; ++i) {
    DrawUniform(lower, upper, &rng, &q);
    std::copy(q.data(), q.data() + q.size(), pool->q_.begin() + i * q.size());
    site_pose(q.data(), pose);
    for (int v = 0; v < kPoseValues; ++v) {
      pool->poses_[std::size_t(v) * size + i] = pose[v];
    }
  }
  CacheEntry entry{model, site, lower, upper, seed, size, pool};
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() < kCacheCapacity) {
    cache.push_back(std::move(entry));
  } else {
    cache[next_victim] = std::move(entry);
    next_victim = (next_victim + 1) % kCacheCapacity;
  }
  return pool;
}

}  // namespace iklab::internal
