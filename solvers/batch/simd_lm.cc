// Bounded LM across SIMD lanes (simd_lm.h). Compiled once per instruction
// set by Highway's foreach_target.h: the vector kernels and the driver in
// iklab::internal::HWY_NAMESPACE once per target; the plan, the per-lane
// scalar bookkeeping (LaneOps) and the public API once (an include guard,
// HWY_ONCE). Not part of a unity batch (solvers/CMakeLists.txt): the file
// includes itself.

#ifndef IKLAB_SOLVERS_BATCH_SIMD_LM_SHARED_
#define IKLAB_SOLVERS_BATCH_SIMD_LM_SHARED_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "constraints/internal/validation.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "hwy/aligned_allocator.h"
#include "solvers/batch/simd_lm.h"
#include "solvers/optimization/internal/restart_pool.h"
#include "solvers/optimization/internal/site_goal_kernel.h"

namespace iklab::internal {

constexpr int kMaxQ = SimdBoundedLm::kMaxCoordinates;
// Rows of the Gauss–Newton factor J̃ at most (pose: 3 position + 3
// orientation, site_goal_kernel.h EvaluateFactored).
constexpr int kMaxFactorRows = 6;

// The chain from the root to the site in the form the vector forward pass
// reads. Each moving joint's frame is carried turned by a constant Q_k with
// Q_k e_z = a_k (its axis), so every joint turns (or slides) about its local
// z: F_k = X_WJk Q_k, F_k = F_{k−1} C_k Rot_z(q) with the constant C_k =
// Q_{k−1}ᵀ X_PJ Q_k (fixed steps between folded into X_PJ). A rotation about
// z costs 4 products per column pair instead of a 3 × 3 product.
struct SimdLmPlan {
  struct Joint {
    double R[9];  // rotation of C_k, row-major
    double p[3];  // translation of C_k
    bool prismatic = false;
    int dof = 0;
  };
  int nq = 0;
  int num_joints = 0;
  Joint joints[kMaxQ];
  // The last joint's carried frame to the site.
  double R_LS[9];
  double p_LS[3];
  bool position = true, orientation = true;
  int factor_rows = 6;
  // Residual scales (site_goal_kernel.h SiteGoalSpec, √weight folded in)
  // and EvaluateFactored's s_z and inverses.
  double s_p = 1, s_x = 1, s_y = 1, s_z = 1;
  double inv_s_x = 1, inv_s_y = 1, inv_s_z = 1;
  std::vector<double> lower, upper, mid;
  std::vector<char> periodic;  // full-turn revolute coordinates
  BoundedLmOptions options;
  std::shared_ptr<const RestartPool> pool;
};

// Site pose at q by the plan's chain, in scalar code: p_WS then the columns
// x, y (RestartPool's 9 values), and z into z (if not null). For restart
// draws and the errors of answers that did not converge.
void ScalarSitePose(const SimdLmPlan& plan, const double* q, double* pose,
                    double* z);


// The scalar side of a lane: which item it solves and its restart state.
struct LaneState {
  int item = -1;
  int attempt = 0;      // attempts started
  bool polishing = false;
  int pool_tried = 0;
  std::vector<double> pool_costs;
  std::mt19937_64 rng;
  bool rng_seeded = false;
  std::vector<double> start;  // q0 projected onto the box
};


// The per-lane scalar steps the vector driver calls (one definition for
// every instruction set): they touch only lane `lane` of the arrays.
class LaneOps {
 public:
  LaneOps(const SimdLmPlan& plan, const double* targets, const double* q0,
          int count, const SimdLmOutput& output, int lanes)
      : plan_(plan), targets_(targets), q0_(q0), count_(count),
        output_(output), lanes_(lanes), states_(lanes) {
    const int n = plan.nq;
    for (LaneState& s : states_) {
      s.start.resize(n);
      if (plan.pool) s.pool_costs.resize(plan.pool->size());
    }
    scratch_.resize(n);
    best_scratch_.resize(n);
  }

  // Access to field entry i of lane `lane` of a work buffer laid out as
  // Work (base pointer and lanes).
  double& At(double* field, int i, int lane) const {
    return field[std::size_t(i) * lanes_ + lane];
  }

  int next_item = 0;

  // Loads the next item into the lane (attempt 0 at its start), or makes
  // it idle. Fields are the Work's.
  template <typename W>
  void Refill(W& w, int lane) {
    LaneState& s = states_[lane];
    const int n = plan_.nq;
    if (next_item >= count_) {
      s.item = -1;
      At(w.mode, 0, lane) = 0;  // idle
      for (int i = 0; i < n; ++i) At(w.tq, i, lane) = plan_.mid[i];
      return;
    }
    s.item = next_item++;
    s.attempt = 0;
    s.polishing = false;
    s.pool_tried = 0;
    s.rng_seeded = false;
    LoadTarget(w, lane, s.item);
    const double* q0 = q0_ + std::size_t(s.item) * n;
    for (int i = 0; i < n; ++i) {
      const double q = plan_.options.common.respect_limits
                           ? std::clamp(q0[i], plan_.lower[i], plan_.upper[i])
                           : q0[i];
      s.start[i] = q;
    }
    At(w.iters, 0, lane) = 0;
    At(w.best_cost, 0, lane) = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) At(w.best_q, i, lane) = s.start[i];
    pool_ranked_[lane] = false;
    StartAttempt(w, lane);
  }

  // Starts the lane's next attempt (bounded_lm_solver.cc Solve): q0, the
  // middle of the box, restart points; beyond max_attempts the polish of
  // the best pose without stall tests.
  template <typename W>
  void StartAttempt(W& w, int lane) {
    LaneState& s = states_[lane];
    const BoundedLmOptions& o = plan_.options;
    const int n = plan_.nq;
    At(w.mode, 0, lane) = 1;  // starting
    if (s.attempt >= o.max_attempts) {
      s.polishing = true;
      for (int i = 0; i < n; ++i) At(w.tq, i, lane) = At(w.best_q, i, lane);
      At(w.may_stall, 0, lane) = 0;
      At(w.first_test, 0, lane) = 0;
      return;
    }
    const int attempt = s.attempt++;
    At(w.may_stall, 0, lane) = 1;
    At(w.first_test, 0, lane) = s.attempt <= o.first_step_attempts ? 1 : 0;
    if (attempt == 0) {
      for (int i = 0; i < n; ++i) At(w.tq, i, lane) = s.start[i];
      return;
    }
    if (attempt == 1) {
      bool same = true;
      for (int i = 0; i < n; ++i) same = same && plan_.mid[i] == s.start[i];
      if (!same) {
        for (int i = 0; i < n; ++i) At(w.tq, i, lane) = plan_.mid[i];
        return;
      }
    }
    RestartPoint(w, lane);
  }

  // A lane's start point was evaluated: a non-finite cost ends the item;
  // within tolerance converges (the exact test only where the vector
  // pre-test passed, `maybe_within`); otherwise the attempt's state starts.
  template <typename W>
  void Started(W& w, int lane, bool maybe_within) {
    const double cost = At(w.cost, 0, lane);
    if (!std::isfinite(cost)) {
      Finish(w, lane, SolveStatus::kNumericalFailure, /*at_q=*/false);
      return;
    }
    if (maybe_within && ExactlyWithin(w, lane)) {
      Finish(w, lane, SolveStatus::kConverged, /*at_q=*/true);
      return;
    }
    const BoundedLmOptions& o = plan_.options;
    At(w.mode, 0, lane) = 2;  // iterating
    At(w.lambda, 0, lane) = o.initial_damping;
    At(w.mu, 0, lane) =
        std::max(o.initial_damping * std::sqrt(2.0 * cost), o.min_damping);
    const double norm = std::sqrt(2.0 * cost);
    At(w.initial_norm, 0, lane) = norm;
    At(w.stall_ref, 0, lane) = norm;
    At(w.since_ref, 0, lane) = 0;
    At(w.cost1, 0, lane) = cost;
    At(w.cost2, 0, lane) = cost;
    At(w.att_iters, 0, lane) = 0;
  }

  // The vector pre-test passed at an accepted point: the exact test.
  template <typename W>
  void MaybeConverged(W& w, int lane) {
    if (ExactlyWithin(w, lane)) {
      Finish(w, lane, SolveStatus::kConverged, /*at_q=*/true);
    }
  }

  template <typename W>
  void AttemptEnded(W& w, int lane) {
    if (states_[lane].polishing) {
      Finish(w, lane, SolveStatus::kLocalMinimum, /*at_q=*/false);
    } else {
      StartAttempt(w, lane);
    }
  }

  template <typename W>
  void OutOfIterations(W& w, int lane) {
    Finish(w, lane, SolveStatus::kMaxIterations, /*at_q=*/false);
  }

 private:
  template <typename W>
  void LoadTarget(W& w, int lane, int item) {
    double* t = &At(w.target, 0, lane);
    const std::size_t stride = lanes_;
    if (plan_.orientation) {
      const double* row = targets_ + std::size_t(item) * 7;
      const Eigen::Matrix3d R =
          Eigen::Quaterniond(row[3], row[4], row[5], row[6])
              .normalized()
              .toRotationMatrix();
      for (int r = 0; r < 3; ++r) {
        t[r * stride] = row[r];
        t[(3 + r) * stride] = R(r, 0);
        t[(6 + r) * stride] = R(r, 1);
      }
    } else {
      const double* row = targets_ + std::size_t(item) * 3;
      for (int r = 0; r < 3; ++r) {
        t[r * stride] = row[r];
        t[(3 + r) * stride] = r == 0 ? 1.0 : 0.0;
        t[(6 + r) * stride] = r == 1 ? 1.0 : 0.0;
      }
    }
  }

  // The goal's own error formulas at the pose the last evaluation left for
  // the lane (site_goal_kernel.cc WithinTolerance).
  template <typename W>
  bool ExactlyWithin(W& w, int lane) {
    GoalError e;
    Errors(&At(w.pose, 0, lane), &At(w.target, 0, lane), lanes_, &e);
    last_error_ = e;
    const SolveOptions& c = plan_.options.common;
    return e.position <= c.position_tolerance && e.angle <= c.angle_tolerance;
  }

  void Errors(const double* pose, const double* target, std::size_t stride,
              GoalError* e) const {
    *e = GoalError{};
    if (plan_.position) {
      Eigen::Vector3d diff;
      for (int r = 0; r < 3; ++r) diff[r] = target[r * stride] - pose[r * stride];
      e->position = diff.norm();
    }
    if (plan_.orientation) {
      Eigen::Matrix3d R_WG, R_WS;
      for (int r = 0; r < 3; ++r) {
        R_WG(r, 0) = target[(3 + r) * stride];
        R_WG(r, 1) = target[(6 + r) * stride];
        R_WS(r, 0) = pose[(3 + r) * stride];
        R_WS(r, 1) = pose[(6 + r) * stride];
      }
      R_WG.col(2) = R_WG.col(0).cross(R_WG.col(1));
      R_WS.col(2) = R_WS.col(0).cross(R_WS.col(1));
      e->angle = RotationAngle(R_WG, R_WS);
    }
  }

  // Writes the item's outcome: the lane's q (at_q: the converged point,
  // whose errors the exact test left) or its best pose, then refills.
  template <typename W>
  void Finish(W& w, int lane, SolveStatus status, bool at_q) {
    LaneState& s = states_[lane];
    const int n = plan_.nq;
    const int item = s.item;
    double* q_out = output_.q + std::size_t(item) * n;
    GoalError e = last_error_;
    if (at_q) {
      for (int i = 0; i < n; ++i) q_out[i] = At(w.q, i, lane);
    } else {
      for (int i = 0; i < n; ++i) q_out[i] = At(w.best_q, i, lane);
      double pose[9], z[3];
      ScalarSitePose(plan_, q_out, pose, z);
      double target[9];
      for (int v = 0; v < 9; ++v) target[v] = At(w.target, v, lane);
      Errors(pose, target, 1, &e);
      const SolveOptions& c = plan_.options.common;
      if (e.position <= c.position_tolerance && e.angle <= c.angle_tolerance) {
        status = SolveStatus::kConverged;  // SolveScope rule 1
      }
    }
    output_.status[item] = status;
    if (output_.position_error) output_.position_error[item] = e.position;
    if (output_.angle_error) output_.angle_error[item] = e.angle;
    if (output_.iterations) {
      output_.iterations[item] = static_cast<int>(At(w.iters, 0, lane));
    }
    if (output_.attempts) output_.attempts[item] = s.attempt;
    Refill(w, lane);
  }

  // bounded_lm_solver.cc RestartPoint: the pool's lowest-cost point not yet
  // tried, else the lowest-cost of restart_candidates fresh draws.
  template <typename W>
  void RestartPoint(W& w, int lane) {
    LaneState& s = states_[lane];
    const BoundedLmOptions& o = plan_.options;
    const int n = plan_.nq;
    if (plan_.pool && s.pool_tried < o.restart_pool) {
      if (!pool_ranked_[lane]) {
        double target[9];
        for (int v = 0; v < 9; ++v) target[v] = At(w.target, v, lane);
        const double weights[3] = {
            plan_.position ? plan_.s_p * plan_.s_p : 0.0,
            plan_.orientation ? plan_.s_x * plan_.s_x : 0.0,
            plan_.orientation ? plan_.s_y * plan_.s_y : 0.0};
        W::PoolCosts(*plan_.pool, target, weights, s.pool_costs.data());
        pool_ranked_[lane] = true;
      }
      const int best = W::ArgMin(s.pool_costs.data(), plan_.pool->size());
      s.pool_costs[best] = std::numeric_limits<double>::infinity();
      ++s.pool_tried;
      const double* q = plan_.pool->q(best);
      for (int i = 0; i < n; ++i) At(w.tq, i, lane) = q[i];
      return;
    }
    if (!s.rng_seeded) {
      s.rng.seed(o.seed);
      if (plan_.pool) s.rng.discard(std::uint64_t(plan_.pool->size()) * n);
      s.rng_seeded = true;
    }
    double target[9];
    for (int v = 0; v < 9; ++v) target[v] = At(w.target, v, lane);
    double lowest = std::numeric_limits<double>::infinity();
    for (int c = 0; c < o.restart_candidates; ++c) {
      Draw(&s.rng, scratch_.data());
      const double cost =
          o.restart_candidates == 1 ? 0.0 : Cost(scratch_.data(), target);
      if (c == 0 || cost < lowest) {
        lowest = cost;
        best_scratch_ = scratch_;
      }
    }
    for (int i = 0; i < n; ++i) At(w.tq, i, lane) = best_scratch_[i];
  }

  void Draw(std::mt19937_64* rng, double* q) const {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int i = 0; i < plan_.nq; ++i) {
      const auto [lo, hi] = SamplingInterval(plan_.lower[i], plan_.upper[i]);
      q[i] = lo + (hi - lo) * unit(*rng);
    }
  }

  double Cost(const double* q, const double* target) const {
    double pose[9], z[3];
    ScalarSitePose(plan_, q, pose, z);
    double sum = 0.0;
    for (int b = 0; b < 3; ++b) {
      const double scale = b == 0 ? (plan_.position ? plan_.s_p : 0.0)
                           : !plan_.orientation ? 0.0
                           : b == 1             ? plan_.s_x
                                                : plan_.s_y;
      for (int r = 0; r < 3; ++r) {
        const double e = scale * (target[3 * b + r] - pose[3 * b + r]);
        sum += e * e;
      }
    }
    return 0.5 * sum;
  }

  const SimdLmPlan& plan_;
  const double* targets_;
  const double* q0_;
  int count_;
  SimdLmOutput output_;
  int lanes_;
  std::vector<LaneState> states_;
  bool pool_ranked_[64] = {};
  std::vector<double> scratch_, best_scratch_;
  GoalError last_error_;
};


}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_BATCH_SIMD_LM_SHARED_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "solvers/batch/simd_lm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace iklab::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<double>;
using V = hn::Vec<D>;

// Lane-array workspace: every field is `lanes` doubles, aligned; one buffer
// allocated per Solve call.
class Work {
 public:
  Work(int lanes, int nq) : lanes_(lanes), nq_(nq) {
    std::size_t n = 0;
    const auto take = [&](double** field, int count) {
      *field = reinterpret_cast<double*>(n);
      n += std::size_t(count) * lanes;
    };
    take(&q, nq); take(&tq, nq); take(&step, nq); take(&best_q, nq);
    take(&Jt, nq * kMaxFactorRows); take(&tJt, nq * kMaxFactorRows);
    take(&rt, kMaxFactorRows); take(&trt, kMaxFactorRows);
    take(&cost, 1); take(&tcost, 1); take(&lambda, 1); take(&mu, 1);
    take(&initial_norm, 1); take(&stall_ref, 1); take(&since_ref, 1);
    take(&cost1, 1); take(&cost2, 1); take(&att_iters, 1); take(&iters, 1);
    take(&best_cost, 1); take(&mode, 1); take(&may_stall, 1);
    take(&first_test, 1); take(&predicted, 1); take(&failed, 1);
    take(&event, 1); take(&any_held, 1); take(&took, 1);
    take(&target, 9); take(&pose, 9); take(&moved, 1);
    buffer_ = hwy::AllocateAligned<double>(n);
    std::fill(buffer_.get(), buffer_.get() + n, 0.0);
    for (double** field :
         {&q, &tq, &step, &best_q, &Jt, &tJt, &rt, &trt, &cost, &tcost, &lambda, &mu, &initial_norm, &stall_ref,
          &since_ref, &cost1, &cost2, &att_iters, &iters, &best_cost, &mode,
          &may_stall, &first_test, &predicted, &failed, &event, &any_held,
          &took, &target, &pose, &moved}) {
      *field = buffer_.get() + reinterpret_cast<std::size_t>(*field);
    }
  }
  int lanes() const { return lanes_; }

  // RestartPool::Costs across vector lanes (the same sums, in the same
  // order per point).
  static void PoolCosts(const RestartPool& pool, const double* target,
                        const double* weights, double* costs) {
    const D d;
    const int size = pool.size();
    const int N = static_cast<int>(hn::Lanes(d));
    int i = 0;
    for (; i + N <= size; i += N) {
      V sum = hn::Zero(d);
      for (int b = 0; b < 3; ++b) {
        if (weights[b] == 0.0) continue;
        V block = hn::Zero(d);
        for (int r = 0; r < 3; ++r) {
          const V e = hn::Sub(hn::Set(d, target[3 * b + r]),
                              hn::LoadU(d, pool.pose_values(3 * b + r) + i));
          block = r == 0 ? hn::Mul(e, e) : hn::MulAdd(e, e, block);
        }
        sum = hn::MulAdd(hn::Set(d, weights[b]), block, sum);
      }
      hn::StoreU(sum, d, costs + i);
    }
    for (; i < size; ++i) {
      double sum = 0.0;
      for (int b = 0; b < 3; ++b) {
        if (weights[b] == 0.0) continue;
        double block = 0.0;
        for (int r = 0; r < 3; ++r) {
          const double e = target[3 * b + r] - pool.pose_values(3 * b + r)[i];
          block = r == 0 ? e * e : std::fma(e, e, block);
        }
        sum = std::fma(weights[b], block, sum);
      }
      costs[i] = sum;
    }
  }

  // The index of the first smallest of costs[0, size) (std::min_element's),
  // by a vector minimum and a search for it.
  static int ArgMin(const double* costs, int size) {
    const D d;
    const int N = static_cast<int>(hn::Lanes(d));
    double lowest = std::numeric_limits<double>::infinity();
    bool nan = false;
    int i = 0;
    if (size >= N) {
      V m = hn::LoadU(d, costs);
      auto any_nan = hn::IsNaN(m);
      for (i = N; i + N <= size; i += N) {
        const V c = hn::LoadU(d, costs + i);
        any_nan = hn::Or(any_nan, hn::IsNaN(c));
        m = hn::Min(m, c);
      }
      nan = !hn::AllFalse(d, any_nan);
      lowest = hn::GetLane(hn::MinOfLanes(d, m));
    }
    for (; i < size; ++i) {
      nan = nan || std::isnan(costs[i]);
      lowest = std::min(lowest, costs[i]);
    }
    if (!nan) {
      const V target = hn::Set(d, lowest);
      for (i = 0; i + N <= size; i += N) {
        const intptr_t first =
            hn::FindFirstTrue(d, hn::Eq(hn::LoadU(d, costs + i), target));
        if (first >= 0) return i + static_cast<int>(first);
      }
      for (; i < size; ++i) {
        if (costs[i] == lowest) return i;
      }
    }
    // NaN costs: the scalar rule.
    return static_cast<int>(std::min_element(costs, costs + size) - costs);
  }

  // Coordinate / entry i of a field with several entries.
  double* at(double* field, int i) const { return field + std::size_t(i) * lanes_; }

  // Coordinates: current, trial (also the start of an attempt), step,
  // best.
  double *q, *tq, *step, *best_q;
  // J̃ᵀ (nq × kMaxFactorRows, entry (i, r) at i·kMaxFactorRows + r) and r̃
  // at q and at tq. Update does not copy the trial's into them: it sets
  // `took` (1 where the lane took the evaluation at tq), and ComputeSteps,
  // which loads both anyway, keeps the taken ones before the next
  // evaluation overwrites tJt and trt.
  double *Jt, *tJt, *rt, *trt, *took;
  // Per-lane scalars of the attempt (bounded_lm_solver.cc AttemptState).
  double *cost, *tcost, *lambda, *mu, *initial_norm, *stall_ref, *since_ref,
      *cost1, *cost2, *att_iters, *iters, *best_cost;
  // Lane mode (0 idle, 1 starting an attempt at tq, 2 iterating), stall
  // tests on, first-step test on, predicted reduction, factorization failed,
  // event code after an update, a coordinate held this iteration, max |Δ|.
  double *mode, *may_stall, *first_test, *predicted, *failed, *event,
      *any_held;
  // Target (p_WT, x_g, y_g) and site pose at tq (p_WS, x, y).
  double *target, *pose, *moved;

 private:
  int lanes_, nq_;
  hwy::AlignedFreeUniquePtr<double[]> buffer_;
};

enum Mode { kIdle = 0, kStarting = 1, kIterating = 2 };
// Event codes of a lane after an update (Work::event).
enum Event {
  kNone = 0,
  kStarted = 1,        // a start point was evaluated
  kMaybeConverged = 2, // the vector pre-test passed at the accepted point
  kAttemptEnded = 3,   // stalled, stationary or λ beyond max_damping
  kStartedWithin = 4,  // kStarted, and the vector pre-test passed
};

HWY_INLINE V Ld(const double* p) { return hn::Load(D(), p); }
HWY_INLINE void St(V v, double* p) { hn::Store(v, D(), p); }

// c[0] + c[1] z + … + c[8] z⁸ by Estrin's scheme (kinematics_kernels.h
// Estrin8), lane-wise.
HWY_INLINE V Estrin8(const double* c, V z, V z2, V z4, V z8) {
  const D d;
  const V c01 = hn::MulAdd(z, hn::Set(d, c[1]), hn::Set(d, c[0]));
  const V c23 = hn::MulAdd(z, hn::Set(d, c[3]), hn::Set(d, c[2]));
  const V c45 = hn::MulAdd(z, hn::Set(d, c[5]), hn::Set(d, c[4]));
  const V c67 = hn::MulAdd(z, hn::Set(d, c[7]), hn::Set(d, c[6]));
  const V low = hn::MulAdd(z2, c23, c01), high = hn::MulAdd(z2, c67, c45);
  return hn::MulAdd(z8, hn::Set(d, c[8]), hn::MulAdd(z4, high, low));
}

// sin x and cos x from one range reduction: kinematics_kernels.h
// SinCosPolynomial lane-wise (x = kπ + r by Cody–Waite's three parts of π,
// sin r = r P(r²), cos r = Q(r²), both negated for odd k), where Highway's
// Sin and Cos reduce the argument twice. Lanes beyond |x| = 1e5 (or NaN)
// take Highway's Sin and Cos for the whole vector.
HWY_INLINE void SinCos(V x, V* sin_x, V* cos_x) {
  namespace k = sincos_constants;
  const D d;
  if (HWY_UNLIKELY(!hn::AllTrue(
          d, hn::Le(hn::Abs(x), hn::Set(d, k::kFastSinCosLimit))))) {
    *sin_x = hn::Sin(d, x);
    *cos_x = hn::Cos(d, x);
    return;
  }
  const V shifted = hn::MulAdd(x, hn::Set(d, k::kOneOverPi),
                               hn::Set(d, k::kRoundingShift));
  const V turns = hn::Sub(shifted, hn::Set(d, k::kRoundingShift));
  V r = hn::NegMulAdd(turns, hn::Set(d, k::kPiParts[0]), x);
  r = hn::NegMulAdd(turns, hn::Set(d, k::kPiParts[1]), r);
  r = hn::NegMulAdd(turns, hn::Set(d, k::kPiParts[2]), r);
  // (−1)^k as the sign bit: the lowest mantissa bit of `shifted` is k's
  // parity.
  const hn::RebindToUnsigned<D> du;
  const auto sign = hn::ShiftLeft<63>(hn::BitCast(du, shifted));
  const V z = hn::Mul(r, r), z2 = hn::Mul(z, z), z4 = hn::Mul(z2, z2),
          z8 = hn::Mul(z4, z4);
  const V s = hn::Mul(r, Estrin8(k::kSinCoefficients, z, z2, z4, z8));
  const V c = Estrin8(k::kCosCoefficients, z, z2, z4, z8);
  *sin_x = hn::BitCast(d, hn::Xor(hn::BitCast(du, s), sign));
  *cos_x = hn::BitCast(d, hn::Xor(hn::BitCast(du, c), sign));
}

// Forward pass, residual and Gauss–Newton factor at w.tq for all lanes:
// writes w.tcost, w.tJt, w.trt and w.pose (site_goal_kernel.h Evaluate /
// EvaluateFactored, the same formulas).
HWY_ATTR void Evaluate(const SimdLmPlan& plan, Work& w, int offset) {
  const D d;
  const V zero = hn::Zero(d), one = hn::Set(d, 1.0);
  V R[9] = {one, zero, zero, zero, one, zero, zero, zero, one};
  V p[3] = {zero, zero, zero};
  V axis[kMaxQ][3], origin[kMaxQ][3];
  for (int k = 0; k < plan.num_joints; ++k) {
    const SimdLmPlan::Joint& joint = plan.joints[k];
    const V qk = Ld(w.at(w.tq, joint.dof) + offset);
    // p ← p + R p_C; R ← R R_C.
    for (int r = 0; r < 3; ++r) {
      p[r] = hn::MulAdd(R[3 * r], hn::Set(d, joint.p[0]), p[r]);
      p[r] = hn::MulAdd(R[3 * r + 1], hn::Set(d, joint.p[1]), p[r]);
      p[r] = hn::MulAdd(R[3 * r + 2], hn::Set(d, joint.p[2]), p[r]);
    }
    V Rn[9];
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        V s = hn::Mul(R[3 * r], hn::Set(d, joint.R[c]));
        s = hn::MulAdd(R[3 * r + 1], hn::Set(d, joint.R[3 + c]), s);
        Rn[3 * r + c] = hn::MulAdd(R[3 * r + 2], hn::Set(d, joint.R[6 + c]), s);
      }
    }
    if (joint.prismatic) {
      for (int r = 0; r < 3; ++r) p[r] = hn::MulAdd(Rn[3 * r + 2], qk, p[r]);
    } else {
      V s, c;
      SinCos(qk, &s, &c);
      for (int r = 0; r < 3; ++r) {
        const V c0 = Rn[3 * r], c1 = Rn[3 * r + 1];
        Rn[3 * r] = hn::MulAdd(c, c0, hn::Mul(s, c1));
        Rn[3 * r + 1] = hn::NegMulAdd(s, c0, hn::Mul(c, c1));
      }
    }
    for (int i = 0; i < 9; ++i) R[i] = Rn[i];
    for (int r = 0; r < 3; ++r) {
      axis[k][r] = R[3 * r + 2];
      origin[k][r] = p[r];
    }
  }
  // Site pose.
  V pS[3], xS[3], yS[3], zS[3];
  for (int r = 0; r < 3; ++r) {
    V s = p[r];
    for (int c = 0; c < 3; ++c) {
      s = hn::MulAdd(R[3 * r + c], hn::Set(d, plan.p_LS[c]), s);
    }
    pS[r] = s;
    V cols[3];
    for (int col = 0; col < 3; ++col) {
      V t = hn::Mul(R[3 * r], hn::Set(d, plan.R_LS[col]));
      t = hn::MulAdd(R[3 * r + 1], hn::Set(d, plan.R_LS[3 + col]), t);
      cols[col] = hn::MulAdd(R[3 * r + 2], hn::Set(d, plan.R_LS[6 + col]), t);
    }
    xS[r] = cols[0];
    yS[r] = cols[1];
    zS[r] = cols[2];
  }
  for (int r = 0; r < 3; ++r) {
    St(pS[r], w.at(w.pose, r) + offset);
    St(xS[r], w.at(w.pose, 3 + r) + offset);
    St(yS[r], w.at(w.pose, 6 + r) + offset);
  }
  // Residual (target − current, scaled) and cost.
  V sum = zero;
  V rp[3], xg[3], yg[3];
  for (int r = 0; r < 3; ++r) {
    xg[r] = Ld(w.at(w.target, 3 + r) + offset);
    yg[r] = Ld(w.at(w.target, 6 + r) + offset);
  }
  int row = 0;
  const int F = kMaxFactorRows;
  if (plan.position) {
    const V s_p = hn::Set(d, plan.s_p);
    for (int r = 0; r < 3; ++r) {
      rp[r] = hn::Mul(s_p, hn::Sub(Ld(w.at(w.target, r) + offset), pS[r]));
      sum = hn::MulAdd(rp[r], rp[r], sum);
      St(rp[r], w.at(w.trt, r) + offset);  // r̃'s position rows are R's
    }
    row = 3;
  }
  if (plan.orientation) {
    const V s_x = hn::Set(d, plan.s_x), s_y = hn::Set(d, plan.s_y);
    for (int r = 0; r < 3; ++r) {
      const V ex = hn::Mul(s_x, hn::Sub(xg[r], xS[r]));
      const V ey = hn::Mul(s_y, hn::Sub(yg[r], yS[r]));
      sum = hn::MulAdd(ex, ex, sum);
      sum = hn::MulAdd(ey, ey, sum);
    }
    // h = s_x² x_g × x + s_y² y_g × y; r̃ = D⁻¹ [x y z]ᵀ h.
    const V wx = hn::Set(d, plan.s_x * plan.s_x);
    const V wy = hn::Set(d, plan.s_y * plan.s_y);
    V h[3];
    for (int r = 0; r < 3; ++r) {
      const int a = (r + 1) % 3, b = (r + 2) % 3;
      const V cx = hn::NegMulAdd(xg[b], xS[a], hn::Mul(xg[a], xS[b]));
      const V cy = hn::NegMulAdd(yg[b], yS[a], hn::Mul(yg[a], yS[b]));
      h[r] = hn::MulAdd(wx, cx, hn::Mul(wy, cy));
    }
    const auto dot = [&](const V* u) {
      return hn::MulAdd(u[0], h[0], hn::MulAdd(u[1], h[1], hn::Mul(u[2], h[2])));
    };
    St(hn::Mul(dot(xS), hn::Set(d, plan.inv_s_y)), w.at(w.trt, row) + offset);
    St(hn::Mul(dot(yS), hn::Set(d, plan.inv_s_x)),
       w.at(w.trt, row + 1) + offset);
    St(hn::Mul(dot(zS), hn::Set(d, plan.inv_s_z)),
       w.at(w.trt, row + 2) + offset);
  }
  St(hn::Mul(hn::Set(d, 0.5), sum), w.tcost + offset);
  // J̃ᵀ: per joint, −s_p v (v = a × (p_S − o), or a) and s_y x·a, s_x y·a,
  // s_z z·a (0 for a prismatic joint). Coordinates off the chain stay 0.
  const V neg_s_p = hn::Set(d, -plan.s_p);
  const V s_x = hn::Set(d, plan.s_x), s_y = hn::Set(d, plan.s_y),
          s_z = hn::Set(d, plan.s_z);
  for (int k = 0; k < plan.num_joints; ++k) {
    const SimdLmPlan::Joint& joint = plan.joints[k];
    double* out = w.at(w.tJt, joint.dof * F) + offset;
    const V* a = axis[k];
    int r0 = 0;
    if (plan.position) {
      V v[3];
      if (joint.prismatic) {
        v[0] = a[0]; v[1] = a[1]; v[2] = a[2];
      } else {
        const V arm[3] = {hn::Sub(pS[0], origin[k][0]),
                          hn::Sub(pS[1], origin[k][1]),
                          hn::Sub(pS[2], origin[k][2])};
        v[0] = hn::NegMulAdd(a[2], arm[1], hn::Mul(a[1], arm[2]));
        v[1] = hn::NegMulAdd(a[0], arm[2], hn::Mul(a[2], arm[0]));
        v[2] = hn::NegMulAdd(a[1], arm[0], hn::Mul(a[0], arm[1]));
      }
      for (int r = 0; r < 3; ++r) St(hn::Mul(neg_s_p, v[r]), out + r * w.lanes());
      r0 = 3;
    }
    if (plan.orientation) {
      const auto dot = [&](const V* u) {
        return hn::MulAdd(u[0], a[0], hn::MulAdd(u[1], a[1], hn::Mul(u[2], a[2])));
      };
      if (joint.prismatic) {
        for (int r = 0; r < 3; ++r) St(zero, out + (r0 + r) * w.lanes());
      } else {
        St(hn::Mul(s_y, dot(xS)), out + r0 * w.lanes());
        St(hn::Mul(s_x, dot(yS)), out + (r0 + 1) * w.lanes());
        St(hn::Mul(s_z, dot(zS)), out + (r0 + 2) * w.lanes());
      }
    }
  }
}

// The step of every iterating lane (bounded_lm_solver.cc ComputeStep,
// HoldOutwardSteps, then TakeProjectedStep and PredictedReduction), kept in
// registers: JᵀJ = J̃ᵀJ̃ and g = J̃ᵀr̃ at w.q; the active-set loop solves
// (JᵀJ + μI) Δ = −g on the free coordinates (held rows and columns those of
// I) by an LDLᵀ factorization (Golub & Van Loan, Matrix Computations, 4th
// ed., Alg. 4.1.2: no square roots, one division per column, which is the
// latency chain of a vector lane) and holds the free coordinates whose step
// leaves the box (or turns a full-turn coordinate by ∓2π); a lane stays in
// the loop while it holds a new coordinate and has not failed. Then w.tq the
// projected trial point, w.step = tq − q, w.predicted, w.moved; w.failed for
// lanes whose system did not factor or whose step is not finite. kN and
// kRows fix nq and the factor's rows at compile time (the loops unroll and
// the matrices stay in registers); 0 reads them from the plan.
template <int kN, int kRows>
HWY_ATTR void ComputeSteps(const SimdLmPlan& plan, Work& w, int offset) {
  const D d;
  const int n = kN > 0 ? kN : plan.nq;
  const int rows = kRows > 0 ? kRows : plan.factor_rows;
  constexpr int F = kMaxFactorRows;
  const V zero = hn::Zero(d), one = hn::Set(d, 1.0);
  const auto iterating = hn::Eq(Ld(w.mode + offset), hn::Set(d, kIterating));
  using M = hn::Mask<D>;
  V J[kMaxQ][F], r[F], q[kMaxQ], g[kMaxQ], step[kMaxQ];
  V A[kMaxQ][kMaxQ];  // lower triangle of J̃ᵀJ̃
  // J̃ᵀ and r̃ at q: the last evaluation's where the lane took it (Work's
  // `took`), stored back for the iterations to come.
  const M took = hn::Gt(Ld(w.took + offset), zero);
  const bool any_took = !hn::AllFalse(d, took);
  const auto current = [&](double* at_q, const double* at_trial) {
    if (!any_took) return Ld(at_q);
    const V v = hn::IfThenElse(took, Ld(at_trial), Ld(at_q));
    St(v, at_q);
    return v;
  };
  for (int rr = 0; rr < rows; ++rr) {
    r[rr] = current(w.at(w.rt, rr) + offset, w.at(w.trt, rr) + offset);
  }
  for (int i = 0; i < n; ++i) {
    q[i] = Ld(w.at(w.q, i) + offset);
    step[i] = zero;
    V gi = zero;
    for (int rr = 0; rr < rows; ++rr) {
      J[i][rr] = current(w.at(w.Jt, i * F + rr) + offset,
                         w.at(w.tJt, i * F + rr) + offset);
      gi = hn::MulAdd(J[i][rr], r[rr], gi);
    }
    g[i] = gi;
    for (int j = 0; j <= i; ++j) {
      V s = hn::Mul(J[i][0], J[j][0]);
      for (int rr = 1; rr < rows; ++rr) s = hn::MulAdd(J[i][rr], J[j][rr], s);
      A[i][j] = s;
    }
  }
  const V mu = Ld(w.mu + offset);
  const V two_pi = hn::Set(d, 2.0 * M_PI);
  const M none = hn::Lt(one, zero);
  M held[kMaxQ];
  for (int i = 0; i < n; ++i) held[i] = none;
  M pending = iterating, failed = none, any_held = none;
  // LDLᵀ by rows (Golub & Van Loan, Alg. 4.1.2 in its row-oriented form):
  // L unit lower with Lw = L_ij d_j beside it, inv_d = 1/d, y = L⁻¹(−g).
  // Row i depends only on A, μ and which of coordinates 0 … i are held, so a
  // pass after new holds redoes the rows from the first newly held
  // coordinate (over all lanes), `first`, and keeps the rows above it.
  V L[kMaxQ][kMaxQ], Lw[kMaxQ][kMaxQ], inv_d[kMaxQ], y[kMaxQ];
  int first = 0;
  for (int pass = 0; pass <= n; ++pass) {
    // Lanes still pending factored rows < first before (else they failed
    // and left the loop): only the new rows decide `ok`.
    M ok = hn::Not(none);
    for (int i = first; i < n; ++i) {
      for (int j = 0; j < i; ++j) {
        V s = A[i][j];
        for (int k = 0; k < j; ++k) s = hn::NegMulAdd(L[i][k], Lw[j][k], s);
        s = hn::IfThenZeroElse(hn::Or(held[j], held[i]), s);
        Lw[i][j] = s;
        L[i][j] = hn::Mul(s, inv_d[j]);
      }
      // d_i = a_ii + μ − Σ_k L_ik² d_k, the last term as Lw_i,i−1² / d_i−1:
      // the other terms wait not for the division of row i − 1, which is
      // the latency chain.
      V di = hn::Add(A[i][i], mu);
      for (int k = 0; k + 1 < i; ++k) di = hn::NegMulAdd(L[i][k], Lw[i][k], di);
      if (i > 0) {
        di = hn::NegMulAdd(hn::Mul(Lw[i][i - 1], Lw[i][i - 1]), inv_d[i - 1], di);
      }
      di = hn::IfThenElse(held[i], one, di);
      const M positive = hn::Gt(di, zero);
      ok = hn::And(ok, positive);
      inv_d[i] = hn::Div(one, hn::IfThenElse(positive, di, one));
      // L y = −g (0 on held coordinates).
      V yi = hn::IfThenZeroElse(held[i], hn::Neg(g[i]));
      for (int k = 0; k < i; ++k) yi = hn::NegMulAdd(L[i][k], y[k], yi);
      y[i] = yi;
    }
    // D z = y, Lᵀ Δ = z.
    V dx[kMaxQ];
    for (int i = n - 1; i >= 0; --i) {
      V s = hn::Mul(y[i], inv_d[i]);
      for (int k = i + 1; k < n; ++k) s = hn::NegMulAdd(L[k][i], dx[k], s);
      dx[i] = s;
    }
    for (int i = 0; i < n; ++i) step[i] = hn::IfThenElse(pending, dx[i], step[i]);
    failed = hn::Or(failed, hn::AndNot(ok, pending));
    // Hold the outward steps (bounded_lm_solver.cc HoldOutwardSteps).
    const M active = hn::AndNot(failed, pending);
    M changed = none;
    first = n;
    for (int i = 0; i < n; ++i) {
      const M below = hn::And(hn::Le(q[i], hn::Set(d, plan.lower[i])),
                              hn::Lt(step[i], zero));
      const M above = hn::And(hn::Ge(q[i], hn::Set(d, plan.upper[i])),
                              hn::Gt(step[i], zero));
      const M out = hn::And(hn::AndNot(held[i], active), hn::Or(below, above));
      if (plan.periodic[i]) {
        const V turned = hn::IfThenElse(below, hn::Add(q[i], two_pi),
                                        hn::Sub(q[i], two_pi));
        q[i] = hn::IfThenElse(out, turned, q[i]);
      } else {
        held[i] = hn::Or(held[i], out);
        changed = hn::Or(changed, out);
        if (first == n && !hn::AllFalse(d, out)) first = i;
      }
    }
    pending = changed;
    any_held = hn::Or(any_held, changed);
    if (hn::AllFalse(d, changed)) break;
  }
  M finite = hn::Not(none);
  for (int i = 0; i < n; ++i) {
    finite = hn::And(finite, hn::Lt(hn::Abs(step[i]), hn::Set(d, HUGE_VAL)));
  }
  failed = hn::And(iterating, hn::Or(failed, hn::Not(finite)));
  St(hn::IfThenElseZero(failed, one), w.failed + offset);
  St(hn::IfThenElseZero(any_held, one), w.any_held + offset);
  const M stepping = hn::AndNot(failed, iterating);
  // Projected trial point and the predicted reduction −gᵀd − ½‖J̃d‖².
  V jd[F];
  for (int rr = 0; rr < rows; ++rr) jd[rr] = zero;
  V gd = zero, moved = zero;
  for (int i = 0; i < n; ++i) {
    St(q[i], w.at(w.q, i) + offset);  // full turns of periodic coordinates
    const V trial = hn::Min(hn::Max(hn::Add(q[i], step[i]),
                                    hn::Set(d, plan.lower[i])),
                            hn::Set(d, plan.upper[i]));
    const V taken = hn::IfThenElseZero(stepping, hn::Sub(trial, q[i]));
    double* tq = w.at(w.tq, i) + offset;
    St(hn::IfThenElse(stepping, trial, Ld(tq)), tq);
    St(taken, w.at(w.step, i) + offset);
    gd = hn::MulAdd(g[i], taken, gd);
    moved = hn::Max(moved, hn::Abs(taken));
    for (int rr = 0; rr < rows; ++rr) jd[rr] = hn::MulAdd(J[i][rr], taken, jd[rr]);
  }
  V jj = zero;
  for (int rr = 0; rr < rows; ++rr) jj = hn::MulAdd(jd[rr], jd[rr], jj);
  St(hn::NegMulAdd(hn::Set(d, 0.5), jj, hn::Neg(gd)), w.predicted + offset);
  St(moved, w.moved + offset);
}

// After the evaluation at w.tq: acceptance, λ, the stall tests
// (bounded_lm_solver.cc RunAttempt, AcceptStep, IncreaseDamping,
// ShouldAbandon) for iterating lanes that stepped, and the hand-over of the
// evaluation for starting lanes. Sets w.event.
HWY_ATTR void Update(const SimdLmPlan& plan, Work& w, int offset,
                     double position_tol2, double rotation_tol2) {
  const D d;
  const BoundedLmOptions& o = plan.options;
  const int n = plan.nq;
  const V zero = hn::Zero(d), one = hn::Set(d, 1.0);
  const V mode = Ld(w.mode + offset);
  const auto starting = hn::Eq(mode, hn::Set(d, kStarting));
  const auto stepped = hn::And(hn::Eq(mode, hn::Set(d, kIterating)),
                               hn::Eq(Ld(w.failed + offset), zero));
  const V cost = Ld(w.cost + offset), tcost = Ld(w.tcost + offset);
  const V predicted = Ld(w.predicted + offset);
  const V gain = hn::IfThenElse(hn::Gt(predicted, zero),
                                hn::Div(hn::Sub(cost, tcost), predicted),
                                hn::Set(d, -1.0));
  const auto accepted = hn::And(stepped, hn::Lt(tcost, cost));
  const auto take = hn::Or(accepted, starting);
  // Take the evaluation: q and the cost here, J̃ᵀ and r̃ in the next
  // ComputeSteps (Work's `took`).
  for (int i = 0; i < n; ++i) {
    St(hn::IfThenElse(take, Ld(w.at(w.tq, i) + offset), Ld(w.at(w.q, i) + offset)),
       w.at(w.q, i) + offset);
  }
  St(hn::IfThenElseZero(take, one), w.took + offset);
  const V new_cost = hn::IfThenElse(take, tcost, cost);
  St(new_cost, w.cost + offset);
  // λ: ÷ damping_decrease on a good gain, × damping_increase on a poor gain
  // or a rejection; a rejection beyond max_damping ends the attempt.
  V lambda = Ld(w.lambda + offset);
  const auto poor = hn::Or(hn::Lt(gain, hn::Set(d, 0.25)), hn::Not(accepted));
  const auto good = hn::And(accepted, hn::Gt(gain, hn::Set(d, 0.75)));
  lambda = hn::IfThenElse(
      hn::And(stepped, poor), hn::Mul(lambda, hn::Set(d, o.damping_increase)),
      hn::IfThenElse(good,
                     hn::Max(hn::Div(lambda, hn::Set(d, o.damping_decrease)),
                             hn::Set(d, o.min_damping)),
                     lambda));
  const auto rejected = hn::AndNot(accepted, stepped);
  const auto damping_out =
      hn::And(rejected, hn::Gt(lambda, hn::Set(d, o.max_damping)));
  St(lambda, w.lambda + offset);
  const V norm = hn::Sqrt(hn::Mul(hn::Set(d, 2.0), new_cost));
  const V mu = hn::Max(hn::Mul(lambda, norm), hn::Set(d, o.min_damping));
  St(hn::IfThenElse(hn::AndNot(damping_out, stepped), mu, Ld(w.mu + offset)),
     w.mu + offset);
  // Best pose.
  const V best = Ld(w.best_cost + offset);
  const auto better = hn::And(take, hn::Lt(new_cost, best));
  St(hn::IfThenElse(better, new_cost, best), w.best_cost + offset);
  V q_norm = zero;
  for (int i = 0; i < n; ++i) {
    const V q = Ld(w.at(w.q, i) + offset);
    q_norm = hn::Max(q_norm, hn::Abs(q));
    double* b = w.at(w.best_q, i) + offset;
    St(hn::IfThenElse(better, q, Ld(b)), b);
  }
  // Vector pre-test of the tolerances at the evaluated point: ‖p_WT − p_WS‖²
  // and ‖R_WG − R_WS‖_F² = 8 sin²(θ/2) (the z columns as cross products).
  V pos2 = zero, rot2 = zero;
  if (plan.position) {
    for (int r = 0; r < 3; ++r) {
      const V e = hn::Sub(Ld(w.at(w.target, r) + offset), Ld(w.at(w.pose, r) + offset));
      pos2 = hn::MulAdd(e, e, pos2);
    }
  }
  if (plan.orientation) {
    V xg[3], yg[3], xs[3], ys[3];
    for (int r = 0; r < 3; ++r) {
      xg[r] = Ld(w.at(w.target, 3 + r) + offset);
      yg[r] = Ld(w.at(w.target, 6 + r) + offset);
      xs[r] = Ld(w.at(w.pose, 3 + r) + offset);
      ys[r] = Ld(w.at(w.pose, 6 + r) + offset);
    }
    for (int r = 0; r < 3; ++r) {
      const int a = (r + 1) % 3, b = (r + 2) % 3;
      const V ex = hn::Sub(xg[r], xs[r]), ey = hn::Sub(yg[r], ys[r]);
      const V zg = hn::NegMulAdd(xg[b], yg[a], hn::Mul(xg[a], yg[b]));
      const V zs = hn::NegMulAdd(xs[b], ys[a], hn::Mul(xs[a], ys[b]));
      const V ez = hn::Sub(zg, zs);
      rot2 = hn::MulAdd(ex, ex, hn::MulAdd(ey, ey, hn::MulAdd(ez, ez, rot2)));
    }
  }
  const auto within = hn::And(hn::Le(pos2, hn::Set(d, position_tol2)),
                              hn::Le(rot2, hn::Set(d, rotation_tol2)));
  // Stationary: an accepted step below 1e-14 relative.
  const auto tiny = hn::And(
      accepted, hn::Le(Ld(w.moved + offset),
                       hn::Mul(hn::Set(d, 1e-14), hn::Add(one, q_norm))));
  // Stall tests (ShouldAbandon) for lanes that stepped and were not ended.
  const V att_iters = hn::Add(Ld(w.att_iters + offset), hn::IfThenElseZero(stepped, one));
  St(att_iters, w.att_iters + offset);
  const auto may_stall = hn::And(stepped, hn::Gt(Ld(w.may_stall + offset), zero));
  const V initial_norm = Ld(w.initial_norm + offset);
  const auto first_step =
      hn::And(hn::And(hn::Eq(att_iters, one), hn::Gt(Ld(w.first_test + offset), zero)),
              hn::Gt(norm, hn::Mul(hn::Set(d, o.first_step_ratio), initial_norm)));
  const V cost1 = Ld(w.cost1 + offset), cost2 = Ld(w.cost2 + offset);
  const auto bound_stall = hn::And(
      hn::And(hn::Ge(att_iters, hn::Set(d, 3.0)),
              hn::Gt(new_cost, hn::Mul(hn::Set(d, o.bound_stall_ratio), cost2))),
      hn::Gt(Ld(w.any_held + offset), zero));
  const auto early = hn::And(may_stall, hn::Or(first_step, bound_stall));
  const auto shift = hn::AndNot(early, may_stall);
  St(hn::IfThenElse(shift, cost1, cost2), w.cost2 + offset);
  St(hn::IfThenElse(shift, new_cost, cost1), w.cost1 + offset);
  const V since = hn::Add(Ld(w.since_ref + offset), hn::IfThenElseZero(shift, one));
  const auto check = hn::And(shift, hn::Ge(since, hn::Set(d, o.stall_iterations)));
  const V ref = Ld(w.stall_ref + offset);
  const auto stalled =
      hn::And(check, hn::Gt(norm, hn::Mul(hn::Set(d, o.stall_ratio), ref)));
  const auto reset = hn::AndNot(stalled, check);
  St(hn::IfThenElse(reset, norm, ref), w.stall_ref + offset);
  St(hn::IfThenElse(reset, zero, since), w.since_ref + offset);
  // Events, in the scalar solver's order: converged (accepted step),
  // stationary or λ out, then the stall tests.
  const auto converged = hn::And(hn::And(accepted, within), hn::Not(starting));
  const auto ended = hn::AndNot(
      converged, hn::Or(hn::Or(tiny, damping_out), hn::Or(early, stalled)));
  V event = hn::IfThenElseZero(
      starting, hn::IfThenElse(within, hn::Set(d, kStartedWithin),
                               hn::Set(d, kStarted)));
  event = hn::IfThenElse(converged, hn::Set(d, kMaybeConverged), event);
  event = hn::IfThenElse(ended, hn::Set(d, kAttemptEnded), event);
  St(event, w.event + offset);
  // Lanes whose factorization failed: λ × damping_increase, out beyond
  // max_damping (RunAttempt's `continue`).
  const auto failed = hn::And(hn::Eq(mode, hn::Set(d, kIterating)),
                              hn::Gt(Ld(w.failed + offset), zero));
  if (!hn::AllFalse(d, failed)) {
    const V l = hn::Mul(Ld(w.lambda + offset), hn::Set(d, o.damping_increase));
    const V lam = hn::IfThenElse(failed, l, Ld(w.lambda + offset));
    St(lam, w.lambda + offset);
    const auto out = hn::And(failed, hn::Gt(lam, hn::Set(d, o.max_damping)));
    const V mu_f = hn::Max(hn::Mul(lam, hn::Sqrt(hn::Mul(hn::Set(d, 2.0), cost))),
                           hn::Set(d, o.min_damping));
    St(hn::IfThenElse(hn::AndNot(out, failed), mu_f, Ld(w.mu + offset)),
       w.mu + offset);
    St(hn::IfThenElse(out, hn::Set(d, kAttemptEnded), Ld(w.event + offset)),
       w.event + offset);
  }
}

// The driver: Lanes(D()) problems at a time until every item is done.
HWY_ATTR void SolveLanes(const SimdLmPlan& plan, const double* targets,
                         const double* q0, int count,
                         const SimdLmOutput& output) {
  const D d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  Work w(lanes, plan.nq);
  LaneOps ops(plan, targets, q0, count, output, lanes);
  for (int lane = 0; lane < lanes; ++lane) ops.Refill(w, lane);
  const SolveOptions& c = plan.options.common;
  // The vector pre-test is a little looser than the tolerances (the exact
  // scalar test decides): ‖R_WG − R_WS‖_F² = 8 sin²(θ/2).
  const double position_tol2 =
      plan.position ? c.position_tolerance * c.position_tolerance * (1 + 1e-6)
                    : HUGE_VAL;
  const double half = std::min(0.5 * c.angle_tolerance, 0.5 * M_PI);
  const double rotation_tol2 = plan.orientation
                                   ? 8.0 * std::sin(half) * std::sin(half) *
                                             (1 + 1e-6) + 1e-300
                                   : HUGE_VAL;
  const int max_iterations = c.max_iterations;
  // The 7- and 6-coordinate arms with pose or position goals at compile
  // time; other chains read nq and the rows from the plan.
  auto compute_steps = &ComputeSteps<0, 0>;
  if (plan.nq == 7 && plan.factor_rows == 6) compute_steps = &ComputeSteps<7, 6>;
  if (plan.nq == 7 && plan.factor_rows == 3) compute_steps = &ComputeSteps<7, 3>;
  if (plan.nq == 6 && plan.factor_rows == 6) compute_steps = &ComputeSteps<6, 6>;
  if (plan.nq == 6 && plan.factor_rows == 3) compute_steps = &ComputeSteps<6, 3>;
  const V one = hn::Set(d, 1.0), two = hn::Set(d, kIterating);
  const V zero = hn::Zero(d), iteration_cap = hn::Set(d, max_iterations);
  // The lanes of a mask as bits (lane i at bit i; at most 64 lanes), to
  // visit only those, in lane order.
  const auto bits = [&](hn::Mask<D> mask) {
    uint8_t bytes[8] = {};
    hn::StoreMaskBits(d, mask, bytes);
    uint64_t out = 0;
    for (int i = 0; i < 8; ++i) out |= uint64_t(bytes[i]) << (8 * i);
    return out;
  };
  while (true) {
    for (uint64_t out = bits(hn::And(hn::Eq(Ld(w.mode), two),
                                     hn::Ge(Ld(w.iters), iteration_cap)));
         out != 0; out &= out - 1) {
      ops.OutOfIterations(
          w, static_cast<int>(hwy::Num0BitsBelowLS1Bit_Nonzero64(out)));
    }
    const V mode = Ld(w.mode);
    if (hn::AllTrue(d, hn::Eq(mode, zero))) break;  // every lane idle
    St(hn::Add(Ld(w.iters), hn::IfThenElseZero(hn::Eq(mode, two), one)),
       w.iters);
    compute_steps(plan, w, 0);
    Evaluate(plan, w, 0);
    Update(plan, w, 0, position_tol2, rotation_tol2);
    for (uint64_t events = bits(hn::Ne(Ld(w.event), zero)); events != 0;
         events &= events - 1) {
      const int lane =
          static_cast<int>(hwy::Num0BitsBelowLS1Bit_Nonzero64(events));
      switch (static_cast<int>(w.event[lane])) {
        case kStarted:
          ops.Started(w, lane, /*maybe_within=*/false);
          break;
        case kStartedWithin:
          ops.Started(w, lane, /*maybe_within=*/true);
          break;
        case kMaybeConverged:
          ops.MaybeConverged(w, lane);
          break;
        case kAttemptEnded:
          ops.AttemptEnded(w, lane);
          break;
        default:
          break;
      }
    }
  }
}

int LaneCount() { return static_cast<int>(hn::Lanes(D())); }
int64_t TargetBits() { return HWY_TARGET; }

}  // namespace iklab::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace iklab {
namespace internal {

HWY_EXPORT(SolveLanes);
HWY_EXPORT(LaneCount);
HWY_EXPORT(TargetBits);

void ScalarSitePose(const SimdLmPlan& plan, const double* q, double* pose,
                    double* z) {
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double p[3] = {0, 0, 0};
  for (int k = 0; k < plan.num_joints; ++k) {
    const SimdLmPlan::Joint& joint = plan.joints[k];
    double pn[3], Rn[9];
    for (int r = 0; r < 3; ++r) {
      pn[r] = p[r] + R[3 * r] * joint.p[0] + R[3 * r + 1] * joint.p[1] +
              R[3 * r + 2] * joint.p[2];
      for (int col = 0; col < 3; ++col) {
        Rn[3 * r + col] = R[3 * r] * joint.R[col] +
                          R[3 * r + 1] * joint.R[3 + col] +
                          R[3 * r + 2] * joint.R[6 + col];
      }
    }
    const double qk = q[joint.dof];
    if (joint.prismatic) {
      for (int r = 0; r < 3; ++r) pn[r] += Rn[3 * r + 2] * qk;
    } else {
      const double s = std::sin(qk), c = std::cos(qk);
      for (int r = 0; r < 3; ++r) {
        const double c0 = Rn[3 * r], c1 = Rn[3 * r + 1];
        Rn[3 * r] = c * c0 + s * c1;
        Rn[3 * r + 1] = -s * c0 + c * c1;
      }
    }
    std::copy(pn, pn + 3, p);
    std::copy(Rn, Rn + 9, R);
  }
  for (int r = 0; r < 3; ++r) {
    pose[r] = p[r] + R[3 * r] * plan.p_LS[0] + R[3 * r + 1] * plan.p_LS[1] +
              R[3 * r + 2] * plan.p_LS[2];
    double cols[3];
    for (int col = 0; col < 3; ++col) {
      cols[col] = R[3 * r] * plan.R_LS[col] + R[3 * r + 1] * plan.R_LS[3 + col] +
                  R[3 * r + 2] * plan.R_LS[6 + col];
    }
    pose[3 + r] = cols[0];
    pose[6 + r] = cols[1];
    if (z) z[r] = cols[2];
  }
}

namespace {

void StoreRotation(const Eigen::Matrix3d& R, double* out) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) out[3 * r + c] = R(r, c);
  }
}

// The chain of `site` (SimdLmPlan's comment); false with `why` when it has
// more than kMaxQ moving joints.
bool BuildChain(const Model& model, int site, SimdLmPlan* plan,
                std::string* why) {
  std::vector<int> path;
  for (int i = model.site_step(site); i > 0; i = model.parent(i)) {
    path.push_back(i);
  }
  Eigen::Isometry3d pending = model.X_PJ(0);
  Eigen::Matrix3d Q_previous = Eigen::Matrix3d::Identity();
  plan->num_joints = 0;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const int step = *it;
    if (model.dof(step) < 0) {
      pending = pending * model.X_PJ(step);
      continue;
    }
    if (plan->num_joints == kMaxQ) {
      if (why) *why = StrCat("the chain to the site has more than ", kMaxQ,
                             " moving joints");
      return false;
    }
    const Eigen::Isometry3d X = pending * model.X_PJ(step);
    pending = Eigen::Isometry3d::Identity();
    const Eigen::Matrix3d Q =
        Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(),
                                           model.axis(step))
            .toRotationMatrix();
    SimdLmPlan::Joint& joint = plan->joints[plan->num_joints++];
    StoreRotation(Q_previous.transpose() * X.linear() * Q, joint.R);
    const Eigen::Vector3d p = Q_previous.transpose() * X.translation();
    for (int r = 0; r < 3; ++r) joint.p[r] = p[r];
    joint.prismatic = model.kind(step) == StepKind::kPrismatic;
    joint.dof = model.dof(step);
    Q_previous = Q;
  }
  const Eigen::Isometry3d X_LS = pending * model.X_FS(site);
  StoreRotation(Q_previous.transpose() * X_LS.linear(), plan->R_LS);
  const Eigen::Vector3d p = Q_previous.transpose() * X_LS.translation();
  for (int r = 0; r < 3; ++r) plan->p_LS[r] = p[r];
  return true;
}

// The plan for `problem`, or false with `why`.
bool MakePlan(const Problem& problem, const BoundedLmOptions& options,
              SimdLmPlan* plan, std::string* why) {
  std::string reason;
  if (!options.IsValid(&reason)) {
    if (why) *why = "BoundedLmOptions: " + reason;
    return false;
  }
  if (options.common.time_budget_seconds > 0.0) {
    if (why) *why = "a time budget is set (the batch solver has none)";
    return false;
  }
  if (options.common.record_trace) {
    if (why) *why = "a trace is requested";
    return false;
  }
  SiteGoalSpec spec;
  if (!ReadSiteGoal(problem, &spec) || spec.rows == SiteGoalRows::kOrientation) {
    if (why) {
      *why = "the problem is not exactly one PositionOrientationGoal or "
             "PositionGoal (no regularizer, no constraint)";
    }
    return false;
  }
  const int n = problem.nq();
  if (n < 1 || n > kMaxQ) {
    if (why) *why = StrCat("nq = ", n, " is outside [1, ", kMaxQ, "]");
    return false;
  }
  if (problem.bounds().size() != n || !problem.bounds().IsValid(&reason)) {
    if (why) *why = "the problem's bounds are not valid";
    return false;
  }
  const Model& model = problem.model();
  if (model.has_mimics()) {
    // The lane kernels read one coordinate per step, unscaled.
    if (why) *why = "the model has mimic joints";
    return false;
  }
  if (!BuildChain(model, spec.site, plan, why)) return false;
  plan->nq = n;
  plan->options = options;
  plan->position = spec.rows != SiteGoalRows::kOrientation;
  plan->orientation = spec.rows != SiteGoalRows::kPosition;
  plan->factor_rows = (plan->position ? 3 : 0) + (plan->orientation ? 3 : 0);
  const auto inverse = [](double s) { return s > 0.0 ? 1.0 / s : 0.0; };
  plan->s_p = spec.s_p;
  plan->s_x = spec.s_x;
  plan->s_y = spec.s_y;
  plan->s_z = std::sqrt(spec.s_x * spec.s_x + spec.s_y * spec.s_y);
  plan->inv_s_x = inverse(plan->s_x);
  plan->inv_s_y = inverse(plan->s_y);
  plan->inv_s_z = inverse(plan->s_z);
  const bool limits = options.common.respect_limits;
  plan->lower.resize(n);
  plan->upper.resize(n);
  plan->mid.resize(n);
  plan->periodic.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    plan->lower[i] = limits ? problem.bounds().lower[i] : -kInfinity;
    plan->upper[i] = limits ? problem.bounds().upper[i] : kInfinity;
    const auto [lo, hi] = SamplingInterval(plan->lower[i], plan->upper[i]);
    plan->mid[i] = 0.5 * (lo + hi);
    plan->periodic[i] =
        model.kind(model.dof_step(i)) == StepKind::kRevolute &&
        plan->upper[i] - plan->lower[i] >= 2.0 * M_PI;
  }
  // The scalar solver's restart pool (bounded_lm_solver.cc PrepareKernel),
  // built by its kernel so that both solvers share one pool: 6/7
  // coordinates only, as there.
  if (options.restart_pool > 0 && (n == 6 || n == 7)) {
    const Eigen::Map<const Eigen::VectorXd> lower(plan->lower.data(), n);
    const Eigen::Map<const Eigen::VectorXd> upper(plan->upper.data(), n);
    const auto get = [&](auto& kernel) {
      if (!kernel.Init(problem)) return;
      plan->pool = RestartPool::Get(
          problem.shared_model(), kernel.site(), lower, upper, options.seed,
          options.restart_pool,
          [&](const double* q, double* pose) { kernel.SitePose(q, pose); });
    };
    const int m = problem.num_residuals();
    if (n == 6 && m == 3) { SiteGoalKernel<3, 6> k; get(k); }
    if (n == 6 && m == 9) { SiteGoalKernel<9, 6> k; get(k); }
    if (n == 7 && m == 3) { SiteGoalKernel<3, 7> k; get(k); }
    if (n == 7 && m == 9) { SiteGoalKernel<9, 7> k; get(k); }
  }
  return true;
}

}  // namespace
}  // namespace internal

bool SimdLmApplies(const Problem& problem, const BoundedLmOptions& options,
                   std::string* why) {
  internal::SimdLmPlan plan;
  std::string reason;
  // Without building the pool: only the checks.
  BoundedLmOptions checks = options;
  checks.restart_pool = 0;
  const bool ok = internal::MakePlan(problem, checks, &plan, &reason);
  if (!ok && why) *why = reason;
  return ok;
}

SimdBoundedLm::SimdBoundedLm(const Problem& problem,
                             const BoundedLmOptions& options)
    : plan_(std::make_unique<internal::SimdLmPlan>()) {
  std::string why;
  if (!internal::MakePlan(problem, options, plan_.get(), &why)) {
    internal::ThrowInvalidArgument("SimdBoundedLm: ", why);
  }
}

SimdBoundedLm::~SimdBoundedLm() = default;

int SimdBoundedLm::target_columns() const {
  return plan_->orientation ? 7 : 3;
}
int SimdBoundedLm::nq() const { return plan_->nq; }

int SimdBoundedLm::Lanes() {
  return HWY_DYNAMIC_DISPATCH(internal::LaneCount)();
}

std::string SimdBoundedLm::TargetName() {
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(internal::TargetBits)());
}

void SimdBoundedLm::Solve(const double* targets, const double* q0, int count,
                          const SimdLmOutput& output) const {
  if (count < 0) {
    internal::ThrowInvalidArgument("SimdBoundedLm::Solve: count must be >= 0, got ",
                                   count);
  }
  if (count == 0) return;
  if (output.q == nullptr || output.status == nullptr) {
    internal::ThrowInvalidArgument(
        "SimdBoundedLm::Solve: output.q and output.status must not be null");
  }
  const int columns = target_columns();
  const int n = plan_->nq;
  for (int i = 0; i < count; ++i) {
    const double* row = targets + std::size_t(i) * columns;
    for (int c = 0; c < columns; ++c) {
      if (!std::isfinite(row[c])) {
        internal::ThrowInvalidArgument("SimdBoundedLm::Solve: target ", i,
                                       " has a non-finite entry");
      }
    }
    if (columns == 7 && !(row[3] * row[3] + row[4] * row[4] +
                              row[5] * row[5] + row[6] * row[6] > 0.0)) {
      internal::ThrowInvalidArgument("SimdBoundedLm::Solve: target ", i,
                                     " has a zero quaternion");
    }
    for (int c = 0; c < n; ++c) {
      if (!std::isfinite(q0[std::size_t(i) * n + c])) {
        internal::ThrowInvalidArgument("SimdBoundedLm::Solve: q0 of item ", i,
                                       " has a non-finite entry");
      }
    }
  }
  HWY_DYNAMIC_DISPATCH(internal::SolveLanes)(*plan_, targets, q0, count,
                                             output);
}

}  // namespace iklab
#endif  // HWY_ONCE
