#include "lab/walk_cycle.h"

#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "framework/bvh_writer.h"

namespace iklab {

namespace {

constexpr double kDegrees = M_PI / 180.0;

// A joint of the skeleton and its three rotation angles (degrees, channel
// order Z, Y, X) as functions of the gait phase (radians).
struct WalkJoint {
  const char* name;
  int parent;
  Eigen::Vector3d offset;
  std::vector<Eigen::Vector3d> end_sites;
  std::function<Eigen::Vector3d(double)> zyx_degrees;
};

Eigen::Vector3d Zero(double) { return Eigen::Vector3d::Zero(); }

// The skeleton in depth-first order (see the file comment). side = +1 for
// the left (+X) side, −1 for the right; the right side runs half a cycle
// behind.
std::vector<WalkJoint> Skeleton() {
  std::vector<WalkJoint> joints;
  joints.push_back({"Hips", -1, Eigen::Vector3d::Zero(), {}, Zero});
  for (int side : {+1, -1}) {
    const double s = side;
    const double lag = side > 0 ? 0.0 : M_PI;
    const int hip = static_cast<int>(joints.size());
    joints.push_back({side > 0 ? "LeftHip" : "RightHip",
                      0,
                      {9.0 * s, -6.0, 0.0},
                      {},
                      [=](double p) {
                        // Flexion forward is a negative X rotation (+Z is
                        // forward, the leg hangs along −Y).
                        return Eigen::Vector3d(3.0 * s, 0.0,
                                               -25.0 * std::sin(p + lag));
                      }});
    joints.push_back({side > 0 ? "LeftKnee" : "RightKnee",
                      hip,
                      {0.0, -42.0, 0.0},
                      {},
                      [=](double p) {
                        // Most flexed (55°) early in the swing, when the
                        // thigh starts forward from slightly behind.
                        return Eigen::Vector3d(
                            0.0, 0.0,
                            5.0 + 25.0 * (1.0 - std::cos(p + lag - 2.84)));
                      }});
    joints.push_back({side > 0 ? "LeftAnkle" : "RightAnkle",
                      hip + 1,
                      {0.0, -41.0, 0.0},
                      {},
                      [=](double p) {
                        return Eigen::Vector3d(0.0, 0.0,
                                               -10.0 * std::sin(p + lag - 0.5));
                      }});
    joints.push_back({side > 0 ? "LeftToe" : "RightToe",
                      hip + 2,
                      {0.0, -6.0, 12.0},
                      {{0.0, 0.0, 5.0}},
                      Zero});
  }
  joints.push_back({"lowerback", 0, {0.0, 8.0, 0.0}, {}, [](double p) {
                      return Eigen::Vector3d(0.0, -2.0 * std::sin(p), 0.0);
                    }});
  const int chest = static_cast<int>(joints.size());
  joints.push_back({"Chest", chest - 1, {0.0, 20.0, 0.0}, {}, [](double p) {
                      return Eigen::Vector3d(0.0, -3.0 * std::sin(p), 0.0);
                    }});
  joints.push_back({"Neck", chest, {0.0, 22.0, 0.0}, {}, Zero});
  joints.push_back(
      {"Head", chest + 1, {0.0, 10.0, 0.0}, {{0.0, 18.0, 0.0}}, [](double p) {
         return Eigen::Vector3d(0.0, 3.0 * std::sin(p),
                                2.0 * std::sin(2.0 * p));
       }});
  for (int side : {+1, -1}) {
    const double s = side;
    const double lag = side > 0 ? 0.0 : M_PI;
    const int collar = static_cast<int>(joints.size());
    joints.push_back({side > 0 ? "LeftCollar" : "RightCollar",
                      chest,
                      {4.0 * s, 18.0, 0.0},
                      {},
                      Zero});
    // The arm swings against the leg of its side.
    joints.push_back({side > 0 ? "LeftShoulder" : "RightShoulder",
                      collar,
                      {14.0 * s, 0.0, 0.0},
                      {},
                      [=](double p) {
                        return Eigen::Vector3d(8.0 * s, 0.0,
                                               20.0 * std::sin(p + lag));
                      }});
    joints.push_back({side > 0 ? "LeftElbow" : "RightElbow",
                      collar + 1,
                      {0.0, -28.0, 0.0},
                      {},
                      [=](double p) {
                        return Eigen::Vector3d(
                            0.0, 0.0, -(20.0 + 10.0 * std::sin(p + lag)));
                      }});
    joints.push_back({side > 0 ? "LeftWrist" : "RightWrist",
                      collar + 2,
                      {0.0, -25.0, 0.0},
                      {{0.0, -8.0, 0.0}},
                      [](double) { return Eigen::Vector3d(0.0, 0.0, -5.0); }});
  }
  return joints;
}

}  // namespace

std::string WalkCycleBvh(const WalkCycleOptions& o) {
  if (o.frames <= 0) {
    throw std::invalid_argument("WalkCycleOptions::frames must be > 0; got " +
                                std::to_string(o.frames));
  }
  if (!(o.frame_time > 0.0) || !std::isfinite(o.frame_time)) {
    throw std::invalid_argument(
        "WalkCycleOptions::frame_time must be a positive number of seconds; "
        "got " +
        std::to_string(o.frame_time));
  }
  if (!(o.period > 0.0) || !std::isfinite(o.period)) {
    throw std::invalid_argument(
        "WalkCycleOptions::period must be a positive number of seconds; got " +
        std::to_string(o.period));
  }
  if (!(o.stride >= 0.0) || !std::isfinite(o.stride)) {
    throw std::invalid_argument(
        "WalkCycleOptions::stride must be a non-negative length (cm); got " +
        std::to_string(o.stride));
  }
  const std::vector<WalkJoint> skeleton = Skeleton();
  BvhFigure bvh;
  bvh.frame_time = o.frame_time;
  const BvhChannelType root_channels[] = {
      BvhChannelType::kXposition, BvhChannelType::kYposition,
      BvhChannelType::kZposition, BvhChannelType::kZrotation,
      BvhChannelType::kYrotation, BvhChannelType::kXrotation};
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    BvhJoint joint;
    joint.name = skeleton[j].name;
    joint.parent = skeleton[j].parent;
    joint.offset = skeleton[j].offset;
    joint.end_sites = skeleton[j].end_sites;
    joint.first_channel = static_cast<int>(bvh.channels.size());
    const int first = j == 0 ? 0 : 3;  // non-root joints: Z, Y, X rotations
    for (int c = first; c < 6; ++c) {
      const int index = static_cast<int>(bvh.channels.size());
      bvh.channels.push_back({static_cast<int>(j), root_channels[c], index});
    }
    joint.num_channels =
        static_cast<int>(bvh.channels.size()) - joint.first_channel;
    bvh.joints.push_back(joint);
  }
  bvh.poses.resize(o.frames, static_cast<Eigen::Index>(bvh.channels.size()));
  for (int f = 0; f < o.frames; ++f) {
    const double t = f * o.frame_time;
    const double phase = 2.0 * M_PI * t / o.period;
    // Root: sway, bob and travel; roll, yaw and a slight forward lean.
    bvh.poses(f, 0) = 2.0 * std::sin(phase);
    bvh.poses(f, 1) = 95.0 + 1.5 * std::cos(2.0 * phase);
    bvh.poses(f, 2) = o.stride * t / o.period;
    bvh.poses(f, 3) = kDegrees * 2.0 * std::sin(phase);
    bvh.poses(f, 4) = kDegrees * 5.0 * std::sin(phase);
    bvh.poses(f, 5) = kDegrees * (3.0 + std::sin(2.0 * phase));
    for (std::size_t j = 1; j < skeleton.size(); ++j) {
      const Eigen::Vector3d zyx = kDegrees * skeleton[j].zyx_degrees(phase);
      bvh.poses.row(f).segment<3>(bvh.joints[j].first_channel) =
          zyx.transpose();
    }
  }
  return WriteBvh(bvh);
}

BvhFigure WalkCycle(const WalkCycleOptions& options) {
  return LoadBvhFromString(WalkCycleBvh(options), "procedural walk");
}

}  // namespace iklab
