// Forward kinematics and geometric Jacobian microbenchmarks.
//
// What is timed (one call = one iteration):
//   ForwardKinematics      ForwardKinematics(model, q, &data)
//   Jacobian               SiteJacobian of the tip site (6 x n), FK done once
//   FkAndJacobian          both, the cost of one linearization of a
//                          differential IK step or one potential+gradient
//                          evaluation of a single goal
// on 3-D serial chains of 3, 7, 30, 100 and 1000 revolute joints, Tolani's
// 7-DOF arm (framework/builders.h), the 53-DOF human figure (FK + the
// Jacobians of its five end-effector sites), and URDF chains loaded as
// `iklab bench` loads them (RobotFixture: 0 the Panda, 1 the iiwa 14, 2
// data/mimic/four_bar.urdf, 3 free coordinates and 2 mimic joints, the
// cost of the mimic path of FK and the Jacobian).
//
// Models are built once per fixture (as Pinocchio's benchmark/model-fixture
// does); results are kept alive with DoNotOptimize/ClobberMemory. Run a
// Release build:
//
//   cmake -S . -B build-bench -DIKLAB_BUILD_BENCHMARKS=ON
//         -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target iklab_benchmarks
//   ./build-bench/benchmarks/iklab_benchmarks --benchmark_filter=Kinematics
//         --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// and quote the medians. The target set in the framework brief is ≤ 120 ns for
// FK + the full 6 x 7 Jacobian of a 7-DOF chain.
//
// FusedPoseResidual/7: the same 7-joint chain through bounded LM's fused
// kernel (solvers/optimization/internal/site_goal_kernel.h): FK of the chain, its Jacobian
// and a pose goal's 9 weighted residual rows and 9 x 7 Jacobian in one pass,
// cycling through 64 configurations — compare with FkAndJacobian/7, which
// gives only the 6 x 7 geometric Jacobian.
#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "framework/model.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/optimization/internal/site_goal_kernel.h"

namespace iklab {
namespace {

// Records the build type next to the machine description Google Benchmark
// prints, so that a Debug number is never mistaken for a Release one.
#ifdef NDEBUG
[[maybe_unused]] const bool kContextRecorded =
    (benchmark::AddCustomContext("iklab_assertions", "off (NDEBUG)"), true);
#else
[[maybe_unused]] const bool kContextRecorded =
    (benchmark::AddCustomContext("iklab_assertions",
                                 "ON: not a Release build, do not quote"),
     true);
#endif

// A 3-D serial chain of n revolute joints with fixed pseudo-random geometry
// (seeded, so every run times the same chain). Like URDF robots, most axes are
// coordinate axes (cycling z, y, x) and most link offsets pure translations;
// every fifth joint has a general unit axis and every fourth a rotated joint
// frame, so both of FK's code paths are timed. Links are 0.05–0.15 long; the
// site "tip" sits 0.1 beyond the last joint.
Figure SerialChain(int n) {
  std::mt19937 rng(1234 + n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Eigen::Vector3d coordinate_axes[3] = {Eigen::Vector3d::UnitZ(),
                                              Eigen::Vector3d::UnitY(),
                                              Eigen::Vector3d::UnitX()};
  Figure f("base");
  std::string parent = "base";
  for (int i = 0; i < n; ++i) {
    Joint j;
    j.name = "q" + std::to_string(i);
    j.parent = parent;
    j.child = "link" + std::to_string(i);
    j.kind = JointKind::kRevolute;
    j.axis = coordinate_axes[i % 3];
    if (i % 5 == 4) {
      j.axis = Eigen::Vector3d(u(rng), u(rng), u(rng) + 2.0).normalized();
    }
    if (i > 0) {
      j.X_PJ.translation() =
          Eigen::Vector3d(0.05 * u(rng), 0.05 * u(rng), 0.1 + 0.05 * u(rng));
    }
    if (i % 4 == 3) {
      j.X_PJ.linear() =
          Eigen::AngleAxisd(
              u(rng),
              Eigen::Vector3d(u(rng), u(rng), u(rng) + 2.0).normalized())
              .toRotationMatrix();
    }
    j.WithLimits(-3.0, 3.0);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tip{"tip", parent, Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(0, 0, 0.1);
  f.AddSite(tip);
  return f;
}

// Model, workspace, a fixed configuration within the limits, and one 6 x nq
// Jacobian per timed site.
class KinematicsFixture : public benchmark::Fixture {
 public:
  void Build(const Figure& figure, const std::vector<std::string>& sites) {
    model_.emplace(figure.Compile());
    data_.emplace(*model_);
    std::mt19937 rng(99);
    q_.resize(model_->nq());
    for (int i = 0; i < model_->nq(); ++i) {
      const double lo = std::max(model_->lower()[i], -2.0);
      const double hi = std::min(model_->upper()[i], 2.0);
      q_[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
    }
    sites_.clear();
    jacobians_.clear();
    for (const std::string& s : sites) {
      sites_.push_back(model_->SiteIndex(s));
      jacobians_.emplace_back(6, model_->nq());
    }
    ForwardKinematics(*model_, q_, &*data_);
  }

  void TearDown(const benchmark::State&) override {
    jacobians_.clear();
    data_.reset();
    model_.reset();
  }

  void TimeForwardKinematics(benchmark::State& state) {
    const int last = model_->num_steps() - 1;
    for (auto _ : state) {
      ForwardKinematics(*model_, q_, &*data_);
      benchmark::DoNotOptimize(data_->X_W(last).matrix().data());
      benchmark::ClobberMemory();
    }
    SetCounters(state);
  }

  void TimeJacobians(benchmark::State& state) {
    for (auto _ : state) {
      for (size_t k = 0; k < sites_.size(); ++k) {
        SiteJacobian(*model_, *data_, sites_[k], jacobians_[k]);
        benchmark::DoNotOptimize(jacobians_[k].data());
      }
      benchmark::ClobberMemory();
    }
    SetCounters(state);
  }

  void TimeFkAndJacobians(benchmark::State& state) {
    for (auto _ : state) {
      ForwardKinematics(*model_, q_, &*data_);
      for (size_t k = 0; k < sites_.size(); ++k) {
        SiteJacobian(*model_, *data_, sites_[k], jacobians_[k]);
        benchmark::DoNotOptimize(jacobians_[k].data());
      }
      benchmark::ClobberMemory();
    }
    SetCounters(state);
  }

 private:
  void SetCounters(benchmark::State& state) const {
    state.counters["nq"] = model_->nq();
    state.counters["sites"] = static_cast<double>(sites_.size());
  }

  std::optional<Model> model_;
  std::optional<Data> data_;
  Eigen::VectorXd q_;
  std::vector<int> sites_;
  std::vector<Matrix6Xd> jacobians_;
};

class SerialChainFixture : public KinematicsFixture {
 public:
  void SetUp(const benchmark::State& state) override {
    Build(SerialChain(static_cast<int>(state.range(0))), {"tip"});
  }
};

class TolaniArmFixture : public KinematicsFixture {
 public:
  void SetUp(const benchmark::State&) override {
    Build(TolaniArm(Side::kLeft), {"wrist"});
  }
};

class HumanFigureFixture : public KinematicsFixture {
 public:
  void SetUp(const benchmark::State&) override {
    Build(HumanFigure(), HumanEndEffectorSites());
  }
};

class RobotFixture : public KinematicsFixture {
 public:
  void SetUp(const benchmark::State& state) override {
    struct Chain {
      const char* file;
      const char* base;
      const char* tip;
    };
    static const Chain kChains[] = {
        {"robots/panda.urdf", "panda_link0", "panda_hand"},
        {"robots/iiwa14.urdf", "base", "iiwa_link_ee"},
        {"mimic/four_bar.urdf", "base_link", "tool_tip"}};
    const Chain& c = kChains[state.range(0)];
    Build(LoadUrdfChain((DataDirectory() / c.file).string(), c.base, c.tip)
              .figure,
          {c.tip});
  }
};

BENCHMARK_DEFINE_F(RobotFixture, KinematicsFkAndJacobian)
(benchmark::State& state) { TimeFkAndJacobians(state); }

BENCHMARK_DEFINE_F(SerialChainFixture, KinematicsForward)
(benchmark::State& state) { TimeForwardKinematics(state); }
BENCHMARK_DEFINE_F(SerialChainFixture, KinematicsJacobian)
(benchmark::State& state) { TimeJacobians(state); }
BENCHMARK_DEFINE_F(SerialChainFixture, KinematicsFkAndJacobian)
(benchmark::State& state) { TimeFkAndJacobians(state); }

BENCHMARK_DEFINE_F(TolaniArmFixture, KinematicsForward)
(benchmark::State& state) { TimeForwardKinematics(state); }
BENCHMARK_DEFINE_F(TolaniArmFixture, KinematicsFkAndJacobian)
(benchmark::State& state) { TimeFkAndJacobians(state); }

BENCHMARK_DEFINE_F(HumanFigureFixture, KinematicsForward)
(benchmark::State& state) { TimeForwardKinematics(state); }
BENCHMARK_DEFINE_F(HumanFigureFixture, KinematicsFkAndJacobians)
(benchmark::State& state) { TimeFkAndJacobians(state); }

void BM_SerialChainFusedPoseResidual(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto model = std::make_shared<const Model>(SerialChain(n).Compile());
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(0.1, 0.2, 0.3);
  PositionOrientationScales scales;
  scales.w_o = 0.16;
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(*model, "tip",
                                                            target, 1.0,
                                                            scales));
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<Eigen::VectorXd> configurations(64, Eigen::VectorXd(n));
  for (Eigen::VectorXd& q : configurations) {
    for (int i = 0; i < n; ++i) q[i] = u(rng);
  }
  auto kernel = internal::SiteGoalKernel<9, 7>::Create(problem);
  Eigen::Matrix<double, 9, 1> r;
  Eigen::Matrix<double, 9, 7> J;
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        kernel->Evaluate(configurations[next].data(), &r, &J));
    next = (next + 1) % configurations.size();
    benchmark::DoNotOptimize(J.data());
    benchmark::ClobberMemory();
  }
  state.counters["nq"] = n;
}
BENCHMARK(BM_SerialChainFusedPoseResidual)->Arg(7);

void ChainSizes(benchmark::internal::Benchmark* b) {
  for (int n : {3, 7, 30, 100, 1000}) b->Arg(n);
}

BENCHMARK_REGISTER_F(SerialChainFixture, KinematicsForward)->Apply(ChainSizes);
BENCHMARK_REGISTER_F(SerialChainFixture, KinematicsJacobian)->Apply(ChainSizes);
BENCHMARK_REGISTER_F(SerialChainFixture, KinematicsFkAndJacobian)
    ->Apply(ChainSizes);
BENCHMARK_REGISTER_F(TolaniArmFixture, KinematicsForward);
BENCHMARK_REGISTER_F(TolaniArmFixture, KinematicsFkAndJacobian);
BENCHMARK_REGISTER_F(HumanFigureFixture, KinematicsForward);
BENCHMARK_REGISTER_F(HumanFigureFixture, KinematicsFkAndJacobians);
BENCHMARK_REGISTER_F(RobotFixture, KinematicsFkAndJacobian)->DenseRange(0, 2);

}  // namespace
}  // namespace iklab
