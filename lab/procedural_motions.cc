#include "lab/procedural_motions.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "framework/bvh_writer.h"
#include "lab/walk_cycle.h"

namespace iklab {

// Named, not anonymous: the unity batches compile this file with others.
namespace procedural_motions_internal {

constexpr double kDegrees = M_PI / 180.0;
// The walk's skeleton (lab/walk_cycle.h), centimetres.
constexpr double kThigh = 42.0;
constexpr double kShank = 41.0;
constexpr double kHipBelowRoot = 6.0;
constexpr double kHipHalfWidth = 9.0;
// Height of the ankle joint above the floor when the foot is flat: the toe
// joint is 6 cm below it, the toe's End Site level with the toe joint.
constexpr double kAnkleHeight = 6.0;

// 0 → 1 with zero slope at both ends (u clamped to [0, 1]).
double Ramp(double u) {
  return 0.5 * (1.0 - std::cos(M_PI * std::clamp(u, 0.0, 1.0)));
}
// 0 → 1 → 0 over u in [0, 1], zero slope at the ends and the middle.
double Bump(double u) { return 0.5 * (1.0 - std::cos(2.0 * M_PI * u)); }

// X rotations (radians) of hip, knee and ankle that put the ankle joint at
// (fwd, up) relative to the hip joint, the knee in front, the foot at world
// pitch `pitch` (positive: toes down). See the file comment.
struct LegAngles {
  double hip = 0.0, knee = 0.0, ankle = 0.0;
};
LegAngles PlanarLeg(double fwd, double up, double pitch) {
  const double reach = 0.999 * (kThigh + kShank);
  const double D =
      std::clamp(std::hypot(fwd, up), std::abs(kThigh - kShank) + 1e-6, reach);
  const double kappa =
      M_PI - std::acos(std::clamp((kThigh * kThigh + kShank * kShank - D * D) /
                                      (2.0 * kThigh * kShank),
                                  -1.0, 1.0));
  const double theta =
      std::atan2(fwd, -up) +
      std::acos(std::clamp((kThigh * kThigh + D * D - kShank * kShank) /
                               (2.0 * kThigh * D),
                           -1.0, 1.0));
  // Flexion forward is a negative X rotation (the leg hangs along −Y, +Z
  // is forward); the knee's positive X rotation bends the shank back.
  return {-theta, kappa, theta - kappa + pitch};
}

// Writes the channels of one frame of the walk's skeleton.
class FrameWriter {
 public:
  FrameWriter(BvhFigure* bvh, int frame) : bvh_(bvh), frame_(frame) {}
  void Root(double x, double y, double z) {
    bvh_->poses(frame_, 0) = x;
    bvh_->poses(frame_, 1) = y;
    bvh_->poses(frame_, 2) = z;
  }
  // Z, Y, X rotations in degrees (the channel order).
  void Rotate(const std::string& joint, double z, double y, double x) {
    const int c = Joint(joint).first_channel;
    bvh_->poses(frame_, c) = kDegrees * z;
    bvh_->poses(frame_, c + 1) = kDegrees * y;
    bvh_->poses(frame_, c + 2) = kDegrees * x;
  }
  // The leg of `side` ("Left", "Right") with the root at (0, root_y,
  // root_z) and its ankle joint at (ankle_up, ankle_fwd) in the world.
  void Leg(const std::string& side, double root_y, double root_z,
           double ankle_y, double ankle_z, double pitch) {
    const LegAngles a = PlanarLeg(ankle_z - root_z,
                                  ankle_y - (root_y - kHipBelowRoot), pitch);
    Rotate(side + "Hip", 0.0, 0.0, a.hip / kDegrees);
    Rotate(side + "Knee", 0.0, 0.0, a.knee / kDegrees);
    Rotate(side + "Ankle", 0.0, 0.0, a.ankle / kDegrees);
  }

 private:
  const BvhJoint& Joint(const std::string& name) const {
    for (const BvhJoint& j : bvh_->joints) {
      if (j.name == name) return j;
    }
    throw std::logic_error("the walk's skeleton has no joint " + name);
  }
  BvhFigure* bvh_;
  int frame_;
};

void CheckPositive(double value, const char* field, const char* unit) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(std::string("ProceduralMotionOptions::") +
                                field + " must be a positive number of " +
                                unit + "; got " + std::to_string(value));
  }
}

void Run(const ProceduralMotionOptions& o, double t, FrameWriter* w) {
  const double T = o.period, stride = o.stride, duty = o.duty;
  const double root_z = stride * t / T;
  const double root_y = 86.0 - 3.0 * std::cos(4.0 * M_PI * t / T);
  w->Root(0.0, root_y, root_z);
  for (const char* side : {"Left", "Right"}) {
    const double offset = std::string(side) == "Left" ? 0.0 : 0.5;
    // Phase of this foot's cycle, 0 at touch-down; its stance is centred
    // under the hip, which is then at stride (n + offset).
    const double x = t / T - offset + 0.5 * duty;
    const double n = std::floor(x);
    const double phase = x - n;
    const double planted_at = stride * (n + offset);
    double ankle_z = planted_at, ankle_y = kAnkleHeight, pitch = 0.0;
    if (phase >= duty) {
      const double s = (phase - duty) / (1.0 - duty);
      ankle_z = planted_at + stride * Ramp(s);
      ankle_y = kAnkleHeight + 25.0 * Bump(s);
      pitch = 20.0 * kDegrees * Bump(s);
    }
    w->Leg(side, root_y, root_z, ankle_y, ankle_z, pitch);
  }
  const double swing = std::cos(2.0 * M_PI * (t / T + 0.15));
  w->Rotate("lowerback", 0.0, 0.0, 4.0);
  w->Rotate("Chest", 0.0, 0.0, 4.0);
  w->Rotate("Head", 0.0, 0.0, -8.0);
  w->Rotate("LeftShoulder", 8.0, 0.0, 30.0 * swing);
  w->Rotate("RightShoulder", -8.0, 0.0, -30.0 * swing);
  w->Rotate("LeftElbow", 0.0, 0.0, -(90.0 + 10.0 * swing));
  w->Rotate("RightElbow", 0.0, 0.0, -(90.0 - 10.0 * swing));
}

void Squat(const ProceduralMotionOptions& o, double t, FrameWriter* w) {
  const double b = Bump(t / o.period);
  const double root_y = 94.5 - o.stride * b;
  const double root_z = -0.6 * o.stride * b;
  w->Root(0.0, root_y, root_z);
  for (const char* side : {"Left", "Right"}) {
    w->Leg(side, root_y, root_z, kAnkleHeight, 0.0, 0.0);
  }
  w->Rotate("lowerback", 0.0, 0.0, 15.0 * b);
  w->Rotate("Chest", 0.0, 0.0, 15.0 * b);
  w->Rotate("Head", 0.0, 0.0, -20.0 * b);
  for (const char* side : {"Left", "Right"}) {
    const double s = std::string(side) == "Left" ? 1.0 : -1.0;
    w->Rotate(std::string(side) + "Shoulder", 8.0 * s, 0.0, -70.0 * b);
    w->Rotate(std::string(side) + "Elbow", 0.0, 0.0, -(10.0 + 10.0 * b));
  }
}

void Reach(const ProceduralMotionOptions& o, double t, FrameWriter* w) {
  const double u = t / o.period - std::floor(t / o.period);
  const double r = Bump(u);
  const double root_y = 94.5 - 4.0 * r;
  const double root_z = 5.0 * r;
  w->Root(0.0, root_y, root_z);
  for (const char* side : {"Left", "Right"}) {
    w->Leg(side, root_y, root_z, kAnkleHeight, 0.0, 0.0);
  }
  w->Rotate("lowerback", 0.0, 0.0, 12.0 * r);
  w->Rotate("Chest", 0.0, 0.0, 13.0 * r);
  w->Rotate("Head", 0.0, 0.0, -10.0 * r);
  // The right arm flexes forward, sweeps across (about the vertical) at
  // the far point and straightens; the left hangs.
  w->Rotate("RightShoulder", -8.0, 20.0 * r * r, -80.0 * r);
  w->Rotate("RightElbow", 0.0, 0.0, -(20.0 - 15.0 * r));
  w->Rotate("LeftShoulder", 8.0, 0.0, 0.0);
  w->Rotate("LeftElbow", 0.0, 0.0, -15.0);
}

}  // namespace procedural_motions_internal

std::vector<std::string> ProceduralMotionNames() {
  return {"walk", "run", "squat", "reach"};
}

ProceduralMotionOptions MotionDefaults(const std::string& name) {
  ProceduralMotionOptions o;
  if (name == "walk") {
    const WalkCycleOptions walk;
    o.frames = walk.frames;
    o.frame_time = walk.frame_time;
    o.period = walk.period;
    o.stride = walk.stride;
  } else if (name == "run") {
    o.frames = 252;
    o.period = 0.7;
    o.stride = 180.0;
    o.duty = 0.3;
  } else if (name == "squat") {
    o.frames = 480;
    o.period = 2.0;
    o.stride = 30.0;
  } else if (name == "reach") {
    o.frames = 360;
    o.period = 3.0;
  } else {
    throw std::invalid_argument("no procedural motion named '" + name +
                                "'; the known ones are walk, run, squat, "
                                "reach");
  }
  return o;
}

std::string ProceduralMotionBvh(const std::string& name,
                                const ProceduralMotionOptions& o) {
  MotionDefaults(name);  // the name check
  if (name == "walk") {
    WalkCycleOptions walk;
    walk.frames = o.frames;
    walk.frame_time = o.frame_time;
    walk.period = o.period;
    walk.stride = o.stride;
    return WalkCycleBvh(walk);
  }
  if (o.frames <= 0) {
    throw std::invalid_argument(
        "ProceduralMotionOptions::frames must be > 0; got " +
        std::to_string(o.frames));
  }
  procedural_motions_internal::CheckPositive(o.frame_time, "frame_time", "seconds");
  procedural_motions_internal::CheckPositive(o.period, "period", "seconds");
  if (name == "run" && (!(o.stride >= 0.0) || !std::isfinite(o.stride))) {
    throw std::invalid_argument(
        "ProceduralMotionOptions::stride must be a non-negative length (cm) "
        "for the run; got " + std::to_string(o.stride));
  }
  if (name == "run" && !(o.duty > 0.0 && o.duty < 0.5)) {
    throw std::invalid_argument(
        "ProceduralMotionOptions::duty must be in (0, 0.5) for the run (a "
        "run has flight phases); got " + std::to_string(o.duty));
  }
  if (name == "squat" && !(o.stride >= 0.0 && o.stride <= 40.0)) {
    throw std::invalid_argument(
        "ProceduralMotionOptions::stride (the squat's depth) must be in [0, "
        "40] cm; got " + std::to_string(o.stride));
  }
  // The walk's skeleton and channels; every channel the motion does not set
  // stays 0 (the rest pose).
  WalkCycleOptions one;
  one.frames = 1;
  BvhFigure bvh = WalkCycle(one);
  bvh.frame_time = o.frame_time;
  bvh.poses = Eigen::MatrixXd::Zero(o.frames, bvh.poses.cols());
  for (int f = 0; f < o.frames; ++f) {
    procedural_motions_internal::FrameWriter w(&bvh, f);
    const double t = f * o.frame_time;
    if (name == "run") {
      procedural_motions_internal::Run(o, t, &w);
    } else if (name == "squat") {
      procedural_motions_internal::Squat(o, t, &w);
    } else {
      procedural_motions_internal::Reach(o, t, &w);
    }
  }
  return WriteBvh(bvh);
}

std::string ProceduralMotionBvh(const std::string& name, int frames) {
  ProceduralMotionOptions o = MotionDefaults(name);
  if (frames < 0) {
    throw std::invalid_argument("ProceduralMotionBvh: frames must be >= 0 "
                                "(0: the motion's default); got " +
                                std::to_string(frames));
  }
  if (frames > 0) o.frames = frames;
  return ProceduralMotionBvh(name, o);
}

BvhFigure ProceduralMotion(const std::string& name, int frames) {
  return LoadBvhFromString(ProceduralMotionBvh(name, frames),
                           "procedural " + name);
}

}  // namespace iklab
