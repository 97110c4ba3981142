#ifndef IKLAB_LAB_WALK_CYCLE_H_
#define IKLAB_LAB_WALK_CYCLE_H_

/// @file
/// A motion the project makes itself: a procedural walk cycle on a small
/// human skeleton, as BVH text (framework/bvh_writer.h) that LoadBvh reads
/// back. The retargeting demo and tests run on it, so nothing depends on
/// motion-capture files a user may not have.
///
/// Skeleton (centimetres, Y up, walking along +Z; names follow the CMU
/// 131 clips so that the same effector names apply): Hips (root, 6
/// channels) → LeftHip → LeftKnee → LeftAnkle → LeftToe (End Site), the
/// right leg mirrored; Hips → lowerback → Chest → Neck → Head (End Site);
/// Chest → LeftCollar → LeftShoulder → LeftElbow → LeftWrist (End Site), the
/// right arm mirrored. Every non-root joint has Zrotation Yrotation
/// Xrotation channels. Rest pose: standing, arms hanging.
///
/// Motion: hips, knees and ankles flex and extend with the gait phase
/// (hip ±25°, knee 5°–55°, ankle ±10°), the arms swing against the legs,
/// the pelvis yaws ±5° and the chest counter-rotates, the root bobs 1.5 cm
/// and sways 2 cm sideways while it moves forward at stride / period.
/// Smooth (every channel is a sum of sines of the phase) and periodic in
/// everything but the forward travel.

#include <string>

#include "framework/bvh_loader.h"

namespace iklab {

/// Parameters of the walk (defaults: a 1.1 s gait cycle at 120 frames per
/// second, 1.4 m per cycle, three cycles).
struct WalkCycleOptions {
  /// Number of frames, > 0.
  int frames = 396;
  /// Seconds per frame, > 0.
  double frame_time = 1.0 / 120.0;
  /// Seconds per gait cycle (two steps), > 0.
  double period = 1.1;
  /// Distance travelled per cycle (cm), >= 0.
  double stride = 140.0;
};

/// The walk as BVH text (see the file comment).
/// @throws std::invalid_argument naming the option out of range.
std::string WalkCycleBvh(const WalkCycleOptions& options = {});

/// LoadBvhFromString(WalkCycleBvh(options), "procedural walk").
/// @throws std::invalid_argument as WalkCycleBvh.
BvhFigure WalkCycle(const WalkCycleOptions& options = {});

}  // namespace iklab

#endif  // IKLAB_LAB_WALK_CYCLE_H_
