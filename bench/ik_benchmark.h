#ifndef IKLAB_BENCH_IK_BENCHMARK_H_
#define IKLAB_BENCH_IK_BENCHMARK_H_

/// @file
/// The standard IK benchmark protocol on real robots (the one TRAC-IK and
/// others report): N random joint vectors within limits (continuous joints
/// in (−π, π]) → FK → target pose of the tip; every solver solves every
/// target from a seed pose (the middle of the limits, or a random pose);
/// success means every component of the position difference (model units,
/// metres for URDFs) and of the rotation vector log(R_target R_reachedᵀ)
/// (radians), both in the base frame, is ≤ 1e-5, with q within limits, inside
/// the per-solve time budget. Reported per robot and solver: solve rate, mean
/// time per solve *including failures* (TRAC-IK's definition), median, p95 and
/// p99, mean iterations.
///
/// Every success a solver claims is re-verified here by an independent FK
/// (ReferenceSitePose: plain Eigen AngleAxis products over the model, none of
/// the optimized kinematics code) and a limits check; a claimed success that
/// fails the check counts as a failure and is reported.
///
/// Collisions (`--collisions`, BenchmarkSettings::collisions). Targets come
/// from collision-free random configurations only (so each target has a
/// collision-free answer); every iklab solver gets the collision goal
/// (constraints/shape_collision.h) as a penalty beside the pose goal, so its
/// convergence test includes it; a success also needs the independent
/// clearance check: IndependentMinDistance ≥ −tolerance (the same 1e-5 m as
/// the position), computed from ReferenceStepPoses and FCL for every pair
/// (none of the solver's FK, and not the goal's closed forms). Solvers that
/// cannot take an extra goal (other libraries', the SIMD batch) are n/a.
///
/// Mimic joints. Solvers answer in the model's free coordinates; the check
/// expands them to the full joint vector (Model::FullConfiguration), verifies
/// every declared relation q_joint = a·q_leader + b on it, runs the
/// independent FK on it (every joint its own angle) and checks every joint,
/// mimics included, against its own limits. The per-target CSV reports the
/// full joint vector.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "bench/target_csv.h"
#include "framework/model.h"
#include "lab/collision_files.h"
#include "solvers/solver.h"

namespace iklab {

/// A robot of the benchmark: a URDF and the base → tip chain to solve.
struct BenchmarkRobot {
  std::string name;       ///< Short name, e.g. "panda".
  std::string urdf_path;  ///< Path of the URDF file.
  std::string base_link;
  std::string tip_link;
  /// Path of an MJCF file read instead of the URDF when not empty (base_link
  /// is then a body, tip_link a site or body: framework/mjcf_loader.h).
  std::string mjcf_path = {};
};

/// The shipped robot models (data/robots: Panda, iiwa14, Gen3, UR5, Baxter's
/// left arm, PR2's right arm) with their arm chains (6- and 7-DOF).
/// @param data_dir the folder holding robots/ (usually DataDirectory()).
std::vector<BenchmarkRobot> StandardRobots(const std::string& data_dir);

/// How seed poses are chosen.
enum class SeedMode { kMidLimits, kRandom };
const char* SeedModeName(SeedMode mode);

/// N targets: q uniform within limits (unbounded coordinates in (−π, π]),
/// FK of `site` → target; seeds per `mode` (random seeds drawn independently
/// of the targets). The same seed gives the same targets at any thread
/// count: the joint vectors are drawn in order from one stream (cheap), the
/// forward kinematics of the targets run in chunks on `threads` threads.
/// With `collisions`, configurations whose IndependentMinDistance is
/// negative are drawn again (at most 1000 draws per target).
/// @param threads worker threads, ≥ 1 (CheckThreadCount).
/// @throws std::invalid_argument when 1000 draws find no collision-free
///   configuration.
std::vector<BenchmarkTarget> GenerateTargets(
    const Model& model, int site, int count, std::uint64_t seed, SeedMode mode,
    int threads = 1, const CollisionSetup* collisions = nullptr);

/// Pose of `site` computed independently of kinematics.cc: a plain
/// recursion over the model's steps with Eigen AngleAxis/Translation
/// products, each step turned by its own entry of the full joint vector.
/// For verification, not speed.
/// @param q the full joint vector (model.nq_full() entries), or the free
///   coordinates (model.nq()), which are first expanded by
///   Model::FullConfiguration (the same vector when there are no mimics).
Eigen::Isometry3d ReferenceSitePose(const Model& model, int site,
                                    const Eigen::VectorXd& q);

/// World poses of every step, computed as ReferenceSitePose does.
AlignedVector<Eigen::Isometry3d> ReferenceStepPoses(const Model& model,
                                                    const Eigen::VectorXd& q);

/// Smallest signed distance over the checked pairs of `collisions` (its
/// enabled self pairs and every shape against every obstacle) at q: poses
/// from ReferenceStepPoses, distances from FCL for every pair
/// (MinDistanceFcl on those poses). +infinity when nothing is checked.
double IndependentMinDistance(const Model& model,
                              const CollisionSetup& collisions,
                              const Eigen::VectorXd& q);

/// Largest violation |q_full[joint] − (a·q_full[leader] + b)| of the model's
/// declared mimic relations (model.mimics()); 0 without mimic joints.
double MimicRelationError(const Model& model, const Eigen::VectorXd& q_full);

/// A relation holds when MimicRelationError ≤ this (rad or model length
/// units): q_full is computed from the composed relation, so the declared
/// one holds up to the rounding of a few products.
inline constexpr double kMimicRelationTolerance = 1e-9;

/// True when every entry of the full joint vector lies within its joint's own
/// limits (Model::full_lower/full_upper), up to kMimicRelationTolerance:
/// a free coordinate on a limit that a mimic's limit put there, (l − b)/a,
/// gives back a·q + b within rounding of l, not exactly l.
bool FullWithinLimits(const Model& model, const Eigen::VectorXd& q_full);

/// Independent verification of one answer.
struct Verification {
  /// Largest component of p_target − p_reached (model units).
  double position_error = 0.0;
  /// Largest component of the rotation vector of R_target R_reachedᵀ (rad).
  double rotation_error = 0.0;
  /// Every joint of the full joint vector within its own limits.
  bool within_limits = false;
  /// MimicRelationError of the full joint vector.
  double mimic_error = 0.0;
  /// IndependentMinDistance (+infinity without collisions).
  double min_distance = std::numeric_limits<double>::infinity();
  bool success = false;
};

/// Checks q against the target with ReferenceSitePose and the model limits.
/// With `collisions`, success also needs min_distance ≥ −tolerance.
Verification Verify(const Model& model, int site, const Eigen::VectorXd& q,
                    const Eigen::Isometry3d& target, double tolerance,
                    const CollisionSetup* collisions = nullptr);

/// Solves one target: the site pose X_BT in the base frame, from `seed`
/// (model order). This call is what RunTargets times. One is made per worker
/// thread and called for that thread's targets only, so it may keep scratch
/// state between calls — but its answer must depend only on (X_BT, seed), not
/// on the targets solved before (a restart generator is seeded per call), so
/// that the outcomes do not depend on how targets fall to threads. The
/// Result's status (kConverged = the solver claims success), q and iterations
/// are what the benchmark reads.
using TargetSolve = std::function<Result(const Eigen::Isometry3d& X_BT,
                                         const Eigen::VectorXd& seed)>;

struct TargetOutcome;

/// A solver under test: a name and a factory that makes one TargetSolve per
/// worker thread for the tip `site` of `model`, binding the protocol's time
/// budget (seconds) and success tolerance. iklab solvers enter through
/// IklabBenchmarkSolver; other libraries' solvers implement TargetSolve
/// directly (kdl_baselines.h), so both go through the same RunTargets,
/// Verify and Summarize.
struct BenchmarkSolver {
  std::string name;
  std::function<TargetSolve(const std::shared_ptr<const Model>& model,
                            int site, double time_budget_seconds,
                            double tolerance)>
      make;
  /// For solvers of a kinematic family only (e.g. the 6R analytic solver):
  /// returns "" when the solver applies to the chain root → `site` of
  /// `model`, else the reason it does not (the robot is then reported n/a
  /// for this solver and not run). Unset: applies to every robot.
  std::function<std::string(const Model& model, int site)> not_applicable;
  /// Set for a solver that takes all targets at once (the SIMD batch
  /// solver): RunTargets hands it every target and the settings, and checks
  /// its answers as any other's; `make` is then unused. Each outcome's
  /// microseconds is its share of the batch's wall time.
  std::function<std::vector<TargetOutcome>(
      const std::shared_ptr<const Model>& model, int site,
      const std::vector<BenchmarkTarget>& targets, int threads,
      double tolerance)>
      batch;
  /// Set for iklab solvers: as `make`, with `extra` goals added to each
  /// thread's problem beside the pose goal (the collision goal of
  /// --collisions). Unset: the solver is n/a with collisions.
  std::function<TargetSolve(const std::shared_ptr<const Model>& model,
                            int site, double time_budget_seconds,
                            double tolerance,
                            const std::vector<std::shared_ptr<Goal>>& extra)>
      make_with_goals;
};

/// "bounded-lm-simd": bounded LM (the benchmark's options, no time budget of
/// its own) through SolveBatch's SIMD batch solver (solvers/batch/simd_lm.h),
/// several targets per core at once. Not among PoseSolvers(): `iklab bench
/// --simd` adds it.
BenchmarkSolver SimdBenchmarkSolver();

/// solver.not_applicable(model, site), or "" when unset.
std::string NotApplicable(const BenchmarkSolver& solver, const Model& model,
                          int site);

/// An iklab Solver in the benchmark: per thread, a Problem with one
/// PositionOrientationGoal on the site (rotation weighted 0.4 against
/// length, w_o = 0.4²) and a solver from `make(budget, tolerance)`; each
/// TargetSolve sets the goal's target and calls Solver::Solve.
BenchmarkSolver IklabBenchmarkSolver(
    std::string name,
    std::function<std::unique_ptr<Solver>(double time_budget_seconds,
                                          double tolerance)>
        make);

/// Every iklab solver that applies to a full-pose goal on a serial arm, with
/// the options the benchmark uses (stated in each factory).
std::vector<BenchmarkSolver> PoseSolvers();

/// Solvers of other libraries built into this binary, for side-by-side
/// comparison: KDL's "kdl-lma" and "kdl-nr-jl" when CMake found orocos_kdl
/// (kdl_baselines.h); empty otherwise (see KdlBaselinesBuilt).
std::vector<BenchmarkSolver> BaselineSolvers();

/// True when the KDL baselines were built (liborocos-kdl-dev was found at
/// configure time).
bool KdlBaselinesBuilt();

/// Settings of a benchmark run.
struct BenchmarkSettings {
  int targets = 1000;
  std::uint64_t seed = 1;
  double time_budget_seconds = 0.005;
  /// Success tolerance on each component (m and rad).
  double tolerance = 1e-5;
  /// Collision setup (shapes, enabled self pairs, obstacles), or null.
  std::shared_ptr<const CollisionSetup> collisions;
  /// Worker threads (one model; one problem, goal and solver per thread;
  /// targets handed out dynamically). The outcomes do not depend on it.
  int threads = 1;
};

/// Per-target outcome.
struct TargetOutcome {
  SolveStatus status = SolveStatus::kNotSolved;
  /// The solver said converged.
  bool claimed = false;
  /// Independent verification passed (and the solver claimed success).
  bool success = false;
  double microseconds = 0.0;
  int iterations = 0;
  /// The solve took longer than the time budget (the solver checks its
  /// budget between bounded units of work, or the OS preempted the thread).
  /// Such outcomes depend on timing, so a run with overruns is not
  /// bit-reproducible.
  bool overran = false;
  /// The solver's message when it reported kInvalidInput (empty otherwise).
  std::string invalid_input;
  Verification check;
  /// The answer in free coordinates (the model's q).
  Eigen::VectorXd q;
};

/// Summary of one solver on one target set.
struct BenchmarkSummary {
  std::string robot;
  std::string solver;
  std::string seed_mode;
  int dofs = 0;
  int targets = 0;
  double solve_rate = 0.0;        ///< successes / targets
  double mean_us = 0.0;           ///< over all targets, failures included
  double median_us = 0.0;
  double p95_us = 0.0;
  double p99_us = 0.0;
  double mean_iterations = 0.0;
  /// Solver claimed success but the independent check disagreed.
  int false_claims = 0;
  /// Solves that ended kLocalMinimum (stopped short at a point that is not a
  /// solution) and kUnreachable (the goal shown out of reach: the protocol's
  /// targets are FK of poses within the limits, so 0 unless a solver's
  /// evidence is wrong), counted apart (solvers/solver.h).
  int local_minima = 0;
  int unreachable = 0;
  /// Solves that overran the time budget (TargetOutcome::overran).
  int overruns = 0;
  /// Largest wall time of a solve over the budget (1 = on budget); 0 when
  /// no budget was given.
  double worst_overrun_ratio = 0.0;
};

class OutcomesCsvWriter;

/// Solves every target with `solver` on the tip site of `model` and verifies
/// every answer independently (Verify); a claimed success counts only if the
/// check passes and the answer came within the time budget.
///
/// A pipeline over chunks of consecutive targets (TBB, `settings.threads`
/// threads): each chunk is solved (one TargetSolve per worker thread, made
/// outside the timed calls), verified and — with a `writer` — formatted on
/// whichever thread takes it; the chunks' rows are written in target order
/// as they are finished, so the per-target CSV streams out while later
/// targets are solved and its bytes do not depend on the thread count
/// (except the measured times). Outcomes are in target order whatever the
/// thread count. A batch solver (BenchmarkSolver::batch) solves all targets
/// first; its answers are then verified and written in the same pipeline.
/// @param progress called with the number of targets done, in increasing
///   order, from one thread at a time.
/// @param writer the per-target CSV to stream the outcomes into, or null.
/// @throws std::invalid_argument for bad settings or a target whose seed
///   does not have model->nq() finite entries; whatever a solve throws
///   (std::bad_alloc, say), on the calling thread whatever the thread count
///   (the pipeline stops taking chunks and rethrows the first exception once
///   its threads are done); std::runtime_error if writing fails.
std::vector<TargetOutcome> RunTargets(
    const std::shared_ptr<const Model>& model, int site,
    const std::vector<BenchmarkTarget>& targets,
    const BenchmarkSolver& solver, const BenchmarkSettings& settings,
    const std::function<void(int)>& progress = {},
    OutcomesCsvWriter* writer = nullptr);

/// Aggregates outcomes.
/// @param budget_seconds the per-solve budget the outcomes ran under (for
///   worst_overrun_ratio); ≤ 0 for none.
BenchmarkSummary Summarize(const std::string& robot, const std::string& solver,
                           const std::string& seed_mode, int dofs,
                           const std::vector<TargetOutcome>& outcomes,
                           double budget_seconds = 0.0);

/// Writes targets in the format ReadTargetsCsv reads. Numbers are written
/// in their shortest form that reads back to the same double; rows are
/// formatted in chunks on `threads` threads (≥ 1) and written in order, so
/// the file's bytes do not depend on the thread count.
/// @throws std::runtime_error if the file cannot be written.
void WriteTargetsCsv(const std::string& path, const Model& model,
                     const std::vector<BenchmarkTarget>& targets,
                     int threads = 1);

/// The per-target results file: per row the target index, solver, status,
/// success, µs, iterations, position and rotation errors, within_limits,
/// then the answer as the full joint vector (mimic joints included). Numbers
/// are written in their shortest form that reads back to the same double.
/// Format() may run on several threads at once; Write() takes the formatted
/// rows in target order.
class OutcomesCsvWriter {
 public:
  /// Opens `path` (appending to an earlier solver's rows when `append`,
  /// else truncating and writing the header).
  /// @throws std::runtime_error if the file cannot be opened.
  OutcomesCsvWriter(const std::string& path, const Model& model,
                    std::string solver, bool append);

  /// Appends the rows of outcomes[0, count), numbered from `first`, to
  /// *text. Thread-safe; allocates nothing but *text's growth.
  void Format(std::size_t first, const TargetOutcome* outcomes,
              std::size_t count, std::string* text) const;

  /// Writes formatted rows. @throws std::runtime_error if writing fails.
  void Write(const std::string& text);

  /// Flushes and closes. @throws std::runtime_error if writing failed.
  void Close();

  /// Closes without checking (an unclosed writer after an exception).
  ~OutcomesCsvWriter();
  OutcomesCsvWriter(const OutcomesCsvWriter&) = delete;
  OutcomesCsvWriter& operator=(const OutcomesCsvWriter&) = delete;

 private:
  std::string path_;
  const Model* model_;
  std::string solver_;
  std::FILE* file_ = nullptr;
  bool failed_ = false;
};

/// Writes per-target results (OutcomesCsvWriter's format), the rows
/// formatted in chunks on `threads` threads (≥ 1) and written in order.
/// @throws std::runtime_error if the file cannot be written.
void WriteOutcomesCsv(const std::string& path, const Model& model,
                      const std::string& solver,
                      const std::vector<TargetOutcome>& outcomes,
                      bool append, int threads = 1);

}  // namespace iklab

#endif  // IKLAB_BENCH_IK_BENCHMARK_H_
