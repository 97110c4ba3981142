// Tolani's limb solver on an SRS robot read from its URDF (the KUKA iiwa14,
// solvers/analytic/tolani/srs_arm.h): the whole solution set of a target
// (the valid swivel intervals of both elbow roots, then every branch at the
// midpoint of the longest valid arc), and a solve through the common Solver
// interface with joint limits on (the tolani entry of iklab bench). Targets:
// FK of uniform draws within the limits; the arm is read once, outside the
// timed loop. Compare with BM_SixR* (six_r_benchmark.cc) in the same run.
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

constexpr int kNumTargets = 1024;

struct IiwaTargets {
  IiwaTargets()
      : model(std::make_shared<const Model>(
            LoadUrdfChain((DataDirectory() / "robots" / "iiwa14.urdf").string(),
                          "base", "iiwa_link_ee")
                .figure.Compile())) {
    site = model->num_sites() - 1;
    std::string why;
    arm = SrsArm::Create(*model, site, &why);
    if (!arm) throw std::runtime_error(why);
    std::mt19937_64 rng(15);
    for (int k = 0; k < kNumTargets; ++k) {
      targets.push_back(testing::SitePoseAt(
          *model, model->site_name(site), testing::UniformPose(*model, &rng)));
    }
  }
  std::shared_ptr<const Model> model;
  int site = -1;
  std::shared_ptr<const SrsArm> arm;
  std::vector<Eigen::Isometry3d, Eigen::aligned_allocator<Eigen::Isometry3d>>
      targets;
};

const IiwaTargets& Targets() {
  static const IiwaTargets targets;
  return targets;
}

void BM_SrsIiwaAllSolutions(benchmark::State& state) {
  const IiwaTargets& t = Targets();
  std::size_t k = 0;
  long branches = 0;
  for (auto _ : state) {
    const SrsSolutions all = t.arm->AllSolutions(t.targets[k]);
    SwivelIntervals::Interval arc{0.0, 0.0};
    all.Valid().LongestArc(&arc);
    std::array<SrsBranch, 8> out;
    branches += all.Branches(0.5 * (arc.lo + arc.hi), &out);
    benchmark::DoNotOptimize(out.data());
    k = (k + 1) % t.targets.size();
  }
  state.counters["branches"] = benchmark::Counter(
      static_cast<double>(branches) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SrsIiwaAllSolutions)->Unit(benchmark::kMicrosecond);

void BM_SrsIiwaSolve(benchmark::State& state) {
  const IiwaTargets& t = Targets();
  auto goal = std::make_shared<PositionOrientationGoal>(
      *t.model, t.model->site_name(t.site), t.targets[0]);
  Problem problem(t.model);
  problem.AddGoal(goal);
  const TolaniLimbSolver solver;
  solver.Prepare(problem);
  const Eigen::VectorXd seed = t.model->MidLimits();
  std::size_t k = 0;
  long converged = 0;
  for (auto _ : state) {
    goal->set_target(t.targets[k]);
    const Result r = solver.Solve(problem, seed);
    benchmark::DoNotOptimize(r.q.data());
    converged += r.converged() ? 1 : 0;
    k = (k + 1) % t.targets.size();
  }
  state.counters["converged"] = benchmark::Counter(
      static_cast<double>(converged) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SrsIiwaSolve)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace iklab
