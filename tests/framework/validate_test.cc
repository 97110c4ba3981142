// One rule per input kind (framework/validate.h) and worker threads that the
// system refuses to start (framework/worker_threads.h): the same rule and
// message on every surface, and an error instead of std::terminate.

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/validate.h"
#include "framework/worker_threads.h"
#include "lab/study.h"
#include "reach/process_group.h"
#include "reach/reach_map.h"
#include "reach/reach_run.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

constexpr const char* kThreadRule = "must be >= 1, got 0 (worker threads";

TEST_CASE(
    "A thread count must be at least 1 and is capped at the machine's "
    "hardware threads",
    "[framework]") {
  CHECK(MaxWorkerThreads() >= 1);
  CHECK(CheckThreadCount(1, "threads") == 1);
  CHECK(CheckThreadCount(100000, "threads") == MaxWorkerThreads());
  CHECK(CheckThreadCount(std::numeric_limits<std::int64_t>::max(), "t") ==
        MaxWorkerThreads());
  for (const std::int64_t bad : {std::int64_t{0}, std::int64_t{-3}}) {
    REQUIRE_THROWS_AS(CheckThreadCount(bad, "--threads"),
                      std::invalid_argument);
    REQUIRE_THROWS_WITH(CheckThreadCount(bad, "--threads"),
                        Contains("--threads must be >= 1, got " +
                                 std::to_string(bad) + " (worker threads"));
  }
}

// A 7-DOF problem with one position goal and `items` reachable targets.
struct PositionBatch {
  std::shared_ptr<const Model> model = testing::SevenDofArm();
  Problem problem{model};
  RowMatrixXd targets;
  RowMatrixXd starts;
  explicit PositionBatch(int items)
      : targets(items, 3), starts(items, model->nq()) {
    problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                   Eigen::Vector3d::Zero()));
    std::mt19937_64 rng(5);
    for (int i = 0; i < items; ++i) {
      targets.row(i) = testing::SitePoseAt(*model, "tool",
                                           testing::UniformPose(*model, &rng))
                           .translation()
                           .transpose();
      starts.row(i) = testing::UniformPose(*model, &rng).transpose();
    }
  }
};

TEST_CASE(
    "threads = 0 is refused with the same rule by SolveBatch, "
    "RunStudy, the benchmark and RunReach",
    "[framework][solvers][study]") {
  PositionBatch batch(2);
  BatchOptions options;
  options.threads = 0;
  REQUIRE_THROWS_WITH(
      SolveBatch(BoundedLmSolver(), batch.problem, batch.targets, batch.starts,
                 options),
      Contains("BatchOptions::threads") && Contains(kThreadRule));

  Study study;
  study.name = "threads";
  study.model = batch.model;
  study.goals = {GoalSpec::Position("tool")};
  study.trials = 2;
  study.solvers = {Use("lbfgsb", LbfgsbOptions{})};
  study.threads = 0;
  REQUIRE_THROWS_WITH(RunStudy(study),
                      Contains("threads") && Contains(kThreadRule));

  // The benchmark clamped 0 to 1 before.
  BenchmarkSettings settings;
  settings.threads = 0;
  std::vector<BenchmarkTarget> targets(1);
  targets[0].seed = Eigen::VectorXd::Zero(batch.model->nq());
  targets[0].target = Eigen::Isometry3d::Identity();
  const int site = batch.model->SiteIndex("tool");
  REQUIRE_THROWS_WITH(
      RunTargets(batch.model, site, targets, PoseSolvers()[0], settings),
      Contains("BenchmarkSettings::threads") && Contains(kThreadRule));

  const ReachTask task(batch.model, "tool", ReachSettings{});
  const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
  ReachRunOptions reach_options;
  reach_options.threads = 0;
  REQUIRE_THROWS_WITH(
      RunReach(task, "arm", "base", local.get(), reach_options),
      Contains("RunReach: threads") && Contains(kThreadRule));
}

TEST_CASE(
    "Thousands of requested threads solve a batch and a study with "
    "the answers of one thread",
    "[framework][solvers][study]") {
  PositionBatch batch(6);
  BatchOptions one, many;
  many.threads = 5000;  // before: 5000 problem copies and 4999 threads
  const BoundedLmSolver solver;
  const BatchResult a =
      SolveBatch(solver, batch.problem, batch.targets, batch.starts, one);
  const BatchResult b =
      SolveBatch(solver, batch.problem, batch.targets, batch.starts, many);
  CHECK(a.q == b.q);
  CHECK(a.status == b.status);

  Study study;
  study.name = "many threads";
  study.model = batch.model;
  study.goals = {GoalSpec::Position("tool")};
  study.trials = 4;
  study.time_budget_seconds = 0.0;
  study.solvers = {Use("lbfgsb", LbfgsbOptions{})};
  const StudyResult serial = RunStudy(study);
  study.threads = 5000;
  const StudyResult parallel = RunStudy(study);
  REQUIRE(serial.records.size() == parallel.records.size());
  for (std::size_t i = 0; i < serial.records.size(); ++i) {
    CHECK(serial.records[i].q == parallel.records[i].q);
  }
}

// Runs `body` in a child process whose address space is limited to what it
// uses now plus 4 MB, and whose new threads ask for 64 MB stacks (so that
// none of the stacks glibc keeps from threads of earlier tests fits): no
// thread stack can be mapped, and std::thread throws std::system_error.
// Returns the child's exit status (waitpid's), so a std::terminate shows as
// SIGABRT.
template <typename Body>
int InChildWithoutRoomForThreads(const Body& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit = static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) +
                         (rlim_t{4} << 20);
    pthread_attr_t attributes;
    ::pthread_attr_init(&attributes);
    ::pthread_attr_setstacksize(&attributes, std::size_t{64} << 20);
    if (::pthread_setattr_default_np(&attributes) != 0) ::_exit(3);
    const rlimit lowered{limit, limit};
    if (::setrlimit(RLIMIT_AS, &lowered) != 0) ::_exit(3);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST_CASE(
    "A worker thread the system refuses to start is an exception that "
    "names the call, never std::terminate",
    "[framework]") {  // not under valgrind: its own address space
                      // would not fit the lowered limit
  // RunWorkerThreads itself, with more threads than the address space has
  // stacks for.
  const int status = InChildWithoutRoomForThreads([] {
    std::atomic<bool> stopped{false};
    try {
      RunWorkerThreads(
          64, [](int) {}, [&] { stopped = true; }, "the test");
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      return message.find("the test: could not start worker thread") !=
                         std::string::npos &&
                     stopped
                 ? 0
                 : 1;
    }
    return 2;  // every thread started: the limit did not bite
  });
  INFO("child status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  // SolveBatch and RunStudy on the same limit (before: "terminate called
  // without an active exception", SIGABRT). Needs two hardware threads.
  if (MaxWorkerThreads() >= 2) {
    const int batch_status = InChildWithoutRoomForThreads([] {
      PositionBatch batch(4);
      BatchOptions options;
      options.threads = 2;
      // One item per hand-out (the SIMD path hands out chunks of hundreds,
      // so 4 items would start one thread).
      options.simd = false;
      try {
        SolveBatch(BoundedLmSolver(), batch.problem, batch.targets,
                   batch.starts, options);
      } catch (const std::runtime_error& e) {
        return std::string(e.what()).find("SolveBatch: could not start") !=
                       std::string::npos
                   ? 0
                   : 1;
      }
      return 2;
    });
    INFO("SolveBatch child status " << batch_status);
    REQUIRE(WIFEXITED(batch_status));
    CHECK(WEXITSTATUS(batch_status) == 0);
  }
}

TEST_CASE("A tolerance must be finite and positive, a budget not NaN",
          "[framework]") {
  CHECK_NOTHROW(CheckTolerance(1e-6, "tolerance"));
  for (const double bad :
       {std::nan(""), 0.0, -1e-3, std::numeric_limits<double>::infinity()}) {
    REQUIRE_THROWS_WITH(CheckTolerance(bad, "--tolerance"),
                        Contains("--tolerance must be a finite number > 0"));
  }
  CHECK_NOTHROW(CheckTimeBudget(0.0, "budget"));
  CHECK_NOTHROW(CheckTimeBudget(-1.0, "budget"));
  REQUIRE_THROWS_WITH(CheckTimeBudget(std::nan(""), "time_budget_seconds"),
                      Contains("time_budget_seconds must be a number"));
}

TEST_CASE(
    "A quaternion must be finite and non-zero: a zero quaternion is "
    "never read as the identity",
    "[framework]") {
  const Eigen::Quaterniond q = CheckQuaternion(2, 0, 0, 2, "target");
  CHECK(q.norm() == Approx(1.0));
  CHECK(q.w() == Approx(std::sqrt(0.5)));
  REQUIRE_THROWS_WITH(CheckQuaternion(0, 0, 0, 0, "target"),
                      Contains("target (quaternion w x y z) must have a norm"));
  REQUIRE_THROWS_WITH(CheckQuaternion(1, std::nan(""), 0, 0, "target"),
                      Contains("must be finite"));

  // SolveBatch applies it to every row.
  PositionBatch batch(1);
  Problem pose_problem(batch.model);
  pose_problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *batch.model, "tool", Eigen::Isometry3d::Identity()));
  RowMatrixXd poses(1, 7);
  poses << 0.3, 0.1, 0.5, 0, 0, 0, 0;
  REQUIRE_THROWS_WITH(
      SolveBatch(BoundedLmSolver(), pose_problem, poses, batch.starts),
      Contains("targets row 0 columns 3..6 (quaternion w x y z) must have a "
               "norm"));
}

TEST_CASE(
    "A 4x4 pose needs the bottom row 0 0 0 1 and an orthonormal "
    "rotation; a transposed pose is named as such",
    "[framework]") {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized())
                   .toRotationMatrix();
  X.translation() = Eigen::Vector3d(0.4, -0.2, 1.5);
  const Eigen::Isometry3d checked = CheckPose(X.matrix(), "target");
  CHECK(checked.isApprox(X, 1e-12));

  REQUIRE_THROWS_WITH(CheckPose(X.matrix().transpose(), "target"),
                      Contains("target must be a rigid pose") &&
                          Contains("bottom row is (0.4") &&
                          Contains("looks transposed"));
  Eigen::Matrix4d scaled = X.matrix();
  scaled.topLeftCorner<3, 3>() *= 1.1;
  REQUIRE_THROWS_WITH(CheckPose(scaled, "target"),
                      Contains("rotation block is not orthonormal"));
  Eigen::Matrix4d mirrored = X.matrix();
  mirrored.col(0) *= -1.0;
  REQUIRE_THROWS_WITH(CheckPose(mirrored, "target"), Contains("reflection"));
  Eigen::Matrix4d nan = X.matrix();
  nan(1, 3) = std::nan("");
  REQUIRE_THROWS_WITH(CheckPose(nan, "target"), Contains("non-finite"));
}

TEST_CASE(
    "An item count beyond int is refused by name, and so is a study "
    "whose trials times solvers overflow int",
    "[framework][study]") {
  CHECK(CheckItemCount(5, "targets") == 5);
  REQUIRE_THROWS_WITH(CheckItemCount(std::int64_t{1} << 33, "targets"),
                      Contains("targets must be between 0 and 2147483647") &&
                          Contains("got 8589934592"));
  Study study;
  study.name = "huge";
  study.model = testing::SevenDofArm();
  study.goals = {GoalSpec::Position("tool")};
  study.trials = std::numeric_limits<int>::max();
  study.solvers = {Use("lbfgsb", LbfgsbOptions{}),
                   Use("lbfgsb-2", LbfgsbOptions{})};
  // Before: an int overflow, then a std::vector length error.
  REQUIRE_THROWS_WITH(study.Validate(),
                      Contains("trials x solvers (2147483647 x 2)") &&
                          Contains("must be between 0 and 2147483647"));
}

}  // namespace
}  // namespace iklab
