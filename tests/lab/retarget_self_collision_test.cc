// Self-collision in motion retargeting (lab/motion_retargeting.h) and the
// self-penetration metric (lab/retarget_metrics.h), on the shipped H1.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "lab/motion_retargeting.h"
#include "lab/retarget_map.h"
#include "lab/robot_target.h"
#include "lab/walk_cycle.h"
#include "tests/cli/run_iklab.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

// Fewer samples than MoveIt's 10,000 keep the tests quick; the matrix is
// still decided by the rules of constraints/self_collision_matrix.h.
constexpr int kMatrixSamples = 1000;

struct SelfCollisionRun {
  KeyPointTrack track;
  MotionRetargetResult result;
};

// The shipped H1 map without the arms' posture (their orientation weights
// 0): the arms held by position goals only, as before the map gave the H1 a
// rest pose for them.
RetargetMap H1MapWithoutArmPosture() {
  RetargetMap map =
      LoadRetargetMap(testing::ShippedDataFile("retarget/bvh_onto_h1.map"));
  for (RetargetPair& pair : map.pairs) {
    const bool arm = pair.target.find("shoulder") != std::string::npos ||
                     pair.target.find("elbow") != std::string::npos ||
                     pair.target.find("hand") != std::string::npos;
    if (arm) pair.orientation_weight = 0.0;
  }
  return map;
}

// The walk onto the H1, with the right hand's and elbow's key points pulled
// into the pelvis (between the hip key points, at the elbow's and hand's
// own height difference): a motion the arm can only follow through the
// body.
SelfCollisionRun RetargetHandIntoBody(const RobotTarget& h1, int frames,
                                      ContactMode self_collision,
                                      const std::string& solver) {
  WalkCycleOptions walk;
  walk.frames = frames;
  const BvhFigure clip = WalkCycle(walk);
  const Model source = clip.figure.Compile();
  std::vector<int> rows(frames);
  for (int f = 0; f < frames; ++f) rows[f] = f;
  // The arm's key points no longer follow the source's arm, so neither does
  // its posture: position goals only on the arms.
  const RetargetMap map = H1MapWithoutArmPosture();
  SelfCollisionRun run;
  run.track = MakeKeyPointTrack(source, clip.poses, rows, clip.frame_time, map,
                                *h1.model);
  const auto index = [&](const std::string& site) {
    for (std::size_t k = 0; k < run.track.target_sites.size(); ++k) {
      if (run.track.target_sites[k] == site) return static_cast<int>(k);
    }
    FAIL("no key point " << site);
    return -1;
  };
  const int hand = index("right_hand"), elbow = index("right_elbow_link");
  const int left_hip = index("left_hip_pitch_link");
  const int right_hip = index("right_hip_pitch_link");
  for (auto& P : run.track.p) {
    const Eigen::Vector3d centre = 0.5 * (P[left_hip] + P[right_hip]);
    P[hand] = centre;
    P[elbow] = centre + 0.2 * run.track.target_up;
  }
  MotionRetargetOptions options;
  options.contacts = ContactMode::kPenalty;
  options.collision_shapes = h1.collision_shapes;
  options.collision_matrix.samples = kMatrixSamples;
  options.self_collision = self_collision;
  run.result = RetargetMotion(h1.model, run.track,
                              *MakeMotionRetargetSolver(solver, 1e-6), options,
                              Eigen::VectorXd::Zero(h1.model->nq()));
  return run;
}

TEST_CASE("The H1 loads with its collision shapes as a retarget target",
          "[lab][robot][collision]") {
  for (const char* file : {"robots/h1.urdf", "robots/h1.xml"}) {
    const RobotTarget h1 = LoadRobotTarget(testing::ShippedDataFile(file));
    INFO(file);
    CHECK(h1.collision_shapes.size() >= 10);
    for (const LinkShape& s : h1.collision_shapes) {
      CHECK_NOTHROW(h1.model->LinkIndex(s.link));
    }
  }
}

TEST_CASE(
    "A robot's self-collision matrix is made once per file and options, and "
    "a retarget given it measures what one computing its own does",
    "[lab][robot][retargeting][collision]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  SelfCollisionMatrixOptions samples;
  samples.samples = kMatrixSamples;
  const std::shared_ptr<const SelfCollisionMatrix> matrix =
      RobotSelfCollisionMatrix(h1, samples);
  REQUIRE(matrix != nullptr);
  // A second load of the same file shares the first's matrix; other
  // options make another.
  CHECK(RobotSelfCollisionMatrix(
            LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml")),
            samples) == matrix);
  SelfCollisionMatrixOptions other = samples;
  other.seed = samples.seed + 1;
  CHECK(RobotSelfCollisionMatrix(h1, other) != matrix);
  RobotTarget bare = h1;
  bare.collision_shapes.clear();
  CHECK(RobotSelfCollisionMatrix(bare, samples) == nullptr);

  WalkCycleOptions walk;
  walk.frames = 12;
  const BvhFigure clip = WalkCycle(walk);
  const Model source = clip.figure.Compile();
  std::vector<int> rows(walk.frames);
  for (int f = 0; f < walk.frames; ++f) rows[f] = f;
  const KeyPointTrack track = MakeKeyPointTrack(
      source, clip.poses, rows, clip.frame_time,
      LoadRetargetMap(testing::ShippedDataFile("retarget/bvh_onto_h1.map")),
      *h1.model);
  const auto solver = MakeMotionRetargetSolver("bounded-lm", 1e-6);
  MotionRetargetOptions options;
  options.collision_shapes = h1.collision_shapes;
  options.collision_matrix = samples;
  const Eigen::VectorXd start = Eigen::VectorXd::Zero(h1.model->nq());
  const MotionRetargetResult own =
      RetargetMotion(h1.model, track, *solver, options, start);
  options.self_collision_matrix = matrix;
  const MotionRetargetResult given =
      RetargetMotion(h1.model, track, *solver, options, start);
  REQUIRE(given.metrics.self_penetration.measured);
  CHECK(given.self_collision_matrix.pairs.size() == matrix->pairs.size());
  CHECK(given.self_collision_matrix.EnabledPairs() ==
        own.self_collision_matrix.EnabledPairs());
  CHECK(given.metrics.self_penetration.pairs ==
        own.metrics.self_penetration.pairs);
  CHECK(given.metrics.self_penetration.max ==
        own.metrics.self_penetration.max);

  // A matrix that does not fit the shapes is refused, naming the option; a
  // matrix without shapes is an invalid option.
  options.self_collision_matrix = std::make_shared<const SelfCollisionMatrix>();
  REQUIRE_THROWS_WITH(
      RetargetMotion(h1.model, track, *solver, options, start),
      Catch::Matchers::Contains("MotionRetargetOptions::self_collision_matrix"));
  options.collision_shapes.clear();
  std::string why;
  CHECK_FALSE(options.IsValid(&why));
  CHECK_THAT(why, Catch::Matchers::Contains("self_collision_matrix is given"));
}

TEST_CASE(
    "A retarget that drives the H1's hand into its body reports the "
    "self-penetration, and the self-collision option reduces it",
    "[lab][robot][retargeting][collision]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.urdf"));
  const int frames = 12;
  const SelfCollisionRun off =
      RetargetHandIntoBody(h1, frames, ContactMode::kOff, "bounded-lm");
  const SelfPenetration& before = off.result.metrics.self_penetration;
  INFO("off: max " << before.max << " in " << before.frames << " frames ("
                   << before.worst_pair << "), " << before.pairs << " pairs");
  REQUIRE(before.measured);
  REQUIRE(before.pairs > 0);
  CHECK(off.result.self_collision_matrix.Count(CollisionPairReason::kEnabled) >
        0);
  // The hand's point lies in the pelvis: the arm ends inside the body in
  // every frame, centimetres deep.
  CHECK(before.frames == frames);
  CHECK(before.max > 0.02);
  CHECK_THAT(before.worst_pair, Catch::Matchers::Contains("right"));

  SECTION("as a penalty with bounded LM") {
    const SelfCollisionRun on =
        RetargetHandIntoBody(h1, frames, ContactMode::kPenalty, "bounded-lm");
    const SelfPenetration& after = on.result.metrics.self_penetration;
    INFO("penalty: max " << after.max << " in " << after.frames << " frames ("
                         << after.worst_pair << ")");
    REQUIRE(after.measured);
    // The penalty's weight is 100 × the key points': the overlap left is
    // about 1% of the key point's miss.
    CHECK(after.max < 0.1 * before.max);
    CHECK(after.max < 0.005);
    // The hand stays as near its point as the body allows: it misses it by
    // about the depth the arm no longer goes into the body.
    CHECK(on.result.metrics.tracking_max > off.result.metrics.tracking_max);
    CHECK(on.result.metrics.limit_violations == 0);
  }
  SECTION("as hard inequality constraints with SLSQP") {
    const SelfCollisionRun on =
        RetargetHandIntoBody(h1, 4, ContactMode::kHard, "slsqp");
    const SelfPenetration& after = on.result.metrics.self_penetration;
    INFO("hard: max " << after.max << " in " << after.frames << " frames ("
                      << after.worst_pair << ")");
    REQUIRE(after.measured);
    CHECK(after.max < 0.5 * before.max);
    // The constraints hold the matrix's enabled pairs apart in every frame
    // SLSQP solved; what overlap is left is on "never" pairs (no overlap in
    // the matrix's samples, so not checked during the solve).
    const ShapeCollisionGoal enabled(
        *h1.model, h1.collision_shapes, {},
        on.result.self_collision_matrix.EnabledPairs());
    Data data(*h1.model);
    for (std::size_t t = 0; t < on.result.run.q.size(); ++t) {
      const RetargetFrame& r = on.result.run.frames[t];
      INFO("frame " << t << ": " << SolveStatusName(r.status) << " "
                    << r.message);
      if (r.status == SolveStatus::kNumericalFailure) continue;
      ForwardKinematics(*h1.model, on.result.run.q[t], &data);
      CHECK(enabled.Distances(*h1.model, data).minCoeff() > -1e-4);
    }
  }
}

TEST_CASE(
    "Self-penetration is n/a, not 0, onto a skeleton without collision "
    "geometry, and self-collision needs one",
    "[lab][retargeting][collision]") {
  WalkCycleOptions walk;
  walk.frames = 6;
  const BvhFigure clip = WalkCycle(walk);
  const auto model = std::make_shared<const Model>(clip.figure.Compile());
  std::vector<int> rows = {0, 1, 2, 3, 4, 5};
  const KeyPointTrack track =
      MakeKeyPointTrack(*model, clip.poses, rows, clip.frame_time,
                        MapByName(*model, *model), *model);
  MotionRetargetOptions options;
  const MotionRetargetResult r =
      RetargetMotion(model, track, *MakeMotionRetargetSolver("bounded-lm"),
                     options, Eigen::VectorXd::Zero(model->nq()));
  CHECK_FALSE(r.metrics.self_penetration.measured);
  CHECK(r.self_collision_matrix.pairs.empty());

  options.self_collision = ContactMode::kPenalty;
  std::string why;
  CHECK_FALSE(options.IsValid(&why));
  CHECK_THAT(why, Catch::Matchers::Contains("collision_shapes"));
  CHECK_THROWS_WITH(
      RetargetMotion(model, track, *MakeMotionRetargetSolver("bounded-lm"),
                     options, Eigen::VectorXd::Zero(model->nq())),
      Catch::Matchers::Contains("no collision_shapes"));
}

TEST_CASE(
    "iklab retarget writes the self-penetration metric, n/a for a skeleton, "
    "and refuses --self-collision where it cannot apply",
    "[lab][robot][cli][collision]") {
  const std::filesystem::path dir =
      testing::ScratchPath("retarget_self_collision_test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string clip = (dir / "walk.bvh").string();
  WalkCycleOptions walk;
  walk.frames = 6;
  std::ofstream(clip) << WalkCycleBvh(walk);
  const auto read = [](const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  };
  // CSV column `name` of the second line; fields split as RFC 4180 quotes
  // them (the method label holds a comma), and the row has every column.
  const auto csv_field = [&](const std::string& path, const std::string& name) {
    std::istringstream text(read(path));
    std::string line;
    const auto split = [](const std::string& row) {
      std::vector<std::string> fields(1);
      bool quoted = false;
      for (std::size_t k = 0; k < row.size(); ++k) {
        const char c = row[k];
        if (quoted && c == '"' && k + 1 < row.size() && row[k + 1] == '"') {
          fields.back() += '"';
          ++k;
        } else if (c == '"') {
          quoted = !quoted;
        } else if (c == ',' && !quoted) {
          fields.emplace_back();
        } else {
          fields.back() += c;
        }
      }
      return fields;
    };
    std::getline(text, line);
    const std::vector<std::string> header = split(line);
    std::getline(text, line);
    const std::vector<std::string> row = split(line);
    CHECK(row.size() == header.size());
    for (std::size_t i = 0; i < header.size() && i < row.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    return std::string("(no column)");
  };

  const std::string robot = (dir / "robot").string();
  REQUIRE(RunIklab({"retarget", "--bvh", clip, "--onto",
                    testing::ShippedDataFile("robots/h1.urdf"),
                    "--self-collision", "penalty", "--out", robot}) == 0);
  const nlohmann::json m =
      nlohmann::json::parse(read(robot + "/metrics.json"));
  REQUIRE(m["self_penetration_max"].is_number());
  CHECK(m["self_penetration_max"].get<double>() >= 0.0);
  CHECK(m["self_penetration_frames"].is_number_integer());
  CHECK(m["self_penetration_pairs"].get<int>() > 0);
  CHECK_THAT(m["method"].get<std::string>(),
             Catch::Matchers::Contains("self-collision penalty"));
  CHECK(csv_field(robot + "/metrics.csv", "self_penetration_frames") ==
        std::to_string(m["self_penetration_frames"].get<int>()));

  const std::string skeleton = (dir / "skeleton").string();
  REQUIRE(RunIklab({"retarget", "--bvh", clip, "--out", skeleton}) == 0);
  const nlohmann::json s =
      nlohmann::json::parse(read(skeleton + "/metrics.json"));
  CHECK(s["self_penetration_max"].is_null());
  CHECK(s["self_penetration_frames"].is_null());
  CHECK(csv_field(skeleton + "/metrics.csv", "self_penetration_max") == "n/a");

  // Usage errors (exit code 2): no geometry; hard with a goals-only solver.
  CHECK(RunIklab({"retarget", "--bvh", clip, "--self-collision", "penalty",
                  "--out", skeleton}) == 2);
  CHECK(RunIklab({"retarget", "--bvh", clip, "--onto",
                  testing::ShippedDataFile("robots/h1.urdf"),
                  "--self-collision", "hard", "--out", robot}) == 2);
}

// Frames whose right shoulder pitch is above 2.5 rad: the corner of the
// pitch (+-2.87) and roll (-3.11 .. 0.34) limits.
int RightShoulderCornerFrames(const Model& h1, const MotionRetargetResult& r) {
  const int pitch = h1.DofIndex("right_shoulder_pitch_joint");
  int frames = 0;
  for (const Eigen::VectorXd& q : r.run.q) frames += q[pitch] > 2.5;
  return frames;
}

// The right arm's largest miss (elbow and hand key points) over a retarget.
double RightArmMiss(const Model& h1, const KeyPointTrack& track,
                    const MotionRetargetResult& r) {
  Data data(h1);
  double largest = 0.0;
  for (std::size_t t = 0; t < r.run.q.size(); ++t) {
    ForwardKinematics(h1, r.run.q[t], &data);
    for (std::size_t k = 0; k < track.target_sites.size(); ++k) {
      const std::string& site = track.target_sites[k];
      if (site != "right_elbow_link" && site != "right_hand") continue;
      largest = std::max(
          largest,
          (SitePosition(h1, data, h1.SiteIndex(site)) - track.p[t][k]).norm());
    }
  }
  return largest;
}

// The procedural walk's first 60 frames onto the H1 through `map`, from
// `start`, with penalty contacts and the branch check at
// `branch_check_error`.
struct WalkRun {
  KeyPointTrack track;
  MotionRetargetResult result;
};
WalkRun WalkOntoH1(const RobotTarget& h1, const RetargetMap& map,
                   const Eigen::VectorXd& start, double branch_check_error) {
  WalkCycleOptions walk;
  walk.frames = 60;
  const BvhFigure clip = WalkCycle(walk);
  std::vector<int> rows(walk.frames);
  for (int f = 0; f < walk.frames; ++f) rows[f] = f;
  WalkRun run;
  run.track = MakeKeyPointTrack(clip.figure.Compile(), clip.poses, rows,
                                clip.frame_time, map, *h1.model);
  MotionRetargetOptions options;
  options.contacts = ContactMode::kPenalty;
  options.branch_check_error = branch_check_error;
  run.result = RetargetMotion(h1.model, run.track,
                              *MakeMotionRetargetSolver("bounded-lm", 1e-6),
                              options, start);
  return run;
}

TEST_CASE(
    "The branch check brings an H1 arm started in its shoulder's limit "
    "corner back onto its key points",
    "[lab][robot][retargeting]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  const Model& model = *h1.model;
  // Position goals only on the arms: nothing but the key points pulls the
  // arm out. The start: the right arm in its shoulder's limit corner (pitch
  // 2.8 of 2.87 rad, roll -3.0 of -3.11: raised behind and over the head,
  // far from the walk's hanging arm), where a warm start that drifted along
  // the arm's other answers would leave it.
  const RetargetMap map = H1MapWithoutArmPosture();
  Eigen::VectorXd start = TargetRestPose(map, model);
  start[model.DofIndex("right_shoulder_pitch_joint")] = 2.8;
  start[model.DofIndex("right_shoulder_roll_joint")] = -3.0;
  const WalkRun unchecked = WalkOntoH1(h1, map, start, 0.0);
  const WalkRun checked = WalkOntoH1(h1, map, start, 0.1);
  const double before = RightArmMiss(model, unchecked.track, unchecked.result);
  const double after = RightArmMiss(model, checked.track, checked.result);
  const int stuck = RightShoulderCornerFrames(model, unchecked.result);
  INFO("right arm's largest miss: unchecked "
       << before << " m (" << stuck << " frames in the corner), checked "
       << after << " m (" << RightShoulderCornerFrames(model, checked.result)
       << ")");
  // Without the check a local solver stays in the corner on every frame,
  // missing the arm's key points by decimetres (the case this test is
  // about) ...
  REQUIRE(stuck == static_cast<int>(unchecked.result.run.q.size()));
  REQUIRE(before > 0.1);  // metres, the H1's unit
  // ... with it the first frame that misses by more than 0.1 leg lengths is
  // solved again from the map's rest pose (not the start, which is the
  // corner), and the arm follows its key points from there: within 1 cm,
  // never in the corner.
  CHECK(after < 0.01);
  CHECK(RightShoulderCornerFrames(model, checked.result) == 0);
  CHECK(checked.result.metrics.tracking_mean <
        0.5 * unchecked.result.metrics.tracking_mean);
  CHECK(checked.result.metrics.limit_violations == 0);
}

TEST_CASE(
    "The forearms' posture holds an H1 arm's twist about its own axis, which "
    "its key points leave free",
    "[lab][robot][retargeting]") {
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  const Model& model = *h1.model;
  const RetargetMap shipped =
      LoadRetargetMap(testing::ShippedDataFile("retarget/bvh_onto_h1.map"));
  const Eigen::VectorXd rest = TargetRestPose(shipped, model);
  const WalkRun posture = WalkOntoH1(h1, shipped, rest, 0.0);
  const WalkRun positions = WalkOntoH1(h1, H1MapWithoutArmPosture(), rest, 0.0);
  // The right forearm's largest turn from its posture goal R_goal (the
  // source's forearm, file comment of lab/motion_retargeting.h), and the
  // shoulder yaw's (the upper arm's twist) largest value, over the walk.
  const int yaw = model.DofIndex("right_shoulder_yaw_joint");
  const auto forearm = [&](const WalkRun& r, double* largest_yaw) {
    const int site = model.SiteIndex("right_elbow_link");
    std::size_t k = 0;
    while (r.track.target_sites[k] != "right_elbow_link") ++k;
    Data data(model);
    double largest = 0.0;
    *largest_yaw = 0.0;
    for (std::size_t t = 0; t < r.result.run.q.size(); ++t) {
      ForwardKinematics(model, r.result.run.q[t], &data);
      const Eigen::AngleAxisd turn(
          SitePose(model, data, site).linear().transpose() *
          posture.track.R[t][k]);
      largest = std::max(largest, turn.angle());
      *largest_yaw = std::max(*largest_yaw, std::abs(r.result.run.q[t][yaw]));
    }
    return largest;
  };
  double yaw_with = 0.0, yaw_without = 0.0;
  const double with = forearm(posture, &yaw_with);
  const double without = forearm(positions, &yaw_without);
  INFO("right forearm's largest turn from the source's: "
       << with << " rad with its posture, " << without
       << " without; |shoulder yaw| " << yaw_with << " / " << yaw_without
       << " rad; right arm's largest miss "
       << RightArmMiss(model, posture.track, posture.result) << " / "
       << RightArmMiss(model, positions.track, positions.result) << " m");
  // Without the posture the twist wanders (the case this test is about) ...
  REQUIRE(without > 0.3);
  REQUIRE(yaw_without > 0.3);
  // ... with it the forearm stays within 0.1 rad (6 degrees) of the
  // source's turn and the shoulder yaw within 0.15 rad of the rest pose's
  // 0; both runs meet the arm's key points within 2 cm (the posture, at
  // weight 0.05, trades about 1 cm of them).
  CHECK(with < 0.1);
  CHECK(yaw_with < 0.15);
  CHECK(RightArmMiss(model, posture.track, posture.result) < 0.02);
  CHECK(RightArmMiss(model, positions.track, positions.result) < 0.02);
}

}  // namespace
}  // namespace iklab
