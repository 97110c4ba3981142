// Reachability maps: the orientation set, the reach bound, voxels
// classified against a closed-form answer, the analytic 6R solver as the
// reference for bounded LM, determinism over threads, the HDF5 round trip
// and byte identity, resume from the journal, and bad input.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include <catch2/catch.hpp>

#include "framework/figure.h"
#include "lab/collision_files.h"
#include "framework/urdf_loader.h"
#include "reach/orientation_set.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_map.h"
#include "reach/reach_run.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;

// Yaw (z, ±π/2), shoulder pitch (y, ±π/2) and elbow pitch (y, [0, 2]),
// two links of 0.5: the tip reaches p iff, for a yaw within its limits,
// d = |p| = cos(θ3/2) with θ3 in [0, 2] and the shoulder pitch
// θ2 = φ − θ3/2 (φ the pitch of p in the arm's plane) within its limits.
std::shared_ptr<const Model> YawPitchPitchArm() {
  Figure figure("base");
  Joint yaw;
  yaw.name = "yaw";
  yaw.parent = "base";
  yaw.child = "l0";
  yaw.axis = Eigen::Vector3d::UnitZ();
  yaw.WithLimits(-M_PI / 2, M_PI / 2);
  figure.AddJoint(yaw);
  Joint shoulder = yaw;
  shoulder.name = "shoulder";
  shoulder.parent = "l0";
  shoulder.child = "l1";
  shoulder.axis = Eigen::Vector3d::UnitY();
  figure.AddJoint(shoulder);
  Joint elbow = shoulder;
  elbow.name = "elbow";
  elbow.parent = "l1";
  elbow.child = "l2";
  elbow.X_PJ.translation() = Eigen::Vector3d(0.5, 0, 0);
  elbow.WithLimits(0.0, 2.0);
  figure.AddJoint(elbow);
  figure.AddSite({"tip", "l2",
                  Eigen::Isometry3d(Eigen::Translation3d(0.5, 0, 0))});
  return std::make_shared<const Model>(figure.Compile());
}

// The closed form: +1 reachable, −1 unreachable, 0 within `margin` of the
// boundary (left out of the comparison).
int ClosedFormReach(const Eigen::Vector3d& p, double margin) {
  const double d = p.norm();
  if (d > 1.0 + margin || d < std::cos(1.0) - margin) return -1;
  if (d > 1.0 - margin || d < std::cos(1.0) + margin) return 0;
  const double half_elbow = std::acos(d);  // θ3 / 2
  int best = -1;
  for (double sign : {1.0, -1.0}) {
    const double r = sign * std::hypot(p.x(), p.y());
    // On the yaw axis (r = 0) any yaw will do.
    const double yaw = r == 0.0 ? 0.0 : std::atan2(sign * p.y(), sign * p.x());
    // Rotating about y by θ takes x to (cos θ, 0, −sin θ).
    const double pitch = std::atan2(-p.z(), r);
    const double shoulder = pitch - half_elbow;
    const double slack =
        std::min(M_PI / 2 - std::abs(yaw), M_PI / 2 - std::abs(shoulder));
    if (slack > margin) return 1;
    if (slack > -margin) best = 0;
  }
  return best;
}

std::shared_ptr<const Model> ShippedChain(const std::string& file,
                                          const std::string& base,
                                          const std::string& tip) {
  return std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/" + file), base, tip)
          .figure.Compile());
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("The Fibonacci approach axes are unit, distinct and balanced over the sphere",
          "[reach]") {
  const std::vector<Eigen::Vector3d> axes = FibonacciSphere(200);
  REQUIRE(axes.size() == 200);
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  int upper = 0;
  int octant = 0;
  for (const Eigen::Vector3d& a : axes) {
    CHECK(a.norm() == Approx(1.0).epsilon(1e-12));
    sum += a;
    upper += a.z() > 0;
    octant += a.x() > 0 && a.y() > 0 && a.z() > 0;
  }
  // Equal-area bands: exactly half above the equator; the centroid near 0
  // and an octant near 1/8 of the points.
  CHECK(upper == 100);
  CHECK(sum.norm() / 200 < 0.02);
  CHECK(std::abs(octant - 25) <= 3);
  double closest = 10;
  for (size_t i = 0; i < axes.size(); ++i) {
    for (size_t j = i + 1; j < axes.size(); ++j) {
      closest = std::min(closest, (axes[i] - axes[j]).norm());
    }
  }
  // No two points nearer than half the spacing of a uniform set (≈ √(4π/N)).
  CHECK(closest > 0.5 * std::sqrt(4 * M_PI / 200));

  const std::vector<Eigen::Quaterniond> orientations = ApproachOrientations(10, 4);
  REQUIRE(orientations.size() == 40);
  const std::vector<Eigen::Vector3d> ten = FibonacciSphere(10);
  for (int k = 0; k < 10; ++k) {
    for (int j = 0; j < 4; ++j) {
      const Eigen::Matrix3d R = orientations[4 * k + j].toRotationMatrix();
      CHECK((R.col(2) - ten[k]).norm() < 1e-12);  // site z = approach axis
      const Eigen::Matrix3d R0 = orientations[4 * k].toRotationMatrix();
      CHECK(std::acos(std::clamp(R0.col(0).dot(R.col(0)), -1.0, 1.0)) ==
            Approx(std::min(2 * M_PI * j / 4, 2 * M_PI - 2 * M_PI * j / 4))
                .margin(1e-6));
    }
  }
  REQUIRE_THROWS_WITH(FibonacciSphere(0), Catch::Contains("count must be >= 1"));
}

TEST_CASE("The reach bound is the summed link lengths around the first joint",
          "[reach]") {
  const auto arm = YawPitchPitchArm();
  const ChainReach reach = ComputeChainReach(*arm, arm->SiteIndex("tip"));
  CHECK(reach.radius == Approx(1.0).epsilon(1e-12));
  CHECK(reach.centre.norm() < 1e-12);

  ReachSettings settings;
  settings.resolution = 0.3;
  settings.position_only = true;
  const ReachTask task(arm, "tip", settings);
  // ⌈2 / 0.3⌉ = 7 voxels per axis, centred on the first joint.
  CHECK(task.grid().shape == Eigen::Vector3i(7, 7, 7));
  CHECK((task.grid().Centre(task.grid().Index(3, 3, 3)) - reach.centre).norm() <
        1e-12);
  CHECK(task.ComputeVoxel(task.grid().Index(0, 0, 0)).state ==
        VoxelState::kOutsideReach);
}

// Verified answers are certain, so a map never calls an unreachable voxel
// reachable; a local solver can miss a reachable one (here: targets behind
// the arm, reached only by folding over the top from a narrow basin of
// starts), so the recall is measured, not assumed.
TEST_CASE("A position-only map agrees with the closed-form reach of a limited arm",
          "[reach]") {
  const auto arm = YawPitchPitchArm();
  ReachSettings settings;
  settings.resolution = 0.08;
  settings.position_only = true;
  const ReachTask task(arm, "tip", settings);
  const ReachMap map = ComputeReachMap(task, 2);
  int reachable = 0;
  int unreachable = 0;
  int missed = 0;
  for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
    const int expected = ClosedFormReach(task.grid().Centre(v), 0.03);
    if (expected == 0) continue;
    INFO("voxel centre " << task.grid().Centre(v).transpose());
    if (expected < 0) CHECK(map.reached[v] == 0);
    missed += expected > 0 && map.reached[v] == 0;
    reachable += expected > 0;
    unreachable += expected < 0 &&
                   map.state[v] == static_cast<std::uint8_t>(VoxelState::kSolved);
    if (map.reached[v] > 0) {
      // On the yaw axis the yaw column of J_p is zero: every solution there
      // is singular, and a solver converging to well below the tolerance
      // lands on the axis to rounding (√det JJᵀ = 0).
      const Eigen::Vector3d centre = task.grid().Centre(v);
      if (centre.head<2>().norm() < 1e-9) {
        CHECK(map.manipulability_mean[v] >= 0.0f);
      } else {
        CHECK(map.manipulability_mean[v] > 0.0f);
      }
      CHECK(map.manipulability_min[v] <= map.manipulability_max[v]);
    } else {
      CHECK(std::isnan(map.manipulability_mean[v]));
    }
  }
  // Both classes occur, and unreachable voxels inside the reach bound
  // (behind the arm, where the limits forbid it) were solved and refused.
  CHECK(reachable > 100);
  CHECK(unreachable > 100);
  CHECK(missed <= reachable / 50);
}

TEST_CASE("Bounded LM's map of the UR5 is the analytic 6R solver's, never more",
          "[reach]") {
  const auto ur5 = ShippedChain("ur5.urdf", "base_link", "ee_link");
  ReachSettings settings;
  settings.resolution = 0.25;
  settings.approach_axes = 6;
  const ReachMap analytic = ComputeReachMap(ReachTask(ur5, "ee_link", settings));
  REQUIRE(analytic.solver == "analytic-6r");
  settings.solver = ReachSolverKind::kBoundedLm;
  const ReachMap lm = ComputeReachMap(ReachTask(ur5, "ee_link", settings), 2);
  REQUIRE(lm.solver == "bounded-lm");
  std::int64_t both = 0;
  std::int64_t only_analytic = 0;
  for (size_t i = 0; i < lm.reached_orientations.size(); ++i) {
    // Every verified answer is a real solution: the analytic set has it.
    CHECK(lm.reached_orientations[i] <= analytic.reached_orientations[i]);
    both += lm.reached_orientations[i] && analytic.reached_orientations[i];
    only_analytic += analytic.reached_orientations[i] && !lm.reached_orientations[i];
  }
  REQUIRE(both > 500);
  // Bounded LM with 10 restarts finds nearly every exact solution.
  CHECK(only_analytic <= both / 20);
}

TEST_CASE("A map is the same for 1 and 3 threads and through the HDF5 file",
          "[reach]") {
  const auto panda = ShippedChain("panda.urdf", "panda_link0", "panda_hand");
  ReachSettings settings;
  settings.resolution = 0.3;
  settings.approach_axes = 3;
  settings.max_attempts = 3;
  const ReachTask task(panda, "panda_hand", settings);
  const ReachMap one = ComputeReachMap(task, 1);
  const ReachMap three = ComputeReachMap(task, 3);
  CHECK(one.reached_orientations == three.reached_orientations);
  CHECK(one.state == three.state);
  CHECK(std::memcmp(one.manipulability_mean.data(),
                    three.manipulability_mean.data(),
                    one.manipulability_mean.size() * sizeof(float)) == 0);
  CHECK(one.CountState(VoxelState::kPending) == 0);
  CHECK(one.CountState(VoxelState::kSolved) > 0);

  const fs::path dir = testing::ScratchPath("reach-hdf5");
  fs::create_directories(dir);
  WriteReachMapHdf5(one, (dir / "a.h5").string());
  WriteReachMapHdf5(three, (dir / "b.h5").string());
  CHECK(ReadBytes(dir / "a.h5") == ReadBytes(dir / "b.h5"));
  const ReachMap back = ReadReachMapHdf5((dir / "a.h5").string());
  CHECK(back.robot == one.robot);
  CHECK(back.site == "panda_hand");
  CHECK(back.solver == "bounded-lm");
  CHECK(back.grid.shape == one.grid.shape);
  CHECK(back.grid.origin == one.grid.origin);
  CHECK(back.grid.resolution == one.grid.resolution);
  CHECK(back.settings.approach_axes == 3);
  CHECK(back.settings.seed == settings.seed);
  CHECK(back.state == one.state);
  CHECK(back.reached == one.reached);
  CHECK(back.reached_orientations == one.reached_orientations);
  REQUIRE(back.orientations.size() == one.orientations.size());
  for (size_t o = 0; o < back.orientations.size(); ++o) {
    CHECK(back.orientations[o].coeffs() == one.orientations[o].coeffs());
  }
  // No temporary file is left beside the map.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  CHECK(files == 2);
  std::ofstream(dir / "junk.h5") << "not hdf5";
  REQUIRE_THROWS_WITH(ReadReachMapHdf5((dir / "junk.h5").string()),
                      Catch::Contains("junk.h5"));
  fs::remove_all(dir);
}

TEST_CASE("A stopped map resumes from its journal to the same map, even after a torn record",
          "[reach]") {
  const auto arm = YawPitchPitchArm();
  ReachSettings settings;
  settings.resolution = 0.15;
  settings.position_only = true;
  const ReachTask task(arm, "tip", settings);
  const ReachMap reference = ComputeReachMap(task, 1);

  const fs::path dir = testing::ScratchPath("reach-journal");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
  ReachRunOptions options;
  options.threads = 2;
  options.journal = (dir / "map.h5.partial").string();
  options.stop_after = 40;
  const ReachRun first = RunReach(task, "arm", "base", local.get(), options);
  CHECK_FALSE(first.complete);
  CHECK(first.solved_voxels == 40);
  // A torn record at the end (a crash while writing) is dropped.
  std::ofstream(options.journal, std::ios::binary | std::ios::app) << "\x10\x00";

  REQUIRE_THROWS_WITH(RunReach(task, "arm", "base", local.get(), options),
                      Catch::Contains("add --resume") || Catch::Contains("Add --resume"));
  options.resume = true;
  options.stop_after = 0;
  const ReachRun second = RunReach(task, "arm", "base", local.get(), options);
  CHECK(second.complete);
  CHECK(second.resumed_voxels == 40);
  CHECK(second.map.reached_orientations == reference.reached_orientations);
  CHECK(second.map.state == reference.state);
  ReachMap named = reference;  // ComputeReachMap leaves the names empty
  named.robot = "arm";
  named.base_link = "base";
  WriteReachMapHdf5(named, (dir / "a.h5").string());
  WriteReachMapHdf5(second.map, (dir / "b.h5").string());
  CHECK(ReadBytes(dir / "a.h5") == ReadBytes(dir / "b.h5"));

  // A journal of other settings is refused.
  ReachSettings other = settings;
  other.seed = 2;
  REQUIRE_THROWS_WITH(
      RunReach(ReachTask(arm, "tip", other), "arm", "base", local.get(), options),
      Catch::Contains("fingerprint differs"));
  fs::remove_all(dir);
}

TEST_CASE("The flood fill finds every reachable voxel of a connected workspace with fewer solves",
          "[reach]") {
  const auto arm = YawPitchPitchArm();
  ReachSettings settings;
  settings.resolution = 0.1;
  settings.position_only = true;
  const ReachMap full = ComputeReachMap(ReachTask(arm, "tip", settings), 2);
  settings.flood_fill = true;
  const ReachMap flood = ComputeReachMap(ReachTask(arm, "tip", settings), 2);
  CHECK(flood.reached == full.reached);
  CHECK(flood.CountState(VoxelState::kSkipped) > 0);
  CHECK(flood.CountState(VoxelState::kSolved) < full.CountState(VoxelState::kSolved));
  CHECK(flood.CountState(VoxelState::kPending) == 0);
}

TEST_CASE("Bad reach settings are refused with the field named", "[reach]") {
  const auto arm = YawPitchPitchArm();
  ReachSettings settings;
  settings.resolution = 0.0;
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("resolution must be"));
  settings.resolution = std::nan("");
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("resolution must be"));
  settings.resolution = 1e-4;
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("more than 2^31 voxels"));
  settings = ReachSettings{};
  settings.approach_axes = 0;
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("approach_axes must be"));
  settings = ReachSettings{};
  settings.tolerance = 0.5;
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("tolerance must be"));
  settings = ReachSettings{};
  settings.solver = ReachSolverKind::kAnalytic6r;
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("analytic-6r does not apply"));
  settings.position_only = true;
  REQUIRE_THROWS_WITH(ReachTask(arm, "tip", settings),
                      Catch::Contains("position-only map needs"));
  REQUIRE_THROWS_WITH(ReachTask(arm, "nowhere", ReachSettings{}),
                      Catch::Contains("nowhere"));
  const ReachTask task(arm, "tip", ReachSettings{});
  REQUIRE_THROWS_WITH(task.ComputeVoxel(-1), Catch::Contains("out of range"));
}

TEST_CASE("A map solved on the SIMD batch solver claims what the scalar "
          "solver's does, the same voxel by voxel or in one batch",
          "[reach]") {
  const auto panda = ShippedChain("panda.urdf", "panda_link0", "panda_hand");
  ReachSettings settings;
  settings.resolution = 0.3;
  settings.approach_axes = 6;
  const ReachTask simd(panda, "panda_hand", settings);
  REQUIRE_THAT(simd.solver_method(), Catch::StartsWith("simd-bounded-lm ("));
  settings.simd = false;
  const ReachTask scalar(panda, "panda_hand", settings);
  REQUIRE(scalar.solver_method() ==
          "scalar bounded-lm: ReachSettings::simd is false");
  // Other answers, so other maps: a journal of one is not resumed by the other.
  CHECK(simd.Fingerprint() != scalar.Fingerprint());

  const ReachMap a = ComputeReachMap(simd, 2);
  const ReachMap b = ComputeReachMap(scalar, 2);
  CHECK(a.solver == "bounded-lm");
  CHECK(a.solver_method == simd.solver_method());
  CHECK(a.state == b.state);
  // Both count only answers the independent FK verified; the restarts
  // differ, so a hard query may fall to one solver and not the other, but
  // the map (which voxels reach how many orientations) is the same within a
  // few queries.
  std::int64_t reached_a = 0, reached_b = 0, differ = 0;
  for (size_t i = 0; i < a.reached_orientations.size(); ++i) {
    reached_a += a.reached_orientations[i];
    reached_b += b.reached_orientations[i];
    differ += a.reached_orientations[i] != b.reached_orientations[i];
  }
  REQUIRE(reached_b > 300);
  CHECK(differ <= reached_b / 20);
  CHECK(std::abs(reached_a - reached_b) <= reached_b / 100);
  std::int64_t reachable_a = 0, reachable_b = 0;
  for (size_t v = 0; v < a.reached.size(); ++v) {
    reachable_a += a.reached[v] > 0;
    reachable_b += b.reached[v] > 0;
  }
  CHECK(std::abs(reachable_a - reachable_b) <= 1);

  // A voxel's result does not depend on the batch it is solved in.
  std::vector<std::int64_t> voxels;
  for (std::int64_t v = 0; v < simd.grid().num_voxels(); v += 7) {
    voxels.push_back(v);
  }
  const std::vector<VoxelResult> batch =
      simd.ComputeVoxels(voxels.data(), voxels.size());
  REQUIRE(batch.size() == voxels.size());
  for (size_t i = 0; i < voxels.size(); ++i) {
    const VoxelResult one = simd.ComputeVoxel(voxels[i]);
    CHECK(batch[i].state == one.state);
    CHECK(batch[i].reached_orientations == one.reached_orientations);
    CHECK(std::memcmp(&batch[i].manipulability_mean, &one.manipulability_mean,
                      sizeof(float)) == 0);
    CHECK(batch[i].reached_orientations == std::vector<std::uint8_t>(
              a.reached_orientations.begin() + voxels[i] * 6,
              a.reached_orientations.begin() + voxels[i] * 6 + 6));
  }
  const std::int64_t bad = -1;
  REQUIRE_THROWS_WITH(simd.ComputeVoxels(&bad, 1),
                      Catch::Contains("out of range"));

  // The file says which solver ran.
  const fs::path dir = testing::ScratchPath("reach-simd");
  fs::create_directories(dir);
  WriteReachMapHdf5(a, (dir / "a.h5").string());
  const ReachMap back = ReadReachMapHdf5((dir / "a.h5").string());
  CHECK(back.solver_method == a.solver_method);
  CHECK(back.settings.simd);
  fs::remove_all(dir);
}

TEST_CASE("A map says why it falls back to the scalar solver",
          "[reach]") {
  // Mimic joints: the SIMD batch solver does not take them.
  const auto four_bar = std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("mimic/four_bar.urdf"),
                    "base_link", "tool_tip")
          .figure.Compile());
  ReachSettings settings;
  settings.resolution = 0.2;
  settings.position_only = true;
  const ReachTask task(four_bar, "tool_tip", settings);
  CHECK(task.solver_method() ==
        "scalar bounded-lm: the model has mimic joints");
  CHECK(task.EmptyMap("four_bar", "base_link").solver_method ==
        task.solver_method());

  // Collision goals: the scalar solver, which takes them; the map's claims
  // are checked collision-free, so it reaches no more than the map without.
  const auto panda = ShippedChain("panda.urdf", "panda_link0", "panda_hand");
  const std::string urdf = testing::ShippedDataFile("robots/panda.urdf");
  SelfCollisionMatrixOptions matrix;
  matrix.samples = 1000;
  const auto self = std::make_shared<const CollisionSetup>(MakeCollisionSetup(
      ParseCollisionSetting("self"), *panda, urdf, false, matrix));
  ReachSettings coarse;
  coarse.resolution = 0.35;
  coarse.approach_axes = 6;
  const ReachTask free_task(panda, "panda_hand", coarse);
  const ReachTask colliding_task(panda, "panda_hand", coarse, self);
  CHECK(colliding_task.solver_method() ==
        "scalar bounded-lm: the SIMD solver takes no collision goal");
  CHECK(colliding_task.Fingerprint() != free_task.Fingerprint());
  const ReachMap with = ComputeReachMap(colliding_task, 2);
  const ReachMap without = ComputeReachMap(free_task, 2);
  CHECK(with.solver_method == colliding_task.solver_method());
  std::int64_t reached_with = 0, reached_without = 0;
  for (std::size_t v = 0; v < with.reached.size(); ++v) {
    reached_with += with.reached[v];
    reached_without += without.reached[v];
  }
  CHECK(reached_with > 0);
  CHECK(reached_with <= reached_without);
}

}  // namespace
}  // namespace iklab
