#include "solvers/batch_solve.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/validate.h"
#include "framework/worker_threads.h"
#include "solvers/batch/simd_lm.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/optimization/bounded_lm_solver.h"

namespace iklab {

using internal::Invalid;
using internal::StrCat;
using internal::ThrowInvalidArgument;

bool BatchOptions::IsValid(std::string* why) const {
  if (threads < 1) {
    try {
      CheckThreadCount(threads, "BatchOptions::threads");
    } catch (const std::invalid_argument& e) {
      return Invalid(why, e.what());
    }
  }
  if (goal < -1) {
    return Invalid(why, "BatchOptions::goal must be a goal index or -1, got ",
                   goal);
  }
  return true;
}

namespace {

void CheckOptions(const BatchOptions& options) {
  std::string why;
  if (!options.IsValid(&why)) ThrowInvalidArgument("SolveBatch: ", why);
}

void CheckStarts(const Eigen::Ref<const RowMatrixXd>& q0, Eigen::Index items,
                 int nq) {
  if (q0.rows() != items || q0.cols() != nq) {
    ThrowInvalidArgument("SolveBatch: q0 must have shape (", items, ", ", nq,
                         ") (one start per item, nq = ", nq, "), got (",
                         q0.rows(), ", ", q0.cols(), ")");
  }
  if (!q0.allFinite()) ThrowInvalidArgument("SolveBatch: q0 has a non-finite entry");
}

// `items` × nq answers, all kNotSolved until solved.
BatchResult EmptyResult(Eigen::Index items, int nq) {
  BatchResult result;
  result.q.resize(items, nq);
  result.status.assign(items, SolveStatus::kNotSolved);
  result.position_error.setZero(items);
  result.angle_error.setZero(items);
  result.microseconds.setZero(items);
  result.iterations.setZero(items);
  return result;
}

// Runs solve(item, thread) for every item on `threads` threads, handing items
// out one at a time; each item writes only its slot of `result`. The first
// exception stops the hand-out and is rethrown here once all threads joined.
BatchResult RunItems(
    const Solver& solver, Eigen::Index items, int nq, int threads,
    const std::function<const Problem&(Eigen::Index item, int thread)>& problem_of,
    const Eigen::Ref<const RowMatrixXd>& q0) {
  BatchResult result = EmptyResult(items, nq);
  std::atomic<Eigen::Index> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&](int thread) {
    Eigen::VectorXd start(nq);
    for (Eigen::Index i = next++; i < items; i = next++) {
      try {
        const Problem& problem = problem_of(i, thread);
        start = q0.row(i).transpose();
        const auto t0 = std::chrono::steady_clock::now();
        const Result r = solver.Solve(problem, start);
        const auto t1 = std::chrono::steady_clock::now();
        result.microseconds[i] =
            std::chrono::duration<double, std::micro>(t1 - t0).count();
        result.status[i] = r.status;
        result.iterations[i] = r.iterations;
        if (r.q.size() == nq) {
          result.q.row(i) = r.q.transpose();
        } else {
          result.q.row(i) = start.transpose();
        }
        const ErrorSummary e = Summarize(r.goal_errors);
        result.position_error[i] = e.max_position;
        result.angle_error[i] = e.max_angle;
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = items;  // stop handing out work
      }
    }
  };
  const int n = static_cast<int>(std::max<Eigen::Index>(
      1, std::min<Eigen::Index>(threads, items)));
  RunWorkerThreads(
      n, worker, [&] { next = items; }, "SolveBatch");
  if (error) std::rethrow_exception(error);
  return result;
}

// The template with goal `index` replaced by `goal`.
Problem WithGoal(const Problem& problem, int index,
                 std::shared_ptr<const Goal> goal) {
  Problem copy(problem.shared_model());
  copy.set_bounds(problem.bounds());
  for (int g = 0; g < static_cast<int>(problem.goals().size()); ++g) {
    copy.AddGoal(g == index ? goal : problem.goals()[g]);
  }
  for (const auto& r : problem.regularizers()) copy.AddRegularizer(r);
  for (const auto& c : problem.equality_constraints()) {
    copy.AddEqualityConstraint(c);
  }
  for (const auto& c : problem.inequality_constraints()) {
    copy.AddInequalityConstraint(c);
  }
  return copy;
}

// The index of the goal the targets replace (see BatchOptions::goal).
template <typename GoalType>
int FindGoal(const Problem& problem, int requested, const char* kind,
             Eigen::Index columns) {
  const auto& goals = problem.goals();
  if (requested >= 0) {
    if (requested >= static_cast<int>(goals.size()) ||
        dynamic_cast<const GoalType*>(goals[requested].get()) == nullptr) {
      ThrowInvalidArgument("SolveBatch: goal ", requested,
                           " of the problem is not a ", kind,
                           " (targets with ", columns, " columns replace a ",
                           kind, "'s target)");
    }
    return requested;
  }
  for (int g = 0; g < static_cast<int>(goals.size()); ++g) {
    if (dynamic_cast<const GoalType*>(goals[g].get()) != nullptr) return g;
  }
  ThrowInvalidArgument("SolveBatch: the problem has no ", kind,
                       " (targets with ", columns, " columns replace a ", kind,
                       "'s target; add one to the template problem)");
}

// Items per hand-out of the SIMD path: enough to keep the lanes full (a
// lane refills from the chunk) and few enough to balance the threads.
constexpr Eigen::Index kSimdChunkPerLane = 64;

// The SIMD path of SolveBatch (BatchOptions::simd): chunks of items handed
// out to the threads, each solved by SimdBoundedLm::Solve. Items the batch
// solver left at a stationary point are classified as the scalar solver's
// SolveScope::Finish does (unreachable, limits, local minimum) on the
// thread's problem copy with the item's target, `set_target(i, t)`.
BatchResult RunSimd(const SimdBoundedLm& simd, const BoundedLmOptions& lm,
                    const Eigen::Ref<const RowMatrixXd>& targets,
                    const Eigen::Ref<const RowMatrixXd>& q0, int threads,
                    const std::function<const Problem&(Eigen::Index, int)>&
                        set_target) {
  const Eigen::Index items = targets.rows();
  const int nq = simd.nq();
  BatchResult result = EmptyResult(items, nq);
  result.method = StrCat("simd-bounded-lm (", SimdBoundedLm::TargetName(), ", ",
                         SimdBoundedLm::Lanes(), " lanes)");
  // Contiguous copies: the Refs may have any stride.
  const RowMatrixXd target_rows = targets;
  const RowMatrixXd starts = q0;
  const Eigen::Index chunk = kSimdChunkPerLane * SimdBoundedLm::Lanes();
  std::atomic<Eigen::Index> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&](int thread) {
    for (Eigen::Index begin = next.fetch_add(chunk); begin < items;
         begin = next.fetch_add(chunk)) {
      try {
        const int count = static_cast<int>(std::min(chunk, items - begin));
        SimdLmOutput out;
        out.q = result.q.data() + begin * nq;
        out.status = result.status.data() + begin;
        out.position_error = result.position_error.data() + begin;
        out.angle_error = result.angle_error.data() + begin;
        out.iterations = result.iterations.data() + begin;
        const auto t0 = std::chrono::steady_clock::now();
        simd.Solve(target_rows.data() + begin * target_rows.cols(),
                   starts.data() + begin * nq, count, out);
        const auto t1 = std::chrono::steady_clock::now();
        result.microseconds.segment(begin, count).setConstant(
            std::chrono::duration<double, std::micro>(t1 - t0).count() /
            count);
        for (Eigen::Index i = begin; i < begin + count; ++i) {
          if (result.status[i] != SolveStatus::kLocalMinimum) continue;
          const Problem& problem = set_target(i, thread);
          internal::SolveScope scope(problem, starts.row(i).transpose(),
                                     lm.common, "bounded-lm");
          const Result r = scope.Finish(result.q.row(i).transpose(),
                                        SolveStatus::kLocalMinimum,
                                        "no attempt converged");
          result.status[i] = r.status;
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = items;
      }
    }
  };
  const Eigen::Index chunks = (items + chunk - 1) / chunk;
  const int n = static_cast<int>(
      std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, chunks)));
  RunWorkerThreads(n, worker, [&] { next = items; }, "SolveBatch");
  if (error) std::rethrow_exception(error);
  return result;
}

}  // namespace

BatchResult SolveBatch(const Solver& solver, const Problem& problem,
                       const Eigen::Ref<const RowMatrixXd>& targets,
                       const Eigen::Ref<const RowMatrixXd>& q0,
                       const BatchOptions& options) {
  CheckOptions(options);
  const Eigen::Index items = targets.rows();
  if (targets.cols() != 7 && targets.cols() != 3) {
    ThrowInvalidArgument(
        "SolveBatch: targets must have shape (B, 7) (x, y, z, qw, qx, qy, qz) "
        "or (B, 3) (x, y, z), got (",
        targets.rows(), ", ", targets.cols(), ")");
  }
  if (!targets.allFinite()) {
    ThrowInvalidArgument("SolveBatch: targets has a non-finite entry");
  }
  CheckStarts(q0, items, problem.nq());
  const bool poses = targets.cols() == 7;
  if (poses) {
    for (Eigen::Index i = 0; i < items; ++i) {
      const auto row = targets.row(i);
      if (!IsValidQuaternion(row[3], row[4], row[5], row[6])) {
        CheckQuaternion(row[3], row[4], row[5], row[6],
                        StrCat("SolveBatch: targets row ", i, " columns 3..6"));
      }
    }
  }
  const int index =
      poses ? FindGoal<PositionOrientationGoal>(problem, options.goal,
                                                "PositionOrientationGoal", 7)
            : FindGoal<PositionGoal>(problem, options.goal, "PositionGoal", 3);
  solver.Prepare(problem);

  // One private copy of the goal and of the problem per thread; each item
  // only moves that copy's target, so the solves share nothing mutable.
  // Capped at MaxWorkerThreads() and at the items (framework/validate.h).
  const int threads = static_cast<int>(std::min<Eigen::Index>(
      CheckThreadCount(options.threads, "BatchOptions::threads"),
      std::max<Eigen::Index>(items, 1)));
  std::vector<std::shared_ptr<PositionOrientationGoal>> pose_goals(threads);
  std::vector<std::shared_ptr<PositionGoal>> position_goals(threads);
  std::vector<Problem> problems;
  problems.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    std::shared_ptr<const Goal> goal;
    if (poses) {
      pose_goals[t] = std::make_shared<PositionOrientationGoal>(
          static_cast<const PositionOrientationGoal&>(*problem.goals()[index]));
      goal = pose_goals[t];
    } else {
      position_goals[t] = std::make_shared<PositionGoal>(
          static_cast<const PositionGoal&>(*problem.goals()[index]));
      goal = position_goals[t];
    }
    problems.push_back(WithGoal(problem, index, goal));
  }
  const auto set_target = [&](Eigen::Index i, int t) -> const Problem& {
        const Eigen::Vector3d p = targets.row(i).head<3>().transpose();
        if (poses) {
          const Eigen::Quaterniond quaternion(targets(i, 3), targets(i, 4),
                                              targets(i, 5), targets(i, 6));
          Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
          X.linear() = quaternion.normalized().toRotationMatrix();
          X.translation() = p;
          pose_goals[t]->set_target(X);
        } else {
          position_goals[t]->set_target(p);
        }
        return problems[t];
  };
  // The SIMD batch solver where it applies (BatchOptions::simd).
  std::string why = "BatchOptions::simd is false";
  const auto* lm = dynamic_cast<const BoundedLmSolver*>(&solver);
  if (options.simd && lm == nullptr) {
    why = StrCat("the solver is ", solver.name(), ", not bounded-lm");
  }
  if (options.simd && lm != nullptr &&
      SimdLmApplies(problems[0], lm->options(), &why)) {
    const SimdBoundedLm simd(problems[0], lm->options());
    return RunSimd(simd, lm->options(), targets, q0, threads, set_target);
  }
  BatchResult result =
      RunItems(solver, items, problem.nq(), threads, set_target, q0);
  result.method = "scalar: " + why;
  return result;
}

BatchResult SolveBatch(const Solver& solver,
                       const std::vector<std::shared_ptr<const Problem>>& problems,
                       const Eigen::Ref<const RowMatrixXd>& q0,
                       const BatchOptions& options) {
  CheckOptions(options);
  const Eigen::Index items = static_cast<Eigen::Index>(problems.size());
  int nq = static_cast<int>(q0.cols());
  for (Eigen::Index i = 0; i < items; ++i) {
    if (problems[i] == nullptr) {
      ThrowInvalidArgument("SolveBatch: problems[", i, "] is null");
    }
    if (i == 0) nq = problems[0]->nq();
    if (problems[i]->nq() != nq) {
      ThrowInvalidArgument("SolveBatch: problems[", i, "] has nq = ",
                           problems[i]->nq(), ", problems[0] has ", nq);
    }
  }
  CheckStarts(q0, items, nq);
  if (items > 0) solver.Prepare(*problems[0]);
  BatchResult result = RunItems(
      solver, items, nq,
      CheckThreadCount(options.threads, "BatchOptions::threads"),
      [&](Eigen::Index i, int) -> const Problem& { return *problems[i]; }, q0);
  result.method = "scalar: one problem per item (the SIMD solver takes targets)";
  return result;
}

}  // namespace iklab
