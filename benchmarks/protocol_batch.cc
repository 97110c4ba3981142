#include "benchmarks/protocol_batch.h"

#include <Eigen/Geometry>

#include "constraints/position_orientation_goal.h"
#include "framework/urdf_loader.h"

namespace iklab {

ProtocolBatch MakeProtocolBatch(const BenchmarkRobot& robot, SeedMode mode,
                                int count) {
  ProtocolBatch b;
  b.model = std::make_shared<const Model>(
      LoadUrdfChain(robot.urdf_path, robot.base_link, robot.tip_link)
          .figure.Compile());
  b.site = b.model->SiteIndex(robot.tip_link);
  b.generated = GenerateTargets(*b.model, b.site, count, 1, mode);
  b.poses.resize(count, 7);
  b.seeds.resize(count, b.model->nq());
  for (int i = 0; i < count; ++i) {
    const Eigen::Quaterniond q(b.generated[i].target.linear());
    b.poses.row(i) << b.generated[i].target.translation().transpose(), q.w(),
        q.x(), q.y(), q.z();
    b.seeds.row(i) = b.generated[i].seed.transpose();
  }
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;
  b.problem = std::make_shared<Problem>(b.model);
  b.problem->AddGoal(std::make_shared<PositionOrientationGoal>(
      *b.model, robot.tip_link, Eigen::Isometry3d::Identity(), 1.0, scales));
  return b;
}

void CountBatchOutcome(benchmark::State& state, const ProtocolBatch& batch,
                       const BatchResult& r, int threads) {
  const int count = static_cast<int>(batch.generated.size());
  int solved = 0, verified = 0, false_claims = 0;
  for (int i = 0; i < count; ++i) {
    const bool claimed = r.status[i] == SolveStatus::kConverged;
    const bool ok = Verify(*batch.model, batch.site, r.q.row(i).transpose(),
                           batch.generated[i].target, 1e-6)
                        .success;
    solved += claimed;
    verified += ok;
    false_claims += claimed && !ok;
  }
  const double problems = static_cast<double>(count) * state.iterations();
  state.counters["problems_per_second"] =
      benchmark::Counter(problems, benchmark::Counter::kIsRate);
  state.counters["per_core"] =
      benchmark::Counter(problems / threads, benchmark::Counter::kIsRate);
  state.counters["solved"] = static_cast<double>(solved) / count;
  state.counters["verified"] = static_cast<double>(verified) / count;
  state.counters["false_claims"] = false_claims;
  state.SetLabel(r.method);
}

}  // namespace iklab
