#include "lab/robot_target.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <mujoco/mujoco.h>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "lab/motion_retargeting.h"
#include "lab/retarget_map.h"
#include "lab/walk_cycle.h"
#include "tests/cli/run_iklab.h"
#include "tests/lab/cmu_clip.h"
#include "tests/test_utilities.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// A configuration of `model` by coordinate names: floating-base coordinates
// in [-0.5, 0.5] (m or rad), every joint uniform within its limits.
std::vector<std::pair<std::string, double>> RandomNamedPose(
    const Model& model, std::mt19937_64* rng) {
  std::vector<std::pair<std::string, double>> pose;
  for (int i = 0; i < model.nq(); ++i) {
    const double lo = std::isfinite(model.lower()[i]) ? model.lower()[i] : -0.5;
    const double hi = std::isfinite(model.upper()[i]) ? model.upper()[i] : 0.5;
    pose.emplace_back(model.dof_name(i),
                      std::uniform_real_distribution<double>(lo, hi)(*rng));
  }
  return pose;
}

Eigen::VectorXd ByName(
    const Model& model,
    const std::vector<std::pair<std::string, double>>& pose) {
  Eigen::VectorXd q(model.nq());
  for (const auto& [name, value] : pose) q[model.DofIndex(name)] = value;
  return q;
}

struct Retargeted {
  std::shared_ptr<const Model> model;
  KeyPointTrack track;
  MotionRetargetResult result;
};

Retargeted RetargetOntoH1(const RobotTarget& h1, const BvhFigure& clip,
                          int frames, ContactMode contacts,
                          const ContactOptions& contact = {}) {
  const Model source = clip.figure.Compile();
  std::vector<int> rows(frames);
  for (int f = 0; f < frames; ++f) rows[f] = f;
  const RetargetMap map =
      LoadRetargetMap(testing::ShippedDataFile("retarget/bvh_onto_h1.map"));
  Retargeted r;
  r.model = h1.model;
  r.track = MakeKeyPointTrack(source, clip.poses, rows, clip.frame_time, map,
                              *h1.model);
  MotionRetargetOptions options;
  options.contacts = contacts;
  options.contact = contact;
  r.result = RetargetMotion(h1.model, r.track, *MakeMotionRetargetSolver("bounded-lm", 1e-6),
                            options, Eigen::VectorXd::Zero(h1.model->nq()));
  return r;
}

TEST_CASE(
    "The shipped H1 humanoid's URDF and MJCF load with a floating base and "
    "give the same forward kinematics and limits",
    "[lab][robot]") {
  const RobotTarget urdf =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.urdf"));
  const RobotTarget mjcf =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  CHECK(urdf.robot_name == "unitree_h1");
  CHECK(mjcf.robot_name == "unitree_h1");
  CHECK(urdf.floating_joint == "floating_base");  // added to the URDF
  CHECK(mjcf.floating_joint == "floating_base");  // the MJCF's freejoint
  CHECK_FALSE(urdf.from_mjcf);
  CHECK(mjcf.from_mjcf);
  // 6 floating-base coordinates, 2 x 5 leg joints, the torso, 2 x 4 arm
  // joints.
  REQUIRE(urdf.model->nq() == 6 + 19);
  REQUIRE(mjcf.model->nq() == 6 + 19);
  for (int i = 0; i < urdf.model->nq(); ++i) {
    const int j = mjcf.model->DofIndex(urdf.model->dof_name(i));
    INFO(urdf.model->dof_name(i));
    CHECK(urdf.model->lower()[i] == mjcf.model->lower()[j]);
    CHECK(urdf.model->upper()[i] == mjcf.model->upper()[j]);
  }
  // Every MJCF site (body origins and the named points) is a URDF link of
  // the same name at the same pose.
  std::mt19937_64 rng(33);
  Data a(*urdf.model), b(*mjcf.model);
  for (int trial = 0; trial < 20; ++trial) {
    const auto pose = RandomNamedPose(*urdf.model, &rng);
    ForwardKinematics(*urdf.model, ByName(*urdf.model, pose), &a);
    ForwardKinematics(*mjcf.model, ByName(*mjcf.model, pose), &b);
    for (int s = 0; s < mjcf.model->num_sites(); ++s) {
      const std::string& name = mjcf.model->site_name(s);
      INFO(name);
      const Eigen::Isometry3d X_a =
          SitePose(*urdf.model, a, urdf.model->SiteIndex(name));
      const Eigen::Isometry3d X_b = SitePose(*mjcf.model, b, s);
      CHECK((X_a.translation() - X_b.translation()).norm() < 1e-12);
      CHECK((X_a.linear() - X_b.linear()).norm() < 1e-12);
    }
  }
  // A site at the pelvis and at each of the 19 moving bodies, and the named
  // points: two toes, two hands, the neck and the head.
  CHECK(mjcf.model->num_sites() == 20 + 6);
}

TEST_CASE("The H1 model places its points where the published offsets say",
          "[lab][robot]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  const Model& model = *h1.model;
  Data data(model);
  const auto at = [&](const char* site) {
    return SitePosition(model, data, model.SiteIndex(site));
  };
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq());
  ForwardKinematics(model, q, &data);
  // Hip pitch axis: yaw joint (0, 0.0875, -0.1742), roll 0.039468 forward,
  // pitch 0.11536 out; knee and ankle 0.4 m each below; the sole 0.07 m
  // below the ankle, the toe 0.14 m ahead of it.
  const Eigen::Vector3d hip(0.039468, 0.0875 + 0.11536, -0.1742);
  CHECK((at("left_hip_pitch_link") - hip).norm() < 1e-12);
  CHECK((at("left_ankle_link") - (hip + Eigen::Vector3d(0, 0, -0.8))).norm() <
        1e-12);
  CHECK((at("left_toe") - (hip + Eigen::Vector3d(0.14, 0, -0.87))).norm() <
        1e-12);
  CHECK((at("right_toe") - Eigen::Vector3d(0.039468 + 0.14, -0.20286, -1.0442))
            .norm() < 1e-12);
  // The shoulder pitch frame turns 0.43633 rad about x and the roll frame
  // turns back, so below the roll joint the arm hangs straight in the torso
  // frame: elbow 0.1343 + 0.198 m below the roll joint, the hand 0.28 m
  // ahead of the elbow (the forearm points forward at q = 0).
  const Eigen::Vector3d roll =
      Eigen::Vector3d(0.0055, 0.15535, 0.42999) +
      Eigen::AngleAxisd(0.43633, Eigen::Vector3d::UnitX()) *
          Eigen::Vector3d(-0.0055, 0.0565, -0.0165);
  CHECK((at("left_shoulder_roll_link") - roll).norm() < 1e-12);
  const Eigen::Vector3d elbow = roll + Eigen::Vector3d(0.0185, 0, -0.3323);
  CHECK((at("left_elbow_link") - elbow).norm() < 1e-12);
  CHECK((at("left_hand") - (elbow + Eigen::Vector3d(0.28, 0, -0.015))).norm() <
        1e-12);
  // Knee bent by pi/2: the shank points backward (-x), so the ankle lies
  // 0.4 m behind and 0.4 m below the hip axis; a torso turn of pi/2 swings
  // the left shoulder from +y to -x.
  q[model.DofIndex("left_knee_joint")] = M_PI / 2;
  q[model.DofIndex("torso_joint")] = M_PI / 2;
  ForwardKinematics(model, q, &data);
  CHECK(
      (at("left_ankle_link") - (hip + Eigen::Vector3d(-0.4, 0, -0.4))).norm() <
      1e-12);
  CHECK((at("left_shoulder_roll_link") -
         Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ()) * roll)
            .norm() < 1e-12);
}

TEST_CASE("The H1 model agrees with MuJoCo's own kinematics", "[lab][robot]") {
  const std::string path = testing::ShippedDataFile("robots/h1.xml");
  const RobotTarget h1 = LoadRobotTarget(path);
  InstallMujocoHandlers();
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  REQUIRE(m != nullptr);
  mjData* d = mj_makeData(m);
  // The limits MuJoCo compiled.
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] != mjJNT_HINGE) continue;
    const int i = h1.model->DofIndex(mj_id2name(m, mjOBJ_JOINT, j));
    CHECK(h1.model->lower()[i] == m->jnt_range[2 * j]);
    CHECK(h1.model->upper()[i] == m->jnt_range[2 * j + 1]);
  }
  std::mt19937_64 rng(7);
  Data data(*h1.model);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd q =
        ByName(*h1.model, RandomNamedPose(*h1.model, &rng));
    const Eigen::VectorXd qpos = MjcfQToQpos(h1.mjcf, *h1.model, q);
    for (int i = 0; i < m->nq; ++i) d->qpos[i] = qpos[i];
    mj_kinematics(m, d);
    ForwardKinematics(*h1.model, q, &data);
    for (int s = 0; s < m->nsite; ++s) {
      const Eigen::Vector3d p(d->site_xpos[3 * s], d->site_xpos[3 * s + 1],
                              d->site_xpos[3 * s + 2]);
      const char* name = mj_id2name(m, mjOBJ_SITE, s);
      INFO(name);
      CHECK((SitePosition(*h1.model, data, h1.model->SiteIndex(name)) - p)
                .norm() < 1e-9);
    }
  }
  mj_deleteData(d);
  mj_deleteModel(m);
}

TEST_CASE(
    "The procedural walk retargeted onto the H1 stays within its limits "
    "and keeps its feet planted",
    "[lab][robot][retargeting]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  WalkCycleOptions walk;
  walk.frames = 132;  // 1.1 s at 120 Hz: one gait cycle, two steps
  const BvhFigure clip = WalkCycle(walk);
  // The procedural walk's planted foot still slides, so the default
  // thresholds (made for captured motion) find no contact in it: as in the
  // walk test of motion_retargeting_test.cc, a foot point is planted within
  // 0.1 leg lengths of its lowest and under 0.6 leg lengths per second.
  ContactOptions contact;
  contact.height_threshold = 0.1;
  contact.speed_threshold = 0.6;
  const Retargeted free =
      RetargetOntoH1(h1, clip, walk.frames, ContactMode::kOff, contact);
  const Retargeted planted =
      RetargetOntoH1(h1, clip, walk.frames, ContactMode::kPenalty, contact);
  const RetargetMetrics& m = planted.result.metrics;
  INFO("tracking mean " << m.tracking_mean << " max " << m.tracking_max << " ("
                        << m.tracking_worst << "); skating free "
                        << free.result.metrics.skating.mean << ", planted "
                        << m.skating.mean << "; penetration "
                        << m.penetration_max << "; jerk " << m.jerk_rms);
  REQUIRE(m.frames == walk.frames);
  REQUIRE(m.skating.samples > 0);
  // Every frame inside the H1's joint limits (the solver's bounds).
  CHECK(m.limit_violations == 0);
  CHECK(free.result.metrics.limit_violations == 0);
  // Stated thresholds (those of the walk onto its own skeleton in
  // motion_retargeting_test.cc): planted feet slide under 0.05 leg lengths
  // per second (5.2 cm/s on the H1's 1.0442 m), at most a quarter as fast
  // as without contacts, and sink at most 5 mm below the ground.
  const double L = planted.track.target_leg_length;
  CHECK(L == Approx(1.0442));
  CHECK(m.skating.mean < 0.05 * L);
  CHECK(m.skating.mean <= 0.25 * free.result.metrics.skating.mean);
  CHECK(m.penetration_max < 0.005);
  // Key points within 5 cm on average: the H1's hips are twice as wide as
  // the walk's, its hip yaw and roll turn only 0.43 rad and its elbow does
  // not straighten (the arms' points miss the most).
  CHECK(m.tracking_mean < 0.05);
}

TEST_CASE(
    "A retargeted H1 motion written as MuJoCo keyframes puts MuJoCo's "
    "sites on the motion's key points",
    "[lab][robot][retargeting]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  WalkCycleOptions walk;
  walk.frames = 30;
  const BvhFigure clip = WalkCycle(walk);
  const Retargeted r =
      RetargetOntoH1(h1, clip, walk.frames, ContactMode::kPenalty);
  const std::filesystem::path dir = testing::ScratchPath("robot_target_test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string keys = (dir / "keys.xml").string();
  WriteMujocoKeyframes(h1, r.result.run.q, clip.frame_time, keys);

  InstallMujocoHandlers();
  char error[1000] = "";
  mjModel* m = mj_loadXML(keys.c_str(), nullptr, error, sizeof(error));
  INFO(error);
  REQUIRE(m != nullptr);
  REQUIRE(m->nkey == walk.frames);
  mjData* d = mj_makeData(m);
  // The key points measured in MuJoCo: their distance to the track's
  // targets, averaged, is the metrics' tracking error.
  double sum = 0.0;
  int count = 0;
  for (int k = 0; k < m->nkey; ++k) {
    mj_resetDataKeyframe(m, d, k);
    mj_kinematics(m, d);
    CHECK(d->time == Approx(k * clip.frame_time));
    for (std::size_t p = 0; p < r.track.target_sites.size(); ++p) {
      const int s = mj_name2id(m, mjOBJ_SITE, r.track.target_sites[p].c_str());
      REQUIRE(s >= 0);
      const Eigen::Vector3d x(d->site_xpos[3 * s], d->site_xpos[3 * s + 1],
                              d->site_xpos[3 * s + 2]);
      sum += (x - r.track.p[k][p]).norm();
      ++count;
    }
  }
  CHECK(sum / count == Approx(r.result.metrics.tracking_mean).epsilon(1e-9));
  mj_deleteData(d);
  mj_deleteModel(m);

  SECTION("the trajectory CSV holds the base as position and quaternion") {
    const std::string csv_path = (dir / "trajectory.csv").string();
    WriteRobotTrajectoryCsv(*h1.model, r.result.run.q, clip.frame_time,
                            csv_path);
    const std::vector<std::string> columns = RobotTrajectoryColumns(*h1.model);
    REQUIRE(columns.size() == 2 + 7 + 19);
    CHECK(columns[2] == "floating_base.x");
    CHECK(columns[5] == "floating_base.qw");
    CHECK(columns[9] == h1.model->dof_name(6));
    std::ifstream csv(csv_path);
    std::string line;
    std::getline(csv, line);  // header
    Data data(*h1.model);
    for (int t = 0; t < walk.frames; ++t) {
      REQUIRE(std::getline(csv, line));
      std::vector<double> row;
      std::stringstream fields(line);
      for (std::string field; std::getline(fields, field, ',');) {
        row.push_back(std::stod(field));
      }
      REQUIRE(row.size() == columns.size());
      ForwardKinematics(*h1.model, r.result.run.q[t], &data);
      const Eigen::Isometry3d X_WP =
          SitePose(*h1.model, data, h1.model->SiteIndex("pelvis"));
      const Eigen::Quaterniond quat(row[5], row[6], row[7], row[8]);
      CHECK(quat.norm() == Approx(1.0));
      CHECK((Eigen::Vector3d(row[2], row[3], row[4]) - X_WP.translation())
                .norm() < 1e-9);
      CHECK((quat.toRotationMatrix() - X_WP.linear()).norm() < 1e-9);
      for (int i = 6; i < h1.model->nq(); ++i) {
        CHECK(row[i + 3] == Approx(r.result.run.q[t][i]).margin(1e-11));
      }
    }
  }
}

TEST_CASE(
    "A CMU clip retargeted onto the H1 stays within its limits and keeps "
    "its feet planted",
    "[lab][robot][retargeting]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  const BvhFigure clip = testing::LoadCmu131_01();
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.urdf"));
  // The first two seconds at 120 Hz: standing, then the first steps.
  const Retargeted planted =
      RetargetOntoH1(h1, clip, 240, ContactMode::kPenalty);
  const Retargeted free = RetargetOntoH1(h1, clip, 240, ContactMode::kOff);
  const RetargetMetrics& m = planted.result.metrics;
  INFO("tracking mean " << m.tracking_mean << " max " << m.tracking_max << " ("
                        << m.tracking_worst << "); skating " << m.skating.mean
                        << " (free " << free.result.metrics.skating.mean
                        << "); penetration " << m.penetration_max);
  REQUIRE(m.skating.samples > 0);
  CHECK(m.limit_violations == 0);
  // The walk's stated thresholds (above). Onto the human figure the same
  // clip's feet slide under 1 cm/s (motion_retargeting_test.cc); on the H1
  // the mean is dominated by a few frames at the ends of contact phases,
  // where its one-axis ankle and 0.43 rad hip yaw and roll cannot follow the
  // heel's and toe's turn.
  const double L = planted.track.target_leg_length;
  CHECK(m.skating.mean < 0.05 * L);
  CHECK(m.skating.mean <= 0.25 * free.result.metrics.skating.mean);
  CHECK(m.penetration_max < 0.005);
  CHECK(m.tracking_mean < 0.05);
}

TEST_CASE(
    "iklab retarget onto the H1 writes its joint trajectory and, for the "
    "MJCF file, MuJoCo keyframes",
    "[lab][robot][cli]") {
  const std::filesystem::path dir = testing::ScratchPath("robot_target_cli_test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string clip = (dir / "walk.bvh").string();
  WalkCycleOptions walk;
  walk.frames = 8;
  std::ofstream(clip) << WalkCycleBvh(walk);
  const auto lines = [](const std::string& path) {
    std::ifstream file(path);
    int count = 0;
    for (std::string line; std::getline(file, line);) ++count;
    return count;
  };
  // The built-in map for the H1 (no --map).
  const std::string xml = (dir / "xml").string();
  REQUIRE(RunIklab({"retarget", "--bvh", clip, "--onto",
                    testing::ShippedDataFile("robots/h1.xml"), "--frames", "6",
                    "--out", xml}) == 0);
  CHECK(lines(xml + "/robot_trajectory.csv") == 1 + 6);
  CHECK(lines(xml + "/joints.csv") == 1 + 6);
  InstallMujocoHandlers();
  char error[1000] = "";
  const std::string keys = xml + "/mujoco_keyframes.xml";
  mjModel* m = mj_loadXML(keys.c_str(), nullptr, error, sizeof(error));
  INFO(error);
  REQUIRE(m != nullptr);
  CHECK(m->nkey == 6);
  CHECK(m->nq == 7 + 19);
  mj_deleteModel(m);
  // A URDF robot: the trajectory, no keyframes (MuJoCo's qpos order is an
  // MJCF file's).
  const std::string urdf = (dir / "urdf").string();
  REQUIRE(RunIklab({"retarget", "--bvh", clip, "--onto",
                    testing::ShippedDataFile("robots/h1.urdf"), "--frames", "6",
                    "--out", urdf}) == 0);
  CHECK(lines(urdf + "/robot_trajectory.csv") == 1 + 6);
  CHECK_FALSE(std::filesystem::exists(urdf + "/mujoco_keyframes.xml"));
  // Bad input is a usage error (exit code 2).
  CHECK(RunIklab({"retarget", "--bvh", clip, "--onto",
                  testing::ShippedDataFile("robots/ur5.urdf"), "--out",
                  urdf}) == 2);  // no built-in map onto the UR5
  CHECK(RunIklab({"retarget", "--bvh", clip, "--onto",
                  testing::ShippedDataFile("robots/h1.urdf"), "--map",
                  (dir / "missing.map").string(), "--out", urdf}) == 2);
}

TEST_CASE("Bad robot targets and maps onto the H1 are refused by name",
          "[lab][robot]") {
  REQUIRE_THROWS_WITH(LoadRobotTarget("robot.stl"),
                      Contains("robot.stl: a robot target is a URDF (.urdf) "
                               "or MJCF (.xml) file"));
  REQUIRE_THROWS_WITH(LoadRobotTarget("no_such_robot.urdf"),
                      Contains("no_such_robot.urdf"));
  REQUIRE_THROWS_WITH(LoadRetargetMap("no_such.map"),
                      Contains("no_such.map does not exist; expected a "
                               "retarget map file"));
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.urdf"));
  const Model source = WalkCycle().figure.Compile();
  // A target name of the human figure, not of the robot: the message lists
  // the robot's sites.
  const RetargetMap wrong = ParseRetargetMap(
      "source_axes +y +z\ntarget_axes +z +x\npair Hips pelvis\n"
      "pair LeftKnee left_knee\n",
      "wrong.map");
  REQUIRE_THROWS_WITH(
      CheckRetargetMap(wrong, source, *h1.model),
      Contains("wrong.map:4: target site 'left_knee' is not a site of the "
               "target") &&
          Contains("left_knee_link") && Contains("left_toe"));
  const RetargetMap unknown_source =
      ParseRetargetMap("pair Pelvis pelvis\n", "source.map");
  REQUIRE_THROWS_WITH(CheckRetargetMap(unknown_source, source, *h1.model),
                      Contains("source.map:1: source site 'Pelvis' is not a "
                               "site of the source skeleton"));
}

}  // namespace
}  // namespace iklab
