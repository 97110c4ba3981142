#include "bench/ik_benchmark.h"

#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "bench/internal/benchmark_pose.h"
#include "bench/internal/chunk_pipeline.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/internal/read_file.h"
#include "framework/kinematics.h"
#include "framework/validate.h"
#include "lab/collision_files.h"
#include "lab/statistics.h"
#include "lab/study.h"
#include "solvers/batch/simd_lm.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/registry.h"
#include "solvers/restarts.h"

#ifdef IKLAB_HAVE_KDL
#include "bench/kdl_baselines.h"
#endif

namespace iklab {

using internal::StrCat;
using internal::ThrowInvalidArgument;

std::vector<BenchmarkRobot> StandardRobots(const std::string& data_dir) {
  const std::string robots = data_dir + "/robots/";
  // The arms of the shipped models (data/robots, kinematics only); the tip is
  // the last link of the arm proper (flange/hand frame), as TRAC-IK's
  // benchmarks use. Baxter and PR2 contribute their left/right arm.
  return {
      {"panda", robots + "panda.urdf", "panda_link0", "panda_hand"},
      {"iiwa14", robots + "iiwa14.urdf", "base", "iiwa_link_ee"},
      {"gen3", robots + "gen3.urdf", "base_link", "end_effector_link"},
      {"ur5", robots + "ur5.urdf", "base_link", "ee_link"},
      {"baxter_left", robots + "baxter_left_arm.urdf", "base", "left_gripper"},
      {"pr2_right", robots + "pr2_right_arm.urdf", "torso_lift_link",
       "r_wrist_roll_link"},
  };
}

const char* SeedModeName(SeedMode mode) {
  return mode == SeedMode::kMidLimits ? "mid-limits" : "random";
}

namespace {

// Uniform within limits; unbounded coordinates (continuous joints) in
// (−π, π] (internal::DrawBenchmarkPose).
void RandomPose(const Model& model, std::mt19937_64* rng, Eigen::VectorXd* q) {
  internal::DrawBenchmarkPose(model.lower(), model.upper(), rng, q);
}

}  // namespace

std::vector<BenchmarkTarget> GenerateTargets(const Model& model, int site,
                                             int count, std::uint64_t seed,
                                             SeedMode mode, int threads,
                                             const CollisionSetup* collisions) {
  CheckThreadCount(threads, "GenerateTargets: threads");
  if (count < 0) ThrowInvalidArgument("GenerateTargets: count must be >= 0, got ", count);
  // Targets and seeds come from separate streams, so mid-limits and random
  // runs share the same targets. The streams are drawn in order here (a few
  // ns per number); the forward kinematics, the expensive part, runs in
  // chunks on the threads below.
  std::mt19937_64 target_rng(seed);
  std::mt19937_64 seed_rng(seed ^ 0x9E3779B97F4A7C15ull);
  const int nq = model.nq();
  std::vector<BenchmarkTarget> targets(count);
  Eigen::MatrixXd poses(nq, count);  // column k: target k's joint vector
  Eigen::VectorXd q(nq);
  const Eigen::VectorXd mid = model.MidLimits();
  for (int k = 0; k < count; ++k) {
    RandomPose(model, &target_rng, &q);
    for (int draw = 1;
         collisions != nullptr && IndependentMinDistance(model, *collisions, q) < 0.0;
         ++draw) {
      if (draw == 1000) {
        throw std::invalid_argument(
            "GenerateTargets: 1000 random configurations all collide; check "
            "the collision shapes and obstacles");
      }
      RandomPose(model, &target_rng, &q);
    }
    poses.col(k) = q;
    BenchmarkTarget& t = targets[k];
    t.seed = mid;
    if (mode == SeedMode::kRandom) RandomPose(model, &seed_rng, &t.seed);
  }
  internal::RunChunkPipeline(
      static_cast<std::size_t>(count), threads,
      internal::PipelineChunk(count, threads),
      [&](std::size_t begin, std::size_t end, std::string*) {
        Data data(model);  // one per chunk, not per target
        for (std::size_t k = begin; k < end; ++k) {
          ForwardKinematics(model, poses.col(k), &data);
          targets[k].target = SitePose(model, data, site);
        }
      },
      [](std::size_t, std::size_t, const std::string&) {});
  return targets;
}

AlignedVector<Eigen::Isometry3d> ReferenceStepPoses(const Model& model,
                                                    const Eigen::VectorXd& q) {
  const Eigen::VectorXd q_full =
      q.size() == model.nq_full() ? q : model.FullConfiguration(q);
  AlignedVector<Eigen::Isometry3d> X_W(model.num_steps());
  for (int i = 0; i < model.num_steps(); ++i) {
    Eigen::Isometry3d motion = Eigen::Isometry3d::Identity();
    if (model.kind(i) == StepKind::kRevolute) {
      motion = Eigen::AngleAxisd(q_full[model.full_dof(i)], model.axis(i));
    } else if (model.kind(i) == StepKind::kPrismatic) {
      motion = Eigen::Translation3d(q_full[model.full_dof(i)] * model.axis(i));
    }
    const Eigen::Isometry3d parent = model.parent(i) < 0
                                         ? Eigen::Isometry3d::Identity()
                                         : X_W[model.parent(i)];
    X_W[i] = parent * model.X_PJ(i) * motion;
  }
  return X_W;
}

Eigen::Isometry3d ReferenceSitePose(const Model& model, int site,
                                    const Eigen::VectorXd& q) {
  return ReferenceStepPoses(model, q)[model.site_step(site)] *
         model.X_FS(site);
}

double IndependentMinDistance(const Model& model,
                              const CollisionSetup& collisions,
                              const Eigen::VectorXd& q) {
  return MinDistanceFcl(model, collisions, ReferenceStepPoses(model, q));
}

double MimicRelationError(const Model& model, const Eigen::VectorXd& q_full) {
  double error = 0.0;
  for (const Model::MimicRelation& r : model.mimics()) {
    error = std::max(error, std::abs(q_full[r.joint] -
                                     (r.multiplier * q_full[r.leader] +
                                      r.offset)));
  }
  return error;
}

bool FullWithinLimits(const Model& model, const Eigen::VectorXd& q_full) {
  return q_full.size() == model.nq_full() &&
         (q_full.array() >=
          model.full_lower().array() - kMimicRelationTolerance)
             .all() &&
         (q_full.array() <=
          model.full_upper().array() + kMimicRelationTolerance)
             .all();
}

Verification Verify(const Model& model, int site, const Eigen::VectorXd& q,
                    const Eigen::Isometry3d& target, double tolerance,
                    const CollisionSetup* collisions) {
  Verification v;
  if (q.size() != model.nq() || !q.allFinite()) {
    v.position_error = v.rotation_error = v.mimic_error = kInfinity;
    return v;
  }
  const Eigen::VectorXd q_full = model.FullConfiguration(q);
  v.mimic_error = MimicRelationError(model, q_full);
  const Eigen::Isometry3d reached = ReferenceSitePose(model, site, q_full);
  v.position_error =
      (target.translation() - reached.translation()).cwiseAbs().maxCoeff();
  const Eigen::AngleAxisd rotation(target.linear() *
                                   reached.linear().transpose());
  v.rotation_error = (rotation.angle() * rotation.axis()).cwiseAbs().maxCoeff();
  // Each joint's own limits on the full vector (the mimics' limits were
  // intersected onto their leaders), and the free coordinates' box.
  v.within_limits =
      model.WithinLimits(q, 0.0) && FullWithinLimits(model, q_full);
  if (collisions != nullptr) {
    v.min_distance = IndependentMinDistance(model, *collisions, q_full);
  }
  v.success = v.position_error <= tolerance && v.rotation_error <= tolerance &&
              v.within_limits && v.mimic_error <= kMimicRelationTolerance &&
              v.min_distance >= -tolerance;
  return v;
}

BenchmarkSolver IklabBenchmarkSolver(
    std::string name,
    std::function<std::unique_ptr<Solver>(double, double)> make) {
  BenchmarkSolver solver;
  solver.name = std::move(name);
  solver.make_with_goals =
      [make = std::move(make)](
          const std::shared_ptr<const Model>& model, int site, double budget,
          double tolerance,
          const std::vector<std::shared_ptr<Goal>>& extra) -> TargetSolve {
    // Rotation error weighted 0.4 against length (metres): w_o = 0.4².
    PositionOrientationScales scales;
    scales.w_o = 0.4 * 0.4;
    auto goal = std::make_shared<PositionOrientationGoal>(
        *model, model->site_name(site), Eigen::Isometry3d::Identity(), 1.0,
        scales);
    auto problem = std::make_shared<Problem>(model);
    problem->AddGoal(goal);
    for (const auto& g : extra) problem->AddGoal(g);
    std::shared_ptr<const Solver> instance = make(budget, tolerance);
    instance->Prepare(*problem);  // set-up outside the timed solves
    return [goal, problem, instance](const Eigen::Isometry3d& X_BT,
                                     const Eigen::VectorXd& seed) {
      goal->set_target(X_BT);
      return instance->Solve(*problem, seed);
    };
  };
  solver.make = [with_goals = solver.make_with_goals](
                    const std::shared_ptr<const Model>& model, int site,
                    double budget, double tolerance) {
    return with_goals(model, site, budget, tolerance, {});
  };
  return solver;
}

std::string NotApplicable(const BenchmarkSolver& solver, const Model& model,
                          int site) {
  return solver.not_applicable ? solver.not_applicable(model, site)
                               : std::string();
}

namespace {

// The benchmark's pose problem: one PositionOrientationGoal on the site,
// rotation weighted 0.4 against length (w_o = 0.4²).
std::shared_ptr<Problem> BenchmarkProblem(
    const std::shared_ptr<const Model>& model, int site) {
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;
  auto problem = std::make_shared<Problem>(model);
  problem->AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, model->site_name(site), Eigen::Isometry3d::Identity(), 1.0,
      scales));
  return problem;
}

// bounded-lm's per-attempt iteration cap in the benchmark (PoseSolvers).
constexpr int kBoundedLmIterations = 100000;

BoundedLmOptions SimdOptions(double tolerance) {
  BoundedLmOptions options;
  options.common.position_tolerance = tolerance;
  options.common.angle_tolerance = tolerance;
  options.common.max_iterations = kBoundedLmIterations;
  return options;
}

}  // namespace

BenchmarkSolver SimdBenchmarkSolver() {
  BenchmarkSolver solver;
  solver.name = "bounded-lm-simd";
  solver.not_applicable = [](const Model& model, int site) -> std::string {
    auto shared = std::shared_ptr<const Model>(&model, [](const Model*) {});
    std::string why;
    if (SimdLmApplies(*BenchmarkProblem(shared, site), SimdOptions(1e-5),
                      &why)) {
      return "";
    }
    return why;
  };
  solver.batch = [](const std::shared_ptr<const Model>& model, int site,
                    const std::vector<BenchmarkTarget>& targets, int threads,
                    double tolerance) {
    const auto problem = BenchmarkProblem(model, site);
    const int n = static_cast<int>(targets.size());
    RowMatrixXd poses(n, 7), seeds(n, model->nq());
    for (int i = 0; i < n; ++i) {
      const Eigen::Quaterniond r(targets[i].target.linear());
      poses.row(i) << targets[i].target.translation().transpose(), r.w(),
          r.x(), r.y(), r.z();
      seeds.row(i) = targets[i].seed.transpose();
    }
    BatchOptions options;
    options.threads = threads;
    const BoundedLmSolver lm(SimdOptions(tolerance));
    const BatchResult batch = SolveBatch(lm, *problem, poses, seeds, options);
    std::vector<TargetOutcome> outcomes(n);
    for (int i = 0; i < n; ++i) {
      TargetOutcome& o = outcomes[i];
      o.status = batch.status[i];
      o.claimed = o.status == SolveStatus::kConverged;
      o.microseconds = batch.microseconds[i];
      o.iterations = batch.iterations[i];
      o.q = batch.q.row(i).transpose();
    }
    return outcomes;
  };
  return solver;
}

std::vector<BenchmarkSolver> PoseSolvers() {
  // Every solver stops on the goal tolerance the protocol checks (the
  // settings' tolerance on position norm and rotation angle, which implies
  // the per-component test) and gets the same wall-time budget; solvers
  // without restarts of their own are wrapped in seeded random restarts
  // within that budget, as the protocol lets every solver start anywhere.
  // The analytic solvers run once (all solutions, the one nearest the seed
  // within the limits; Tolani's Table 3 fallback when no swivel angle is
  // valid) on the arms of their shape: analytic-6r on the UR5 of the shipped
  // set, tolani on the iiwa14.
  struct Choice {
    const char* name;
    int max_iterations;  // per attempt
  };
  static constexpr Choice kChoices[] = {
      {"bounded-lm", 100000}, {"lbfgsb", 1000},     {"ceres-lm", 100},
      {"ceres-dogleg", 100},  {"analytic-6r", 1},   {"tolani", 200},
  };
  std::vector<BenchmarkSolver> solvers;
  for (const Choice& choice : kChoices) {
    const SolverEntry& entry = SolverNamed(choice.name);
    const bool restarted =
        !entry.own_restarts && entry.family != SolverFamily::kAnalytic;
    const int iterations = choice.max_iterations;
    BenchmarkSolver solver = IklabBenchmarkSolver(
        restarted ? entry.name + "+restarts" : entry.name,
        [make = entry.make, iterations, restarted](
            double budget, double tolerance) -> std::unique_ptr<Solver> {
          SolveOptions common;
          common.time_budget_seconds = budget;
          common.position_tolerance = tolerance;
          common.angle_tolerance = tolerance;
          common.max_iterations = iterations;
          if (!restarted) return make(common);
          RestartOptions restarts;
          restarts.max_attempts = 1000000;
          restarts.time_budget_seconds = budget;
          return std::make_unique<RestartSolver>(
              std::shared_ptr<const Solver>(make(common)), restarts);
        });
    solver.not_applicable = entry.not_applicable;
    solvers.push_back(std::move(solver));
  }
  return solvers;
}

namespace {

// The outcome of one answer: the solver's claim, the independent check
// (Verify) and the budget — a late answer is a failure, the budget is part of
// the protocol.
void Judge(const Model& model, int site, const BenchmarkTarget& target,
           const BenchmarkSettings& settings, TargetOutcome* o) {
  o->claimed = o->status == SolveStatus::kConverged;
  o->overran = settings.time_budget_seconds > 0.0 &&
               o->microseconds > 1e6 * settings.time_budget_seconds;
  o->check = Verify(model, site, o->q, target.target, settings.tolerance,
                    settings.collisions.get());
  o->success = o->claimed && o->check.success && !o->overran;
}

}  // namespace

std::vector<TargetOutcome> RunTargets(
    const std::shared_ptr<const Model>& model, int site,
    const std::vector<BenchmarkTarget>& targets, const BenchmarkSolver& solver,
    const BenchmarkSettings& settings,
    const std::function<void(int)>& progress, OutcomesCsvWriter* writer) {
  // The library's rules (framework/validate.h): threads = 0 is refused
  // here as everywhere, not clamped.
  const int threads =
      CheckThreadCount(settings.threads, "BenchmarkSettings::threads");
  CheckTolerance(settings.tolerance, "BenchmarkSettings::tolerance");
  CheckTimeBudget(settings.time_budget_seconds,
                  "BenchmarkSettings::time_budget_seconds");
  if (targets.empty()) return {};
  for (std::size_t k = 0; k < targets.size(); ++k) {
    if (targets[k].seed.size() != model->nq() ||
        !targets[k].seed.allFinite()) {
      ThrowInvalidArgument("RunTargets: target ", k, "'s seed must have ",
                           model->nq(), " finite entries, got ",
                           targets[k].seed.size(),
                           targets[k].seed.allFinite() ? "" : " (not finite)");
    }
  }
  const std::size_t n = targets.size();
  std::vector<TargetOutcome> outcomes;
  if (solver.batch) {
    // All targets at once (the batch solver spreads them over the threads);
    // the pipeline below then only verifies and writes.
    outcomes = solver.batch(model, site, targets, threads, settings.tolerance);
    if (outcomes.size() != n) {
      throw std::logic_error(StrCat("RunTargets: batch solver ", solver.name,
                                    " returned ", outcomes.size(),
                                    " outcomes for ", n, " targets"));
    }
  } else {
    outcomes.resize(n);
  }
  // One TargetSolve per worker thread, made outside the timed calls on the
  // thread's first chunk.
  // With collisions, the solver also gets the collision goal (a penalty).
  tbb::enumerable_thread_specific<TargetSolve> solves([&] {
    return settings.collisions
               ? solver.make_with_goals(model, site,
                                        settings.time_budget_seconds,
                                        settings.tolerance,
                                        {settings.collisions->MakeGoal(*model)})
               : solver.make(model, site, settings.time_budget_seconds,
                             settings.tolerance);
  });
  using Clock = std::chrono::steady_clock;
  std::size_t done = 0;  // touched by the serial, in-order stage only
  internal::RunChunkPipeline(
      n, threads, internal::PipelineChunk(n, threads),
      [&](std::size_t begin, std::size_t end, std::string* text) {
        for (std::size_t k = begin; k < end; ++k) {
          TargetOutcome& o = outcomes[k];
          if (!solver.batch) {
            const TargetSolve& solve = solves.local();
            const Clock::time_point t0 = Clock::now();
            Result r = solve(targets[k].target, targets[k].seed);
            o.microseconds =
                std::chrono::duration<double, std::micro>(Clock::now() - t0)
                    .count();
            o.status = r.status;
            o.iterations = r.iterations;
            if (r.status == SolveStatus::kInvalidInput) {
              o.invalid_input = std::move(r.message);
            }
            o.q = std::move(r.q);
          }
          Judge(*model, site, targets[k], settings, &o);
        }
        if (writer != nullptr) {
          writer->Format(begin, outcomes.data() + begin, end - begin, text);
        }
      },
      [&](std::size_t, std::size_t end, const std::string& text) {
        if (writer != nullptr) writer->Write(text);
        done = end;
        if (progress) progress(static_cast<int>(done));
      });
  return outcomes;
}

std::vector<BenchmarkSolver> BaselineSolvers() {
#ifdef IKLAB_HAVE_KDL
  return KdlBaselineSolvers();
#else
  return {};
#endif
}

bool KdlBaselinesBuilt() {
#ifdef IKLAB_HAVE_KDL
  return true;
#else
  return false;
#endif
}

BenchmarkSummary Summarize(const std::string& robot, const std::string& solver,
                           const std::string& seed_mode, int dofs,
                           const std::vector<TargetOutcome>& outcomes,
                           double budget_seconds) {
  BenchmarkSummary s;
  s.robot = robot;
  s.solver = solver;
  s.seed_mode = seed_mode;
  s.dofs = dofs;
  s.targets = static_cast<int>(outcomes.size());
  if (outcomes.empty()) return s;
  std::vector<double> times;
  times.reserve(outcomes.size());
  int successes = 0;
  double iterations = 0.0;
  for (const TargetOutcome& o : outcomes) {
    times.push_back(o.microseconds);
    successes += o.success;
    iterations += o.iterations;
    s.false_claims += o.claimed && !o.check.success;
    s.local_minima += o.status == SolveStatus::kLocalMinimum;
    s.unreachable += o.status == SolveStatus::kUnreachable;
    s.overruns += o.overran;
    if (budget_seconds > 0.0) {
      s.worst_overrun_ratio = std::max(
          s.worst_overrun_ratio, 1e-6 * o.microseconds / budget_seconds);
    }
  }
  // The reports' one definition of each statistic (lab/statistics.h); the
  // mean includes the failures, as TRAC-IK reports it.
  s.solve_rate = static_cast<double>(successes) / outcomes.size();
  s.mean_us = Mean(times);
  s.median_us = Median(times);
  s.p95_us = Percentile(times, 0.95);
  s.p99_us = Percentile(times, 0.99);
  s.mean_iterations = iterations / outcomes.size();
  return s;
}

}  // namespace iklab
