// The KDL baselines of the benchmark: chain equivalence, KDL's answers
// through the benchmark's independent verification, limits. Compiled always;
// without KDL (IKLAB_HAVE_KDL undefined) only the "not built" behaviour is
// tested.

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <string>

#include "bench/ik_benchmark.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

#ifdef IKLAB_HAVE_KDL
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/jntarray.hpp>

#include "bench/kdl_baselines.h"
#endif

namespace iklab {
namespace {

#ifdef IKLAB_HAVE_KDL

Eigen::Isometry3d FromKdl(const KDL::Frame& frame) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (int r = 0; r < 3; ++r) {
    X.translation()[r] = frame.p(r);
    for (int c = 0; c < 3; ++c) X.linear()(r, c) = frame.M(r, c);
  }
  return X;
}

// KDL's own FK of the chain at q (model order).
Eigen::Isometry3d KdlSitePose(const KdlChain& kdl, const Eigen::VectorXd& q) {
  KDL::ChainFkSolverPos_recursive fk(kdl.chain);
  KDL::JntArray joints(kdl.chain.getNrOfJoints());
  for (size_t k = 0; k < kdl.coordinates.size(); ++k) {
    joints(k) = q[kdl.coordinates[k]];
  }
  KDL::Frame frame;
  REQUIRE(fk.JntToCart(joints, frame) >= 0);
  return FromKdl(frame);
}

double MaxDifference(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
  return (a.matrix() - b.matrix()).cwiseAbs().maxCoeff();
}

std::shared_ptr<const Model> LoadRobot(const std::string& name, int* site) {
  for (const BenchmarkRobot& r : StandardRobots(testing::ShippedDataFile(""))) {
    if (r.name != name) continue;
    const UrdfFigure urdf = LoadUrdfChain(r.urdf_path, r.base_link, r.tip_link);
    auto model = std::make_shared<const Model>(urdf.figure.Compile());
    *site = model->SiteIndex(r.tip_link);
    return model;
  }
  FAIL("no benchmark robot named " << name);
  return nullptr;
}

const BenchmarkSolver& Baseline(const std::vector<BenchmarkSolver>& solvers,
                                const std::string& name) {
  for (const BenchmarkSolver& s : solvers) {
    if (s.name == name) return s;
  }
  FAIL("no baseline named " << name);
  return solvers.front();
}

TEST_CASE(
    "KDL's FK of the chain built from the model equals iklab's FK on "
    "every benchmark robot",
    "[experiments][kdl]") {
  std::mt19937 rng(23);
  for (const BenchmarkRobot& r : StandardRobots(testing::ShippedDataFile(""))) {
    CAPTURE(r.name);
    const Model model =
        LoadUrdfChain(r.urdf_path, r.base_link, r.tip_link).figure.Compile();
    const int site = model.SiteIndex(r.tip_link);
    const KdlChain kdl = MakeKdlChain(model, site);
    REQUIRE(static_cast<int>(kdl.chain.getNrOfJoints()) == model.nq());
    Data data(model);
    for (int trial = 0; trial < 50; ++trial) {
      // Within limits, and also far outside them: the kinematics must agree
      // for any q, not only for q the limits allow.
      Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
      if (trial % 2 == 1) q *= 3.0;
      ForwardKinematics(model, q, &data);
      CHECK(MaxDifference(KdlSitePose(kdl, q), SitePose(model, data, site)) <
            1e-12);
    }
  }
}

TEST_CASE(
    "KDL's FK of the chain equals iklab's FK on random chains with "
    "prismatic, spherical, floating and fixed joints",
    "[experiments][kdl]") {
  std::mt19937 rng(5);
  testing::RandomFigureOptions options;
  options.branching = 0.0;  // a chain
  options.num_sites = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Figure figure = testing::RandomFigure(&rng, options);
    const Model bare = figure.Compile();
    Site tip{"tip", bare.link_name(bare.num_links() - 1),
             Eigen::Isometry3d::Identity()};
    tip.X_LS =
        Eigen::AngleAxisd(0.3 * trial, Eigen::Vector3d(1, 2, 3).normalized());
    tip.X_LS.translation() = Eigen::Vector3d(0.1, -0.2, 0.05 * trial);
    figure.AddSite(tip);
    const Model model = figure.Compile();
    const int site = model.SiteIndex("tip");
    const KdlChain kdl = MakeKdlChain(model, site);
    Data data(model);
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    ForwardKinematics(model, q, &data);
    CHECK(MaxDifference(KdlSitePose(kdl, q), SitePose(model, data, site)) <
          1e-12);
  }
}

TEST_CASE(
    "MakeKdlChain rejects a site whose path does not drive every "
    "coordinate",
    "[experiments][kdl]") {
  Figure figure("base");
  Joint left;
  left.name = "left";
  left.parent = "base";
  left.child = "left_link";
  figure.AddJoint(left);
  Joint right = left;
  right.name = "right";
  right.child = "right_link";
  figure.AddJoint(right);
  figure.AddSite({"hand", "left_link", Eigen::Isometry3d::Identity()});
  const Model model = figure.Compile();
  REQUIRE_THROWS_WITH(MakeKdlChain(model, 0),
                      Catch::Contains("drives 1 of the model's 2 coordinates"));
  REQUIRE_THROWS_WITH(MakeKdlChain(model, 3),
                      Catch::Contains("site index 3 is out of range"));
}

TEST_CASE(
    "The KDL baselines solve reachable iiwa targets and the benchmark's "
    "verification agrees with their claims",
    "[experiments][kdl]") {
  int site = -1;
  const auto model = LoadRobot("iiwa14", &site);
  const auto targets = GenerateTargets(*model, site, 20, 11, SeedMode::kRandom);
  BenchmarkSettings settings;
  // A loose budget: this asserts correctness, not speed (sanitizer builds
  // are slow).
  settings.time_budget_seconds = 0.5;
  const auto baselines = BaselineSolvers();
  REQUIRE(KdlBaselinesBuilt());
  REQUIRE(baselines.size() == 2);
  for (const std::string name : {"kdl-lma", "kdl-nr-jl"}) {
    CAPTURE(name);
    const auto outcomes =
        RunTargets(model, site, targets, Baseline(baselines, name), settings);
    int claimed = 0, successes = 0;
    for (const TargetOutcome& o : outcomes) {
      claimed += o.claimed;
      successes += o.success;
      CHECK(o.q.size() == model->nq());
      if (!o.claimed) continue;
      CHECK(o.iterations >= 0);
      // KDL's success test implies the protocol's pose test, and the
      // independent FK agrees with KDL's own.
      CHECK(o.check.position_error <= settings.tolerance);
      CHECK(o.check.rotation_error <= settings.tolerance);
      // NR_JL clamps to the limits, so its answers are always within them;
      // a claimed success fails only on the limits (LMA ignores them).
      if (name == "kdl-nr-jl") CHECK(o.check.within_limits);
      CHECK(o.success == o.check.within_limits);
    }
    // Restarts within 0.5 s find an answer KDL accepts for nearly every
    // target; NR_JL's answers pass the whole check.
    CHECK(claimed >= 18);
    if (name == "kdl-nr-jl") CHECK(successes >= 18);
  }
}

TEST_CASE("A KDL solve from the answer itself returns it without iterating",
          "[experiments][kdl]") {
  int site = -1;
  const auto model = LoadRobot("panda", &site);
  const Eigen::VectorXd q = model->MidLimits();
  const Eigen::Isometry3d target = ReferenceSitePose(*model, site, q);
  for (KdlMethod method : {KdlMethod::kLma, KdlMethod::kNrJl}) {
    KdlOptions options;
    options.method = method;
    KdlBaselineSolver solver(model, site, options);
    const Result result = solver.Solve(target, q);
    CHECK(result.status == SolveStatus::kConverged);
    CHECK(result.attempts == 1);
    CHECK(result.iterations == 0);
    CHECK((result.q - q).cwiseAbs().maxCoeff() == 0.0);
    const Result bad = solver.Solve(target, Eigen::VectorXd::Zero(3));
    CHECK(bad.status == SolveStatus::kInvalidInput);
    CHECK_THAT(bad.message, Catch::Contains("must have 7 finite coordinates"));
  }
}

TEST_CASE("A KDL answer outside the joint limits counts as a failure",
          "[experiments][kdl]") {
  int site = -1;
  const auto model = LoadRobot("iiwa14", &site);
  // A pose reachable only with joint 2 0.4 rad beyond its upper limit; LMA
  // (which ignores limits) started next to it converges to it and claims
  // success.
  Eigen::VectorXd q_out_of_limits = model->MidLimits();
  q_out_of_limits[1] = model->upper()[1] + 0.4;
  q_out_of_limits[3] = 0.5;
  REQUIRE_FALSE(model->WithinLimits(q_out_of_limits));
  BenchmarkTarget target;
  target.target = ReferenceSitePose(*model, site, q_out_of_limits);
  target.seed = q_out_of_limits + Eigen::VectorXd::Constant(7, 1e-3);
  BenchmarkSettings settings;
  settings.time_budget_seconds = 0.05;
  const auto baselines = BaselineSolvers();
  const auto lma = RunTargets(model, site, {target},
                              Baseline(baselines, "kdl-lma"), settings);
  REQUIRE(lma.size() == 1);
  CHECK(lma[0].claimed);
  CHECK(lma[0].check.position_error <= settings.tolerance);
  CHECK(lma[0].check.rotation_error <= settings.tolerance);
  CHECK_FALSE(lma[0].check.within_limits);
  CHECK_FALSE(lma[0].success);
  const BenchmarkSummary s =
      Summarize("iiwa14", "kdl-lma", "custom", model->nq(), lma);
  CHECK(s.solve_rate == 0.0);
  CHECK(s.false_claims == 1);
  // NR_JL clamps: whatever it returns is within the limits.
  const auto nr_jl = RunTargets(model, site, {target},
                                Baseline(baselines, "kdl-nr-jl"), settings);
  CHECK(model->WithinLimits(nr_jl[0].q));
}

#else  // !IKLAB_HAVE_KDL

TEST_CASE("Without KDL the benchmark has no baselines and says so",
          "[experiments][kdl]") {
  CHECK_FALSE(KdlBaselinesBuilt());
  CHECK(BaselineSolvers().empty());
}

#endif

}  // namespace
}  // namespace iklab
