#include "lab/motion_retargeting.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "framework/bvh_writer.h"
#include "framework/kinematics.h"
#include "lab/retarget_map.h"
#include "lab/retargeting.h"
#include "lab/robot_target.h"
#include "lab/walk_cycle.h"
#include "tests/lab/cmu_clip.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

std::vector<int> FirstFrames(int count) {
  std::vector<int> frames(count);
  for (int f = 0; f < count; ++f) frames[f] = f;
  return frames;
}

TEST_CASE("A retarget map file is parsed with its axes, weights and feet",
          "[lab][retargeting]") {
  const RetargetMap map = ParseRetargetMap(
      "# walk onto the human figure\n"
      "source_axes +y +z\n"
      "target_axes +z +x   # Z up\n"
      "\n"
      "pair Hips pelvis 2 0.5\n"
      "pair LeftToe_End left_foot\n"
      "foot LeftToe_End\n",
      "walk.map");
  REQUIRE(map.pairs.size() == 2);
  CHECK(map.pairs[0].source == "Hips");
  CHECK(map.pairs[0].target == "pelvis");
  CHECK(map.pairs[0].position_weight == 2.0);
  CHECK(map.pairs[0].orientation_weight == 0.5);
  CHECK(map.pairs[0].line == 5);
  CHECK(map.pairs[1].position_weight == 1.0);
  CHECK(map.pairs[1].orientation_weight == 0.0);
  CHECK(map.feet == std::vector<std::string>{"LeftToe_End"});
  // R_TS takes the source's up (+y) to the target's (+z), forward (+z) to
  // forward (+x), and is a rotation.
  const Eigen::Matrix3d R = map.R_TS();
  CHECK((R * Eigen::Vector3d::UnitY() - Eigen::Vector3d::UnitZ()).norm() <
        1e-15);
  CHECK((R * Eigen::Vector3d::UnitZ() - Eigen::Vector3d::UnitX()).norm() <
        1e-15);
  CHECK(R.determinant() == Approx(1.0));
}

TEST_CASE("A malformed retarget map is refused naming its file and line",
          "[lab][retargeting]") {
  const std::string pair = "pair Hips pelvis\n";
  REQUIRE_THROWS_WITH(ParseRetargetMap(pair + "frobnicate x\n", "m.map"),
                      Contains("m.map:2: unknown directive 'frobnicate'"));
  REQUIRE_THROWS_WITH(ParseRetargetMap("pair Hips\n", "m.map"),
                      Contains("m.map:1: 'pair' takes a source site, a "
                               "target site"));
  for (const char* weight : {"-1", "abc", "nan", "inf", "1x"}) {
    INFO(weight);
    REQUIRE_THROWS_WITH(
        ParseRetargetMap(pair + "pair A B " + weight + "\n", "m.map"),
        Contains("m.map:2: position weight '" + std::string(weight) +
                 "' is not a finite number >= 0"));
  }
  REQUIRE_THROWS_WITH(ParseRetargetMap("source_axes +w +z\n" + pair, "m.map"),
                      Contains("m.map:1: axis '+w' is not one of"));
  REQUIRE_THROWS_WITH(ParseRetargetMap("target_axes +y -y\n" + pair, "m.map"),
                      Contains("m.map:1: up +y and forward -y must be "
                               "perpendicular"));
  REQUIRE_THROWS_WITH(ParseRetargetMap(pair + "pair Hips chest\n", "m.map"),
                      Contains("m.map:2: source site 'Hips' is paired twice"));
  REQUIRE_THROWS_WITH(ParseRetargetMap(pair + "\nfoot LeftToe\n", "m.map"),
                      Contains("m.map:3: foot 'LeftToe' is not the source of "
                               "a pair"));
  REQUIRE_THROWS_WITH(ParseRetargetMap("# nothing\n", "m.map"),
                      Contains("m.map: the map pairs no sites"));
  REQUIRE_THROWS_WITH(LoadRetargetMap("no_such_folder/none.map"),
                      Contains("no_such_folder/none.map"));

  // Unknown sites are found against the skeletons, with the line.
  const BvhFigure walk = WalkCycle();
  const Model source = walk.figure.Compile();
  const Model human = HumanFigure().Compile();
  REQUIRE_THROWS_WITH(
      CheckRetargetMap(
          ParseRetargetMap(pair + "pair LeftFoot left_foot\n", "m.map"),
          source, human),
      Contains("m.map:2: source site 'LeftFoot' is not a site of the source "
               "skeleton; its sites are: Hips, "));
  REQUIRE_THROWS_WITH(
      CheckRetargetMap(ParseRetargetMap("pair Hips hips\n", "m.map"), source,
                       human),
      Contains("m.map:1: target site 'hips' is not a site of the target"));
  CHECK_NOTHROW(CheckRetargetMap(HumanoidMap(), source, human));
}

TEST_CASE(
    "A retarget map's target_rest lines set the target's rest pose, and bad "
    "ones are refused naming the file and line",
    "[lab][retargeting][robot]") {
  const std::string pair = "pair Hips pelvis\n";
  const RetargetMap map = ParseRetargetMap(
      pair + "target_rest right_elbow_joint 1.46  # forearm down\n"
             "target_rest left_elbow_joint -0.5\n",
      "m.map");
  REQUIRE(map.target_rest.size() == 2);
  CHECK(map.target_rest[0].coordinate == "right_elbow_joint");
  CHECK(map.target_rest[0].value == 1.46);
  CHECK(map.target_rest[0].line == 2);
  CHECK(map.target_rest[1].value == -0.5);
  CHECK(ParseRetargetMap(pair, "m.map").target_rest.empty());

  REQUIRE_THROWS_WITH(
      ParseRetargetMap(pair + "target_rest right_elbow_joint\n", "m.map"),
      Contains("m.map:2: 'target_rest' takes a target coordinate and its "
               "value"));
  for (const char* value : {"abc", "nan", "inf", "1x", "-inf"}) {
    INFO(value);
    REQUIRE_THROWS_WITH(
        ParseRetargetMap(pair + "target_rest a " + value + "\n", "m.map"),
        Contains("m.map:2: target_rest value '" + std::string(value) +
                 "' is not a finite number"));
  }
  REQUIRE_THROWS_WITH(
      ParseRetargetMap(pair + "target_rest a 1\n\ntarget_rest a 2\n", "m.map"),
      Contains("m.map:4: target_rest: coordinate 'a' is already given on "
               "line 2"));

  // Against the target: an unknown coordinate, a value outside the limits
  // (the H1's elbow: -1.25 .. 2.61 rad).
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  const Model source = WalkCycle().figure.Compile();
  const std::string hips = "pair Hips pelvis\n";
  REQUIRE_THROWS_WITH(
      CheckRetargetMap(
          ParseRetargetMap(hips + "target_rest elbow 1\n", "m.map"), source,
          *h1.model),
      Contains("m.map:2: target_rest: 'elbow' is not a coordinate of the "
               "target; its coordinates are: ") &&
          Contains("right_elbow_joint"));
  REQUIRE_THROWS_WITH(
      CheckRetargetMap(ParseRetargetMap(
                           hips + "\ntarget_rest right_elbow_joint 3\n",
                           "m.map"),
                       source, *h1.model),
      Contains("m.map:3: target_rest: right_elbow_joint = 3 is outside its "
               "limits [-1.25, 2.61]"));
  const Eigen::VectorXd rest = TargetRestPose(map, *h1.model);
  for (int i = 0; i < h1.model->nq(); ++i) {
    const std::string& name = h1.model->dof_name(i);
    INFO(name);
    CHECK(rest[i] == (name == "right_elbow_joint"  ? 1.46
                      : name == "left_elbow_joint" ? -0.5
                                                   : 0.0));
  }
}

TEST_CASE(
    "A pair's posture goal at the source's rest pose is the target site's "
    "rotation at the map's target rest pose",
    "[lab][retargeting][robot]") {
  // R_goal(k, t) = R R_S(k, t) R_S,rest(k)^T R^T R_T,rest(k): a frame in the
  // source's rest pose asks for R_T,rest(k), the target's rest rotation
  // (lab/motion_retargeting.h), here with the H1's elbows bent by
  // target_rest (forearms down) rather than at q = 0 (forearms forward).
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  const BvhFigure walk = WalkCycle();
  const Model source = walk.figure.Compile();
  const Eigen::MatrixXd poses = Eigen::MatrixXd::Zero(1, source.nq());
  const RetargetMap map =
      LoadRetargetMap(testing::ShippedDataFile("retarget/bvh_onto_h1.map"));
  REQUIRE_FALSE(map.target_rest.empty());
  const KeyPointTrack track =
      MakeKeyPointTrack(source, poses, {0}, walk.frame_time, map, *h1.model);
  RetargetMap at_zero = map;
  at_zero.target_rest.clear();
  const KeyPointTrack zero_track = MakeKeyPointTrack(
      source, poses, {0}, walk.frame_time, at_zero, *h1.model);
  Data rest(*h1.model), zero(*h1.model);
  ForwardKinematics(*h1.model, TargetRestPose(map, *h1.model), &rest);
  ForwardKinematics(*h1.model, Eigen::VectorXd::Zero(h1.model->nq()), &zero);
  int elbows = 0;
  for (std::size_t k = 0; k < track.target_sites.size(); ++k) {
    const int site = h1.model->SiteIndex(track.target_sites[k]);
    INFO(track.target_sites[k]);
    CHECK((track.R[0][k] - SitePose(*h1.model, rest, site).linear()).norm() <
          1e-12);
    CHECK((zero_track.R[0][k] - SitePose(*h1.model, zero, site).linear())
              .norm() < 1e-12);
    if (track.target_sites[k].find("elbow") != std::string::npos) {
      ++elbows;
      // The two rest poses differ there by the elbow's 1.46 rad.
      const Eigen::AngleAxisd turn(track.R[0][k].transpose() *
                                   zero_track.R[0][k]);
      CHECK(turn.angle() == Approx(1.46).margin(1e-9));
    }
  }
  CHECK(elbows == 2);
}

TEST_CASE(
    "Retargeting onto a skeleton scaled by 2 doubles the root's height and "
    "keeps the joint angles",
    "[lab][retargeting]") {
  WalkCycleOptions options;
  options.frames = 30;
  const BvhFigure walk = WalkCycle(options);
  const BvhFigure big = ScaledSkeleton(walk, [](int) { return 2.0; });
  const Model source = walk.figure.Compile();
  const auto same = std::make_shared<const Model>(walk.figure.Compile());
  const auto twice = std::make_shared<const Model>(big.figure.Compile());
  const std::vector<int> frames = FirstFrames(walk.num_frames());
  const KeyPointTrack track_same = MakeKeyPointTrack(
      source, walk.poses, frames, walk.frame_time,
      MapByName(source, *same), *same);
  const KeyPointTrack track_twice = MakeKeyPointTrack(
      source, walk.poses, frames, walk.frame_time,
      MapByName(source, *twice), *twice);
  CHECK(track_twice.scale == Approx(2.0));
  CHECK(track_same.scale == Approx(1.0));
  for (double rho : track_twice.segment_scale) CHECK(rho == Approx(2.0));

  MotionRetargetOptions retarget;
  retarget.contacts = ContactMode::kPenalty;
  const auto solver_owner = MakeMotionRetargetSolver("bounded-lm", 1e-6);
  const Solver& solver = *solver_owner;
  const Eigen::VectorXd start = Eigen::VectorXd::Zero(same->nq());
  const MotionRetargetResult a =
      RetargetMotion(same, track_same, solver, retarget, start);
  const MotionRetargetResult b =
      RetargetMotion(twice, track_twice, solver, retarget, start);
  REQUIRE(a.run.q.size() == frames.size());
  REQUIRE(b.run.q.size() == frames.size());
  const int ty = same->DofIndex("Hips.ty");
  for (std::size_t t = 0; t < frames.size(); ++t) {
    INFO("frame " << t);
    // The root's height above the source's ground, doubled; the ground of
    // the target is at 0.
    const double source_height = walk.poses(t, ty) - track_same.source_ground;
    CHECK(b.run.q[t][ty] == Approx(2.0 * source_height).epsilon(1e-3));
    CHECK(a.run.q[t][ty] == Approx(source_height).epsilon(1e-3));
    for (int i = 0; i < same->nq(); ++i) {
      if (same->kind(same->dof_step(i)) != StepKind::kRevolute) continue;
      INFO(same->dof_name(i));
      CHECK(std::abs(b.run.q[t][i] - a.run.q[t][i]) < 1e-3);
      // And the angles are the clip's own, but for the smoothness term's
      // lag (about 0.001 rad at its default weight).
      CHECK(std::abs(a.run.q[t][i] - walk.poses(t, i)) < 5e-3);
    }
  }
  // The metrics scale with the figure (lengths) or not (angles).
  CHECK(b.metrics.tracking_mean ==
        Approx(2.0 * a.metrics.tracking_mean).margin(1e-3));
  CHECK(b.metrics.limit_violations == 0);
}

TEST_CASE("Contacts are detected where a foot point is low and slow",
          "[lab][retargeting]") {
  // 60 frames at 100 Hz, leg length 1, up +z. Foot 0 stands (frames 0–19),
  // swings 0.42 forward and 0.2 up (frames 20–40), stands again; foot 1
  // flies at 2 per second; foot 2 stands still 0.3 above the floor (its own
  // lowest: an ankle); foot 3 stands, then rises slowly (0.1 per second,
  // under the speed threshold) and leaves contact by height.
  const double dt = 0.01;
  std::vector<std::vector<Eigen::Vector3d>> p(60);
  for (int t = 0; t < 60; ++t) {
    const double s = std::clamp((t - 19) / 21.0, 0.0, 1.0);  // swing 0→1
    p[t].push_back({0.42 * s, 0.0, 0.2 * std::sin(M_PI * s)});
    p[t].push_back({2.0 * t * dt, 1.0, 0.5});
    p[t].push_back({0.0, 2.0, 0.3});
    p[t].push_back({0.0, 3.0, 0.1 * std::max(0.0, (t - 10) * dt)});
  }
  const auto contact = DetectContacts(p, Eigen::Vector3d::UnitZ(), dt, 1.0);
  REQUIRE(contact.size() == 60);
  for (int t = 0; t < 60; ++t) {
    INFO("frame " << t);
    if (t <= 18 || t >= 41) CHECK(contact[t][0]);
    if (t >= 20 && t <= 40) CHECK_FALSE(contact[t][0]);
    CHECK_FALSE(contact[t][1]);
    CHECK(contact[t][2]);
    // Height 0.1 (t − 10) dt <= 0.05 until frame 60: the rise is too slow to
    // leave by height here; check with a lower threshold below.
    CHECK(contact[t][3]);
  }
  ContactOptions low;
  low.height_threshold = 0.025;  // 0.1 (t − 10) dt <= 0.025 ⇔ t <= 35
  const auto strict = DetectContacts(p, Eigen::Vector3d::UnitZ(), dt, 1.0, low);
  for (int t = 0; t < 60; ++t) {
    INFO("frame " << t);
    CHECK(static_cast<bool>(strict[t][3]) == (t <= 35));
  }
  ContactOptions bad;
  bad.speed_threshold = 0.0;
  REQUIRE_THROWS_WITH(DetectContacts(p, Eigen::Vector3d::UnitZ(), dt, 1.0, bad),
                      Contains("ContactOptions::speed_threshold must be"));
}

TEST_CASE("Foot skating measures a sliding foot's horizontal speed in contact",
          "[lab][retargeting]") {
  // Foot 0 slides at 0.25 per second along x while it bobs vertically (not
  // skating); foot 1 runs at 3 per second but is never in contact.
  const double dt = 1.0 / 120.0;
  std::vector<std::vector<Eigen::Vector3d>> p;
  std::vector<std::vector<char>> contact;
  for (int t = 0; t < 50; ++t) {
    p.push_back({Eigen::Vector3d(0.25 * t * dt, 0.0, 0.01 * std::sin(t)),
                 Eigen::Vector3d(3.0 * t * dt, 1.0, 0.0)});
    contact.push_back({1, 0});
  }
  const Skating skating = FootSkating(p, contact, Eigen::Vector3d::UnitZ(), dt);
  CHECK(skating.samples == 49);
  CHECK(skating.mean == Approx(0.25));
  CHECK(skating.max == Approx(0.25));
  // A foot that stands still does not skate.
  for (auto& row : p) row[0].x() = 0.5;
  CHECK(FootSkating(p, contact, Eigen::Vector3d::UnitZ(), dt).max == 0.0);
}

// The walk's joints, renamed ("Hips" → "pelvis_j0", ...) and with legs
// 1.2 and arms 0.9 times as long: a second skeleton with other names and
// proportions, written as BVH and read back.
BvhFigure RenamedSkeleton(const BvhFigure& walk) {
  BvhFigure other =
      ScaledSkeleton(walk, [&](int j) {
        const std::string& name = walk.joints[j].name;
        if (name.find("Knee") != std::string::npos ||
            name.find("Ankle") != std::string::npos) {
          return 1.2;
        }
        if (name.find("Elbow") != std::string::npos ||
            name.find("Wrist") != std::string::npos) {
          return 0.9;
        }
        return 1.0;
      });
  for (std::size_t j = 0; j < other.joints.size(); ++j) {
    other.joints[j].name = "seg" + std::to_string(j) + "_" +
                           std::string(1, static_cast<char>('a' + j % 26));
  }
  return LoadBvhFromString(WriteBvh(other), "renamed.bvh");
}

std::string RenamingMap(const BvhFigure& from, const BvhFigure& to) {
  std::string text = "source_axes +y +z\ntarget_axes +y +z\n";
  for (std::size_t j = 0; j < from.joints.size(); ++j) {
    text += "pair " + from.joints[j].name + " " + to.joints[j].name + " 1 1\n";
    if (!from.joints[j].end_sites.empty()) {
      text += "pair " + from.joints[j].name + "_End " + to.joints[j].name +
              "_End 1 0\n";
    }
    if (j == 4 || j == 8) {  // LeftToe, RightToe
      text += "foot " + from.joints[j].name + "_End\n";
    }
  }
  return text;
}

TEST_CASE(
    "A walk retargeted onto a skeleton with other names and proportions and "
    "back again reproduces the walk",
    "[lab][retargeting]") {
  WalkCycleOptions options;
  options.frames = 24;
  const BvhFigure walk = WalkCycle(options);
  const BvhFigure other = RenamedSkeleton(walk);
  REQUIRE(other.joints[4].name == "seg4_e");  // LeftToe
  REQUIRE(walk.joints[4].name == "LeftToe");
  const auto walk_model = std::make_shared<const Model>(walk.figure.Compile());
  const auto other_model = std::make_shared<const Model>(other.figure.Compile());
  const std::vector<int> frames = FirstFrames(walk.num_frames());
  const RetargetMap there = ParseRetargetMap(RenamingMap(walk, other), "there");
  const RetargetMap back = ParseRetargetMap(RenamingMap(other, walk), "back");
  REQUIRE(there.feet.size() == 2);
  const auto solver_owner = MakeMotionRetargetSolver("bounded-lm", 1e-6);
  const Solver& solver = *solver_owner;
  MotionRetargetOptions retarget;
  retarget.contacts = ContactMode::kPenalty;

  const KeyPointTrack forward = MakeKeyPointTrack(
      *walk_model, walk.poses, frames, walk.frame_time, there, *other_model);
  const MotionRetargetResult r1 =
      RetargetMotion(other_model, forward, solver, retarget,
                     Eigen::VectorXd::Zero(other_model->nq()));
  // Through a BVH file of the renamed skeleton.
  BvhFigure written = other;
  written.frame_time = walk.frame_time;
  written.poses.resize(walk.num_frames(), other_model->nq());
  for (int f = 0; f < walk.num_frames(); ++f) {
    written.poses.row(f) = r1.run.q[f].transpose();
  }
  const BvhFigure read = LoadBvhFromString(WriteBvh(written), "other.bvh");
  REQUIRE(read.joints[0].name == "seg0_a");
  const KeyPointTrack backward = MakeKeyPointTrack(
      *other_model, read.poses, frames, read.frame_time, back, *walk_model);
  CHECK(backward.scale == Approx(1.0 / forward.scale));
  const MotionRetargetResult r2 =
      RetargetMotion(walk_model, backward, solver, retarget,
                     Eigen::VectorXd::Zero(walk_model->nq()));

  // Every joint of the round trip within 0.5% of the leg length of the
  // original, frame by frame.
  const double tolerance = 0.005 * forward.source_leg_length;
  Data original(*walk_model), round_trip(*walk_model);
  for (int f = 0; f < walk.num_frames(); ++f) {
    INFO("frame " << f);
    ForwardKinematics(*walk_model, walk.poses.row(f).transpose(), &original);
    ForwardKinematics(*walk_model, r2.run.q[f], &round_trip);
    for (int s = 0; s < walk_model->num_sites(); ++s) {
      INFO(walk_model->site_name(s));
      // Both skeletons stand on the same ground: compare above it.
      const Eigen::Vector3d ground(0, forward.source_ground, 0);
      CHECK((SitePosition(*walk_model, round_trip, s) -
             (SitePosition(*walk_model, original, s) - ground))
                .norm() < tolerance);
    }
  }
}

TEST_CASE(
    "On the walk, key-point retargeting tracks the joints, and with contacts "
    "plants the feet, where effector-only retargeting does neither",
    "[lab][retargeting]") {
  // One gait cycle (1.1 s at 120 Hz) onto the walk's own skeleton; every
  // run measured against the same key points and source contacts.
  WalkCycleOptions options;
  options.frames = 132;
  const BvhFigure walk = WalkCycle(options);
  const auto model = std::make_shared<const Model>(walk.figure.Compile());
  const std::vector<int> frames = FirstFrames(walk.num_frames());
  const KeyPointTrack track =
      MakeKeyPointTrack(*model, walk.poses, frames, walk.frame_time,
                        MapByName(*model, *model), *model);
  const auto solver_owner = MakeMotionRetargetSolver("bounded-lm", 1e-6);
  const Solver& solver = *solver_owner;
  MotionRetargetOptions retarget;
  // The procedural walk's planted foot still slides (its slowest point
  // moves at about 0.4 leg lengths per second, 4–8 cm above its lowest), so
  // the default thresholds, made for captured motion, find no contact in
  // it: here a foot point is planted within 0.1 leg lengths of its lowest
  // and under 0.6 leg lengths per second.
  retarget.contact.height_threshold = 0.1;
  retarget.contact.speed_threshold = 0.6;
  retarget.contacts = ContactMode::kOff;
  const MotionRetargetResult free = RetargetMotion(
      model, track, solver, retarget, Eigen::VectorXd::Zero(model->nq()));
  retarget.contacts = ContactMode::kPenalty;
  const MotionRetargetResult planted = RetargetMotion(
      model, track, solver, retarget, Eigen::VectorXd::Zero(model->nq()));

  const std::vector<std::string> ends = EndSiteNames(walk);
  const RetargetRun effectors =
      Retarget(model, ends, frames,
               EffectorTargets(*model, walk.poses, frames, ends), solver,
               Eigen::VectorXd::Zero(model->nq()));
  const RetargetMetrics before =
      MeasureAgainstTrack(*model, track, effectors, planted.contact);
  const double L = track.source_leg_length;
  INFO("leg length " << L << "; tracking max: effectors "
                     << before.tracking_max << " (" << before.tracking_worst
                     << "), key points " << free.metrics.tracking_max << " ("
                     << free.metrics.tracking_worst << "); skating mean: "
                     << "effectors " << before.skating.mean
                     << ", key points " << free.metrics.skating.mean
                     << ", with contacts " << planted.metrics.skating.mean);
  REQUIRE(planted.metrics.skating.samples > 0);
  // Stated bounds. Key points: every joint within 2% of the leg length,
  // where the effector-only answer lets knees and hips wander by more than
  // 5%.
  CHECK(free.metrics.tracking_max < 0.02 * L);
  CHECK(before.tracking_max > 0.05 * L);
  // Contacts: planted feet slide under 0.05 leg lengths per second, less
  // than a quarter of the source's own sliding (which the free key points
  // and the effectors follow), and stay above the ground.
  CHECK(planted.metrics.skating.mean < 0.05 * L);
  CHECK(planted.metrics.skating.mean < 0.25 * free.metrics.skating.mean);
  CHECK(planted.metrics.skating.mean < 0.25 * before.skating.mean);
  CHECK(planted.metrics.penetration_max < 0.005 * L);
  CHECK(planted.metrics.limit_violations == 0);
}

TEST_CASE(
    "A CMU clip goes onto the human figure with the shipped map, its feet "
    "planted during the clip's contacts",
    "[lab][retargeting]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  // The first second of 131_01 (standing, then the first steps) at 120 Hz.
  const auto [human, track] = testing::CmuOntoHumanTrack(FirstFrames(120));
  const auto solver_owner = MakeMotionRetargetSolver("bounded-lm", 1e-6);
  const Solver& solver = *solver_owner;
  MotionRetargetOptions retarget;  // default contact thresholds
  retarget.contacts = ContactMode::kOff;
  const MotionRetargetResult free = RetargetMotion(
      human, track, solver, retarget, Eigen::VectorXd::Zero(human->nq()));
  retarget.contacts = ContactMode::kPenalty;
  const MotionRetargetResult planted = RetargetMotion(
      human, track, solver, retarget, Eigen::VectorXd::Zero(human->nq()));
  INFO("skating mean free " << free.metrics.skating.mean << ", planted "
                            << planted.metrics.skating.mean
                            << "; tracking mean " << free.metrics.tracking_mean
                            << ", " << planted.metrics.tracking_mean);
  REQUIRE(planted.metrics.skating.samples > 0);
  // Stated bounds: planted feet slide under 1 cm/s and at most a quarter as
  // fast as without contacts; key points within 5 cm on average (other
  // proportions and joints than the clip's, the human figure's limits); no
  // joint outside its limits.
  CHECK(planted.metrics.skating.mean < 0.01);
  CHECK(planted.metrics.skating.mean <= 0.25 * free.metrics.skating.mean);
  CHECK(planted.metrics.tracking_mean < 0.05);
  CHECK(planted.metrics.limit_violations == 0);
}

TEST_CASE(
    "With penalty contacts a planted foot stays put when another of its "
    "points lands, and a foot that lands again is not pulled back to where it "
    "stood (CMU 131_01)",
    "[lab][retargeting][robot]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  // Frames 30-90: at 43 the right toe lands in front of the planted right
  // ankle; at 63-64 the right foot lifts, at 68 its ankle lands again, a
  // stride on, while the toe's released goal would still be fading toward
  // where it stood (through 75). Before the new points were placed on the
  // target's own foot, the toe's planted goal at the source's point dragged
  // the ankle at 0.58 m/s onto the human figure and 0.75 m/s onto the H1
  // at frame 43, and the fade's end moved it at 76 mm/s at 75.
  std::vector<int> frames;
  for (int f = 30; f <= 90; ++f) frames.push_back(f);
  const auto human = testing::CmuOntoHumanTrack(frames);
  const RobotTarget h1 =
      LoadRobotTarget(testing::ShippedDataFile("robots/h1.xml"));
  const KeyPointTrack h1_track = testing::CmuTrack(
      *h1.model,
      LoadRetargetMap(testing::ShippedDataFile("retarget/bvh_onto_h1.map")),
      frames);
  const auto solver = MakeMotionRetargetSolver("bounded-lm", 1e-6);
  MotionRetargetOptions options;
  options.contacts = ContactMode::kPenalty;
  for (const auto& [model, track] :
       {std::pair{human.human, human.track}, std::pair{h1.model, h1_track}}) {
    const MotionRetargetResult r = RetargetMotion(
        model, track, *solver, options, Eigen::VectorXd::Zero(model->nq()));
    const RetargetMetrics& m = r.metrics;
    const double L = track.target_leg_length;
    INFO(model->nq() << " coordinates: skating mean " << m.skating.mean
                     << " max " << m.skating.max << " (leg " << L
                     << "); tracking mean " << m.tracking_mean);
    // The right toe's phase begins at frame 43 beside the planted ankle, and
    // the right ankle's again at 68.
    REQUIRE(r.contact[13][3] == 1);
    REQUIRE(r.contact[12][3] == 0);
    REQUIRE(r.contact[13][2] == 1);
    REQUIRE(r.contact[38][2] == 1);
    REQUIRE(r.contact[37][2] == 0);
    // Stated bound: every planted point under half the speed below which
    // the source's foot counts as planted (0.3 leg lengths per second).
    CHECK(m.skating.max < 0.15 * L);
    CHECK(m.skating.mean < 0.01 * L);
    CHECK(m.tracking_mean < 0.05);
    CHECK(m.limit_violations == 0);
  }
}

}  // namespace
}  // namespace iklab
