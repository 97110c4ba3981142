#include "lab/procedural_motions.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include "framework/builders.h"
#include "framework/kinematics.h"
#include "lab/motion_retargeting.h"
#include "lab/retarget_map.h"
#include "lab/retarget_metrics.h"
#include "solvers/optimization/bounded_lm_solver.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// The source contact flags of a motion's foot points (HumanoidMap: left
// ankle, left toe tip, right ankle, right toe tip), default thresholds.
struct MotionContacts {
  KeyPointTrack track;
  std::vector<std::vector<char>> contact;
};
MotionContacts ContactsOf(const BvhFigure& clip, const Model& human) {
  const Model source = clip.figure.Compile();
  std::vector<int> frames(clip.num_frames());
  for (int f = 0; f < clip.num_frames(); ++f) frames[f] = f;
  MotionContacts c{MakeKeyPointTrack(source, clip.poses, frames,
                                     clip.frame_time, HumanoidMap(), human),
                   {}};
  c.contact = SourceContacts(c.track, ContactOptions());
  return c;
}

TEST_CASE(
    "The procedural squat and reach keep every foot point in contact on "
    "every frame, standing exactly still",
    "[lab][retargeting][motions]") {
  const Model human = HumanFigure().Compile();
  for (const std::string name : {"squat", "reach"}) {
    INFO(name);
    const BvhFigure clip = ProceduralMotion(name);
    const MotionContacts c = ContactsOf(clip, human);
    REQUIRE(c.track.feet.size() == 4);
    int in_contact = 0;
    for (const auto& row : c.contact) {
      for (char flag : row) in_contact += flag;
    }
    CHECK(in_contact == 4 * clip.num_frames());
    // The feet are placed, not animated by angles: every foot point stays
    // where it stood at frame 0 (the two-link leg solved in closed form).
    double moved = 0.0;
    for (const auto& feet : c.track.source_feet) {
      for (std::size_t k = 0; k < feet.size(); ++k) {
        moved = std::max(moved, (feet[k] - c.track.source_feet[0][k]).norm());
      }
    }
    CHECK(moved < 1e-9);
    // And the rest of the body moves: the root goes down (cm).
    const int ty = 1;  // Hips Yposition
    CHECK(clip.poses.col(ty).maxCoeff() - clip.poses.col(ty).minCoeff() > 3.0);
  }
}

TEST_CASE(
    "The procedural run alternates single stances with flight phases, and a "
    "planted foot stands still",
    "[lab][retargeting][motions]") {
  const Model human = HumanFigure().Compile();
  const BvhFigure clip = ProceduralMotion("run");
  const ProceduralMotionOptions run = MotionDefaults("run");
  REQUIRE(clip.num_frames() == run.frames);
  const MotionContacts c = ContactsOf(clip, human);
  const int frames = clip.num_frames();
  int flight = 0, left = 0, right = 0, both = 0, stance_starts = 0;
  for (int t = 0; t < frames; ++t) {
    const bool l = c.contact[t][0] || c.contact[t][1];
    const bool r = c.contact[t][2] || c.contact[t][3];
    left += l;
    right += r;
    both += l && r;
    flight += !l && !r;
    if (t > 0 && l && !(c.contact[t - 1][0] || c.contact[t - 1][1])) {
      ++stance_starts;
    }
  }
  INFO("left " << left << ", right " << right << ", flight " << flight
               << " of " << frames << " frames");
  // Each foot planted for about duty = 0.3 of the cycle (the detection
  // adds a frame or two at lift-off), never both at once, and the rest of
  // the time both in the air: (1 − 2 duty) = 0.4 of the cycle.
  CHECK(both == 0);
  CHECK(left > 0.25 * frames);
  CHECK(left < 0.40 * frames);
  CHECK(right > 0.25 * frames);
  CHECK(right < 0.40 * frames);
  CHECK(flight > 0.25 * frames);
  // Three cycles (2.1 s): the left foot's first stance is under way at
  // frame 0 (it is centred on t = 0); it lands again at (0.85 + n) periods,
  // n = 0, 1, 2.
  CHECK(stance_starts == 3);
  // During a contact, the planted ankle slides less than 1 cm/s (its
  // planned speed is 0; the flagged frames at lift-off have started to
  // move).
  const Skating skating =
      FootSkating(c.track.source_feet, c.contact, c.track.source_up,
                  clip.frame_time);
  CHECK(skating.samples > 0);
  CHECK(skating.mean < 10.0);  // cm/s
  // The root travels stride / period.
  const double speed =
      (clip.poses(frames - 1, 2) - clip.poses(0, 2)) /
      ((frames - 1) * clip.frame_time);
  CHECK(speed == Approx(run.stride / run.period));
}

TEST_CASE("Every procedural motion retargets onto the human figure",
          "[lab][retargeting][motions]") {
  const auto human = std::make_shared<const Model>(HumanFigure().Compile());
  BoundedLmOptions lm;
  lm.common.position_tolerance = 1e-6;
  lm.common.time_budget_seconds = 0.0;
  lm.max_attempts = 1;
  const BoundedLmSolver solver(lm);
  for (const std::string& name : ProceduralMotionNames()) {
    INFO(name);
    const BvhFigure clip = ProceduralMotion(name, 12);
    REQUIRE(clip.num_frames() == 12);
    const Model source = clip.figure.Compile();
    std::vector<int> frames(12);
    for (int f = 0; f < 12; ++f) frames[f] = f;
    const KeyPointTrack track = MakeKeyPointTrack(
        source, clip.poses, frames, clip.frame_time, HumanoidMap(), *human);
    MotionRetargetOptions options;
    options.contacts = ContactMode::kPenalty;
    const MotionRetargetResult r = RetargetMotion(
        human, track, solver, options, Eigen::VectorXd::Zero(human->nq()));
    REQUIRE(r.run.q.size() == 12);
    // Key points within 5 cm on average (other proportions, the human
    // figure's limits), none outside the limits.
    CHECK(r.metrics.tracking_mean < 0.05);
    CHECK(r.metrics.limit_violations == 0);
  }
}

TEST_CASE("With hard contacts SLSQP holds both planted feet of the squat and "
          "tracks it as well as the penalty form",
          "[lab][retargeting][motions]") {
  // Both feet are planted from the first frame: hard constraints at the
  // source's foot points (other proportions than the target's foot) or on
  // every point of a rigid foot are inconsistent or dependent, and SLSQP
  // used to stop at its start on every frame (the figure stood still).
  const auto human = std::make_shared<const Model>(HumanFigure().Compile());
  const int n = 24;
  const BvhFigure clip = ProceduralMotion("squat", n);
  const Model source = clip.figure.Compile();
  std::vector<int> frames(n);
  for (int f = 0; f < n; ++f) frames[f] = f;
  const KeyPointTrack track = MakeKeyPointTrack(
      source, clip.poses, frames, clip.frame_time, HumanoidMap(), *human);
  const Eigen::VectorXd start = Eigen::VectorXd::Zero(human->nq());
  MotionRetargetOptions options;
  options.contacts = ContactMode::kPenalty;
  const MotionRetargetResult soft = RetargetMotion(
      human, track, *MakeMotionRetargetSolver("bounded-lm"), options, start);
  options.contacts = ContactMode::kHard;
  const MotionRetargetResult hard = RetargetMotion(
      human, track, *MakeMotionRetargetSolver("slsqp"), options, start);
  int failures = 0;
  for (const RetargetFrame& f : hard.run.frames) {
    failures += f.status == SolveStatus::kNumericalFailure ? 1 : 0;
  }
  CHECK(failures == 0);
  INFO("tracking mean: hard " << hard.metrics.tracking_mean << " m, penalty "
                              << soft.metrics.tracking_mean << " m");
  CHECK(hard.metrics.tracking_mean <= 1.25 * soft.metrics.tracking_mean + 1e-3);
  REQUIRE(hard.metrics.skating.samples > 0);
  CHECK(hard.metrics.skating.max < 0.01);  // m/s
  CHECK(hard.metrics.penetration_max < 1e-4);
  CHECK(hard.metrics.limit_violations == 0);
}

TEST_CASE("A procedural motion's name and options are checked",
          "[lab][retargeting][motions]") {
  REQUIRE_THROWS_WITH(ProceduralMotionBvh("jump"),
                      Contains("no procedural motion named 'jump'; the known "
                               "ones are walk, run, squat, reach"));
  ProceduralMotionOptions o = MotionDefaults("run");
  o.duty = 0.5;
  REQUIRE_THROWS_WITH(ProceduralMotionBvh("run", o),
                      Contains("ProceduralMotionOptions::duty must be in (0, "
                               "0.5)"));
  o = MotionDefaults("squat");
  o.frame_time = 0.0;
  REQUIRE_THROWS_WITH(ProceduralMotionBvh("squat", o),
                      Contains("ProceduralMotionOptions::frame_time must be"));
  REQUIRE_THROWS_WITH(ProceduralMotionBvh("reach", -1),
                      Contains("frames must be >= 0"));
}

// One ball joint as Z, Y, X Euler angles (a BVH joint with three rotation
// channels) turning at a constant angular velocity about an oblique axis:
// its angle passes ±180° and its Euler angles jump by 2π.
BvhFigure SpinningJoint(double dt, int frames,
                        const std::function<double(double)>& angle) {
  std::string text =
      "HIERARCHY\nROOT Spin\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation "
      "Yrotation Xrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n"
      "MOTION\nFrames: " +
      std::to_string(frames) + "\nFrame Time: " + std::to_string(dt) + "\n";
  const Eigen::Vector3d axis = Eigen::Vector3d(1.0, 2.0, 3.0).normalized();
  for (int f = 0; f < frames; ++f) {
    const Eigen::Matrix3d R =
        Eigen::AngleAxisd(angle(f * dt), axis).toRotationMatrix();
    // R = Rz(a) Ry(b) Rx(c); Eigen's eulerAngles(2, 1, 0) returns a in
    // [0, π], b and c in [−π, π]: a representation that jumps.
    const Eigen::Vector3d zyx = R.eulerAngles(2, 1, 0) * 180.0 / M_PI;
    char line[128];
    std::snprintf(line, sizeof line, "%.12f %.12f %.12f\n", zyx[0], zyx[1],
                  zyx[2]);
    text += line;
  }
  return LoadBvhFromString(text, "spin.bvh");
}

std::vector<Eigen::VectorXd> Rows(const BvhFigure& bvh) {
  std::vector<Eigen::VectorXd> q;
  for (int f = 0; f < bvh.num_frames(); ++f) {
    q.push_back(bvh.poses.row(f).transpose());
  }
  return q;
}

TEST_CASE(
    "Angular jerk is measured on rotations: a constant angular velocity "
    "through ±180° has none, a cubic angle has its constant jerk",
    "[lab][retargeting][metrics]") {
  const double dt = 1.0 / 120.0, omega = 2.0;  // rad/s, 3 s: 6 rad
  const BvhFigure spin = SpinningJoint(dt, 360,
                                       [&](double t) { return omega * t; });
  const Model model = spin.figure.Compile();
  const std::vector<Eigen::VectorXd> q = Rows(spin);
  // The coordinates jump (the old measure, on Euler angles, saw an
  // enormous jerk there) ...
  double largest_step = 0.0;
  for (std::size_t t = 1; t < q.size(); ++t) {
    largest_step = std::max(largest_step, (q[t] - q[t - 1]).cwiseAbs().maxCoeff());
  }
  REQUIRE(largest_step > 3.0);
  // ... but the rotation turns steadily.
  const RetargetMetrics m = MeasureRetargeting(
      model, q, {}, std::vector<std::vector<Eigen::Vector3d>>(q.size()), {},
      {}, Eigen::Vector3d::UnitY(), dt, {}, {});
  CHECK(m.jerk_rms < 1e-4);  // rad/s³
  const std::vector<double> per_frame = RotationJerk(model, q, dt);
  CHECK(per_frame.size() == q.size() - 3);

  // θ(t) = c t³ / 6 about the same axis: jerk c (the angle's third
  // derivative, about a fixed axis).
  const double c = 5.0;
  const BvhFigure cubic = SpinningJoint(
      dt, 240, [&](double t) { return c * t * t * t / 6.0; });
  const RetargetMetrics mc = MeasureRetargeting(
      cubic.figure.Compile(), Rows(cubic), {},
      std::vector<std::vector<Eigen::Vector3d>>(240), {}, {},
      Eigen::Vector3d::UnitY(), dt, {}, {});
  CHECK(mc.jerk_rms == Approx(c).epsilon(1e-4));
}

TEST_CASE("Key-point jerk is the third difference of positions over dt³",
          "[lab][retargeting][metrics]") {
  // p(t) = (a t³ / 6, t, 0): jerk a; a point at rest: 0. RMS over both:
  // a / sqrt(2).
  const double dt = 0.01, a = 3.0;
  std::vector<std::vector<Eigen::Vector3d>> p;
  for (int t = 0; t < 50; ++t) {
    const double s = t * dt;
    p.push_back({Eigen::Vector3d(a * s * s * s / 6.0, s, 0.0),
                 Eigen::Vector3d(1.0, 2.0, 3.0)});
  }
  const std::vector<double> jerk = PointJerk(p, dt);
  REQUIRE(jerk.size() == 47);
  for (double j : jerk) CHECK(j == Approx(a / std::sqrt(2.0)).epsilon(1e-6));
  p[10].pop_back();
  REQUIRE_THROWS_WITH(PointJerk(p, dt),
                      Contains("every frame must hold the same number"));
}

}  // namespace
}  // namespace iklab
