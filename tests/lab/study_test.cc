// Studies (lab/study.h): every solver solves the same trials, answers are
// verified independently of the solvers' own claims, results do not depend on
// the thread count, and bad study input is refused with a message naming what
// to fix.

#include "lab/study.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/position_goal.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "solvers/analytic/two_link_analytic.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/solvers/test_arms.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

std::shared_ptr<const Model> PlanarArm() {
  return std::make_shared<const Model>(PlanarChain({1.0, 0.8, 0.6}).Compile());
}

// The 7-DOF test arm with a second site at the elbow, for multi-site goals.
std::shared_ptr<const Model> ArmWithElbowSite() {
  Figure f = testing::SevenDofArmFigure();
  f.AddSite({"elbow", "link4", Eigen::Isometry3d::Identity()});
  return std::make_shared<const Model>(f.Compile());
}

Study PlanarStudy() {
  Study study;
  study.name = "planar";
  study.model = PlanarArm();
  study.goals = {GoalSpec::Position("effector")};
  study.trials = 20;
  study.time_budget_seconds = 0.0;  // bit-identical results need no budget
  LbfgsbOptions lbfgsb;
  DampedLeastSquaresOptions dls;
  dls.damping = 0.05;
  dls.common.max_iterations = 500;
  study.solvers = {Use("lbfgsb", lbfgsb), Use("dls", dls)};
  return study;
}

// A solver that claims convergence without moving: the study's own check
// must refuse every claim.
class LyingSolver final : public Solver {
 public:
  std::string name() const override { return "liar"; }
  Result Solve(const Problem&, const Eigen::VectorXd& q0) const override {
    Result r;
    r.status = SolveStatus::kConverged;
    r.message = "trust me";
    r.q = q0;
    return r;
  }
};

StudySolver Liar() {
  return {"liar",
          [](const SolveOptions&, const Trial&) {
            return std::make_unique<LyingSolver>();
          },
          1};
}

// A solver that stays at q0 and reports `status`.
class StoppingSolver final : public Solver {
 public:
  explicit StoppingSolver(SolveStatus status) : status_(status) {}
  std::string name() const override { return "stopper"; }
  Result Solve(const Problem&, const Eigen::VectorXd& q0) const override {
    Result r;
    r.status = status_;
    r.message = "stopped";
    r.q = q0;
    return r;
  }

 private:
  SolveStatus status_;
};

TEST_CASE("A study solves every trial with every solver and verifies each "
          "answer from FK",
          "[lab][study]") {
  const Study study = PlanarStudy();
  const StudyResult result = RunStudy(study);
  REQUIRE(result.records.size() == 2u * 20u);
  REQUIRE(result.summaries.size() == 2u);
  REQUIRE(result.goal_labels.size() == 1u);
  for (const StudyRecord& r : result.records) {
    REQUIRE(r.errors.size() == 1u);
    if (r.verified) {
      CHECK(r.status == SolveStatus::kConverged);
      CHECK(r.errors[0].position <= study.position_tolerance);
    }
  }
  // Random reachable targets on an unlimited planar arm: both solve them.
  CHECK(result.Summary("lbfgsb").success_rate >= 0.9);
  CHECK(result.Summary("dls").success_rate >= 0.9);
  CHECK(result.Summary("lbfgsb").false_claims == 0);
  CHECK(result.Summary("lbfgsb").median_us > 0.0);
}

TEST_CASE("A study's recorded error is the distance reached by FK at the "
          "returned pose",
          "[lab][study]") {
  Study study = PlanarStudy();
  const Eigen::Vector3d target(1.1, 0.9, 0.0);
  study.scenario = FixedGoals([&](Problem* problem) {
    problem->AddGoal(std::make_shared<PositionGoal>(problem->model(),
                                                    "effector", target));
  });
  study.trials = 6;
  JacobianTransposeOptions slow;  // stops short of the target at 3 iterations
  slow.common.max_iterations = 3;
  study.solvers.push_back(Use("transpose-3", slow));
  const StudyResult result = RunStudy(study);
  const Model& model = *study.model;
  const int site = model.SiteIndex("effector");
  for (const StudyRecord& r : result.records) {
    Data data(model);
    ForwardKinematics(model, r.q, &data);
    const double distance = (SitePosition(model, data, site) - target).norm();
    CHECK(r.errors[0].position == Approx(distance).margin(1e-15));
    CHECK(r.verified == (distance <= study.position_tolerance && r.claimed));
  }
  CHECK(result.Summary("transpose-3").successes < 6);
}

TEST_CASE("A scenario that makes no goals is refused: there is nothing to "
          "verify",
          "[lab][study]") {
  Study study = PlanarStudy();
  study.scenario = FixedGoals([](Problem*) {});
  REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("without goals"));
}

TEST_CASE("A study gives bit-identical answers on 1 and 3 threads",
          "[lab][study]") {
  Study one = PlanarStudy();
  Study three = PlanarStudy();
  three.threads = 3;
  const StudyResult a = RunStudy(one);
  const StudyResult b = RunStudy(three);
  REQUIRE(a.records.size() == b.records.size());
  for (std::size_t i = 0; i < a.records.size(); ++i) {
    CHECK(a.records[i].solver == b.records[i].solver);
    CHECK(a.records[i].trial == b.records[i].trial);
    CHECK(a.records[i].status == b.records[i].status);
    CHECK(a.records[i].iterations == b.records[i].iterations);
    CHECK(a.records[i].q0 == b.records[i].q0);
    CHECK(a.records[i].q == b.records[i].q);
  }
}

TEST_CASE("Every solver on every goal kind gives bit-identical answers on 1 "
          "and 2 threads when no time budget binds",
          "[lab][study]") {
  const auto model = ArmWithElbowSite();
  for (const GoalSpec& goal :
       {GoalSpec::Pose("tool", 0.4), GoalSpec::Aiming("tool", Eigen::Vector3d::UnitZ(), 0.5),
        GoalSpec::Plane("elbow"),
        GoalSpec::AnyOf({GoalSpec::Position("tool"), GoalSpec::Position("tool")})}) {
    Study study;
    study.name = "threads";
    study.model = model;
    study.goals = {goal};
    study.regularization.joint_centre_bias = 1e-9;
    // Every solver but IPOPT: its sequential MUMPS keeps process-wide state
    // between solves, so its answers may depend on the order of the solves
    // (seen once in a loaded suite run), and solves are serialized anyway.
    for (StudySolver& s : EverySolver()) {
      if (s.label != "ipopt") study.solvers.push_back(s);
    }
    study.solvers.push_back(Use("lbfgsb+restarts", LbfgsbOptions{}, 3));
    study.trials = 6;
    study.time_budget_seconds = 0.0;
    const StudyResult one = RunStudy(study);
    study.threads = 2;
    const StudyResult two = RunStudy(study);
    REQUIRE(one.records.size() == two.records.size());
    for (std::size_t i = 0; i < one.records.size(); ++i) {
      INFO(goal.Label() << ", " << study.solvers[one.records[i].solver].label
                        << ", trial " << one.records[i].trial);
      CHECK(one.records[i].status == two.records[i].status);
      CHECK(one.records[i].iterations == two.records[i].iterations);
      CHECK(one.records[i].q == two.records[i].q);
    }
  }
}

TEST_CASE("A solver capped at its first trials solves exactly those, on "
          "the same problems as the others",
          "[lab][study]") {
  Study study = PlanarStudy();
  study.trials = 6;
  study.solvers[1].max_trials = 3;
  study.threads = 2;
  const StudyResult result = RunStudy(study);
  const auto capped = result.Of(1);
  REQUIRE(capped.size() == 3u);
  for (int t = 0; t < 3; ++t) {
    CHECK(capped[t]->trial == t);
    CHECK(capped[t]->q0 == result.Of(0)[t]->q0);  // the same start, same trial
  }
  CHECK(result.Summary("dls").solves == 3);
  CHECK(result.Of(0).size() == 6u);
  study.solvers[1].max_trials = -1;
  REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("max_trials must be >= 0"));
}

TEST_CASE("A solver's false claim of convergence is caught and counted",
          "[lab][study]") {
  Study study = PlanarStudy();
  study.solvers = {Liar()};
  const StudyResult result = RunStudy(study);
  const SolverSummary& s = result.Summary("liar");
  CHECK(s.successes == 0);
  CHECK(s.false_claims == study.trials);
  for (const StudyRecord& r : result.records) {
    CHECK(r.claimed);
    CHECK_FALSE(r.verified);
  }
}

TEST_CASE("A study counts local minima and unreachable solves apart, in its "
          "summary and its table",
          "[lab][study]") {
  Study study = PlanarStudy();
  study.trials = 5;
  // Local minima on even trials, goals out of reach on odd ones.
  study.solvers = {{"stopper",
                    [](const SolveOptions&, const Trial& trial) {
                      return std::make_unique<StoppingSolver>(
                          trial.index % 2 == 0 ? SolveStatus::kLocalMinimum
                                               : SolveStatus::kUnreachable);
                    },
                    1}};
  const StudyResult result = RunStudy(study);
  const SolverSummary& s = result.Summary("stopper");
  using Count = std::pair<std::string, int>;
  CHECK(s.statuses == std::vector<Count>{{"local minimum", 3},
                                          {"unreachable", 2}});
  const auto dir = testing::ScratchPath("iklab_study_status_test");
  std::filesystem::remove_all(dir);
  ExperimentOutput out(dir);
  WriteStudyOutputs(study, result, &out);
  std::ifstream csv(dir / "solvers.csv");
  const std::string table((std::istreambuf_iterator<char>(csv)),
                          std::istreambuf_iterator<char>());
  CHECK_THAT(table, Catch::Contains("local minimum: 3; unreachable: 2"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Every goal kind a study generates is met at the trial's "
          "generating pose",
          "[lab][study]") {
  const auto model = ArmWithElbowSite();
  const std::vector<GoalSpec> kinds = {
      GoalSpec::Position("tool"),
      GoalSpec::Orientation("tool"),
      GoalSpec::Pose("tool", 0.4),
      GoalSpec::Axis("tool", Eigen::Vector3d::UnitZ()),
      GoalSpec::Aiming("tool", Eigen::Vector3d(1, 1, 0), 0.3),
      GoalSpec::Plane("elbow"),
      GoalSpec::WeightedSum({GoalSpec::Position("elbow", 2.0),
                             GoalSpec::Orientation("tool", 0.5)}),
      GoalSpec::Cone("tool", Eigen::Vector3d::UnitZ(), 0.1),
      GoalSpec::PositionBox("tool", 0.01),
      GoalSpec::Gaze("tool", Eigen::Vector3d(0, 1, 1), 0.05, 0.5),
      GoalSpec::OrientationBox("tool", 0.05),
      GoalSpec::PointDistance("tool", 0.3, 0.01),
      GoalSpec::SiteDistance("tool", "elbow", 0.01),
      GoalSpec::RelativePose("tool", "elbow", 0.4),
      GoalSpec::RelativePosition("elbow", "tool"),
      GoalSpec::JointRange({}, 0.3),
      GoalSpec::JointPosture({0, 2}),
      GoalSpec::WeightedSum({GoalSpec::Position("tool"),
                             GoalSpec::JointPosture({1})}),
      GoalSpec::AnyOf({GoalSpec::Position("tool"), GoalSpec::Position("tool"),
                       GoalSpec::Position("tool")}),
  };
  const Scenario scenario = RandomTargets(kinds);
  std::mt19937_64 rng(7);
  for (int k = 0; k < 10; ++k) {
    TrialContext context;
    context.model = model;
    context.index = k;
    context.rng = &rng;
    const Trial trial = scenario(context);
    REQUIRE(trial.problem.goals().size() == kinds.size());
    ProblemWorkspace ws(trial.problem);
    const auto errors = trial.problem.GoalErrors(trial.q_generator, &ws);
    for (std::size_t g = 0; g < errors.size(); ++g) {
      INFO(kinds[g].Label());
      CHECK(errors[g].position < 1e-12);
      CHECK(errors[g].angle < 1e-6);
      CHECK(errors[g].aim < 1e-12);
    }
    // The disjunction's other alternatives are elsewhere: only the first is
    // active at the generating pose.
    CHECK(errors.back().active_alternative == 0);
    // Away from it the joint goals report their errors, also inside a sum.
    Eigen::VectorXd moved = trial.q_generator;
    moved[1] += 0.5;
    const auto moved_errors = trial.problem.GoalErrors(moved, &ws);
    CHECK(moved_errors[kinds.size() - 4].angle == Approx(0.2));  // range ±0.3
    CHECK(moved_errors[kinds.size() - 2].angle == Approx(0.5));  // sum
  }
}

TEST_CASE("A solver that refuses a goal kind is reported as rejected with its "
          "reason",
          "[lab][study]") {
  Study study;
  study.name = "rejects";
  study.model = std::make_shared<const Model>(PlanarChain({1.0, 1.0}).Compile());
  study.goals = {GoalSpec::Pose("effector")};
  study.trials = 3;
  study.solvers = {Use("two-link", TwoLinkOptions{}), Use("lbfgsb", LbfgsbOptions{})};
  const StudyResult result = RunStudy(study);
  CHECK_FALSE(result.Summary("two-link").rejected.empty());
  CHECK(result.Summary("lbfgsb").rejected.empty());
}

TEST_CASE("Starting from the previous trial chains each solver's answers",
          "[lab][study]") {
  Study study = PlanarStudy();
  study.start = StartPose::kPreviousTrial;
  study.trials = 5;
  study.threads = 2;
  const StudyResult result = RunStudy(study);
  for (int s = 0; s < 2; ++s) {
    const auto records = result.Of(s);
    REQUIRE(records.size() == 5u);
    CHECK(records[0]->q0 == PlanarArm()->MidLimits());
    for (int t = 1; t < 5; ++t) CHECK(records[t]->q0 == records[t - 1]->q);
  }
}

TEST_CASE("A trajectory study solves and verifies every frame from the "
          "previous one",
          "[lab][study]") {
  Study study;
  study.name = "path";
  study.model = testing::SevenDofArm();
  study.scenario = HermiteToRandomTarget("tool", 10);
  study.start = StartPose::kMidLimits;
  study.trials = 3;
  study.time_budget_seconds = 0.0;
  DampedLeastSquaresOptions dls;
  dls.damping = 0.01;
  dls.common.max_iterations = 100;
  study.solvers = {Use("bounded-lm", BoundedLmOptions{}), Use("dls", dls)};
  const StudyResult result = RunStudy(study);
  REQUIRE(result.trajectory);
  REQUIRE(result.frames == 10);
  REQUIRE(result.records.size() == 2u * 3u * 10u);
  REQUIRE(result.first_trial_poses[0].size() == 11u);
  for (int s = 0; s < 2; ++s) {
    const auto records = result.Of(s);
    for (std::size_t i = 1; i < records.size(); ++i) {
      if (records[i]->trial == records[i - 1]->trial) {
        CHECK(records[i]->frame == records[i - 1]->frame + 1);
        CHECK(records[i]->q0 == records[i - 1]->q);
      }
    }
  }
  CHECK(result.Summary("bounded-lm").success_rate == 1.0);
  CHECK(result.Summary("bounded-lm").max_joint_step > 0.0);
}

TEST_CASE("A study runs bounded LM on the SIMD batch solver where it "
          "applies, with the scalar solver's verdicts, and says why not "
          "elsewhere",
          "[lab][study]") {
  Study study;
  study.name = "batched";
  study.model = testing::SevenDofArm();
  study.goals = {GoalSpec::Pose("tool", 0.4)};
  study.trials = 300;
  study.time_budget_seconds = 0.0;  // the batch solver has no budget
  study.traced_trials = 1;
  study.solvers = {Use("bounded-lm", BoundedLmOptions{}),
                   Use("lbfgsb", LbfgsbOptions{})};
  study.threads = 2;
  const StudyResult simd = RunStudy(study);
  REQUIRE_THAT(simd.summaries[0].method,
               Catch::StartsWith("simd-bounded-lm ("));
  CHECK(simd.summaries[1].method ==
        "scalar: the solver is lbfgsb, not bounded-lm");
  REQUIRE(simd.Of(0).size() == 300u);
  CHECK(simd.traces[0].size() == 1u);
  CHECK(simd.first_trial_poses[0].size() == 2u);

  // The same trials solved one by one (a scenario of the study's own takes
  // the scalar path): the same verdicts, within a hard trial or two.
  Study scalar = study;
  scalar.scenario = RandomTargets(study.goals);
  const StudyResult one_by_one = RunStudy(scalar);
  REQUIRE(one_by_one.summaries[0].method ==
          "scalar: the study has a scenario of its own");
  const SolverSummary& a = simd.summaries[0];
  const SolverSummary& b = one_by_one.summaries[0];
  CHECK(a.false_claims == 0);
  CHECK(b.false_claims == 0);
  CHECK(a.successes >= 297);
  CHECK(std::abs(a.successes - b.successes) <= 3);
  const auto batched = simd.Of(0);
  const auto single = one_by_one.Of(0);
  for (std::size_t t = 0; t < batched.size(); ++t) {
    REQUIRE(batched[t]->trial == static_cast<int>(t));
    CHECK(batched[t]->q0 == single[t]->q0);
    CHECK(batched[t]->targets == single[t]->targets);
    // A verified answer is one whatever solved it.
    if (batched[t]->verified) {
      CHECK(batched[t]->errors[0].position <= study.position_tolerance);
    }
  }

  // Threads do not change the batch's answers.
  study.threads = 1;
  const StudyResult serial = RunStudy(study);
  for (std::size_t t = 0; t < batched.size(); ++t) {
    CHECK(serial.Of(0)[t]->q == batched[t]->q);
  }

  // A time budget: the batch solver does not apply, and the study says so.
  study.time_budget_seconds = 0.005;
  study.trials = 5;
  const StudyResult budgeted = RunStudy(study);
  CHECK(budgeted.summaries[0].method ==
        "scalar: a time budget is set (the batch solver has none)");
}

TEST_CASE("Bad study input is refused with a message naming what to fix",
          "[lab][study]") {
  SECTION("an unknown site names the site and the model's sites") {
    Study study = PlanarStudy();
    study.goals = {GoalSpec::Position("hand")};
    REQUIRE_THROWS_WITH(RunStudy(study),
                        Catch::Contains("unknown site 'hand'") &&
                            Catch::Contains("effector"));
  }
  SECTION("zero trials") {
    Study study = PlanarStudy();
    study.trials = 0;
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("trials must be >= 1"));
  }
  SECTION("a NaN in a given start pose names the coordinate") {
    Study study = PlanarStudy();
    study.start = StartPose::kGiven;
    study.given_start = Eigen::VectorXd::Zero(3);
    study.given_start(1) = std::numeric_limits<double>::quiet_NaN();
    REQUIRE_THROWS_WITH(RunStudy(study),
                        Catch::Contains("given_start has a non-finite entry "
                                        "at coordinate 1"));
  }
  SECTION("a given start pose of the wrong size") {
    Study study = PlanarStudy();
    study.start = StartPose::kGiven;
    study.given_start = Eigen::VectorXd::Zero(5);
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("must have 3 entries"));
  }
  SECTION("no solvers, duplicate labels, no goals") {
    Study study = PlanarStudy();
    study.solvers.clear();
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("no solvers"));
    study.solvers = {Liar(), Liar()};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("two solvers are labelled 'liar'"));
    study.solvers = {Liar()};
    study.goals.clear();
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("no goals and no scenario"));
  }
  SECTION("a NaN tolerance or a negative regularizer") {
    Study study = PlanarStudy();
    study.position_tolerance = std::numeric_limits<double>::quiet_NaN();
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("position_tolerance"));
    study = PlanarStudy();
    study.regularization.tikhonov = -1.0;
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("regularization.tikhonov"));
  }
  SECTION("an aiming goal with a zero axis, a nested disjunction") {
    Study study = PlanarStudy();
    study.goals = {GoalSpec::Aiming("effector", Eigen::Vector3d::Zero(), 1.0)};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("axis must be"));
    study.goals = {GoalSpec::AnyOf({GoalSpec::AnyOf({GoalSpec::Position("effector")})})};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("cannot be nested"));
  }
  SECTION("two-site goals on one site or an unknown second site") {
    Study study = PlanarStudy();
    study.goals = {GoalSpec::SiteDistance("effector", "effector", 0.01)};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("must differ"));
    study.goals = {GoalSpec::RelativePose("effector", "hand")};
    REQUIRE_THROWS_WITH(RunStudy(study),
                        Catch::Contains("unknown other_site 'hand'"));
  }
  SECTION("joint goals on a missing or repeated coordinate, a bad width") {
    Study study = PlanarStudy();
    study.goals = {GoalSpec::JointPosture({3})};
    REQUIRE_THROWS_WITH(RunStudy(study),
                        Catch::Contains("coordinate 3 is outside [0, 3)"));
    study.goals = {GoalSpec::JointRange({0, 0}, 0.1)};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("listed twice"));
    study.goals = {GoalSpec::JointRange({}, -0.1)};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("half-width"));
    study.goals = {GoalSpec::OrientationBox("effector", 4.0)};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("(0, pi)"));
    study.goals = {GoalSpec::PointDistance("effector", 0.0, 0.01)};
    REQUIRE_THROWS_WITH(RunStudy(study), Catch::Contains("distance must be"));
  }
}

TEST_CASE("A study writes its per-trial CSV, table, JSON and pictures",
          "[lab][study]") {
  Study study = PlanarStudy();
  study.trials = 4;
  study.regularization.tikhonov = 1e-4;
  const StudyResult result = RunStudy(study);
  const auto dir = testing::ScratchPath("iklab_study_test");
  std::filesystem::remove_all(dir);
  ExperimentOutput out(dir);
  WriteStudyOutputs(study, result, &out);
  for (const char* file : {"trials.csv", "solvers.csv", "study.json",
                           "success.png", "time_cdf.png", "convergence.png"}) {
    INFO(file);
    CHECK(std::filesystem::exists(dir / file));
  }
  std::ifstream csv(dir / "trials.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header.rfind("solver,trial,frame,status,claimed,success", 0) == 0);
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  CHECK(rows == 2 * 4);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iklab
