#ifndef IKLAB_LAB_PROCEDURAL_MOTIONS_H_
#define IKLAB_LAB_PROCEDURAL_MOTIONS_H_

/// @file
/// More motions the project makes itself, beside the walk of
/// lab/walk_cycle.h and on its skeleton (same joints, names, offsets and
/// channels; centimetres, Y up, facing +Z): a run, a squat and a reach, as
/// BVH text that LoadBvh reads back. The retargeting study, tests and the
/// Python module run on them, so nothing depends on motion-capture files.
///
/// Unlike the walk, whose joint angles are sums of sines (its planted foot
/// slides), these motions are driven by where the feet are: each frame's
/// ankle positions (planted, or on a swing curve) and root position are
/// given, and each leg's hip and knee flexion are the closed-form solution
/// of the planar two-link leg (thigh 42 cm, shank 41 cm) in the sagittal
/// plane,
///
///     D = |ankle − hip|,  knee flexion κ = π − acos((l1² + l2² − D²) /
///     (2 l1 l2)),  hip flexion θ = atan2(d_fwd, −d_up) + acos((l1² + D² −
///     l2²) / (2 l1 D)),
///
/// (the knee in front of the hip–ankle line; D is kept below 0.999 (l1 +
/// l2)), and the ankle angle θ − κ + pitch turns the foot to the world
/// pitch wanted (0: flat). A planted foot therefore stands exactly still,
/// and the contact rule of lab/retarget_metrics.h finds its phases with its
/// default thresholds. The root keeps no rotation (the trunk leans at
/// lowerback and Chest), so the legs' plane is the world's Y–Z plane.
/// Every input is a smooth function of time (cosine ramps), so the angles
/// are smooth wherever the feet are.
///
///  - run: a jog at stride / period (default 1.8 m per 0.7 s cycle, 2.6
///    m/s); each foot is planted for `duty` of the cycle (0.3), the right
///    half a cycle after the left, so that both are off the ground for
///    (1 − 2 duty) / 2 of every step: flight phases. The root is lowest at
///    mid-stance and highest in flight (86 ± 3 cm); the swinging ankle
///    travels one stride forward on a cosine ramp and rises up to 25 cm;
///    the trunk leans 8° forward; the arms swing ±30° against the legs with
///    the elbows bent 80–100°.
///  - squat: both feet planted where they stand at rest; the root goes down
///    by `depth` (default 30 cm) and back by 0.6 times as much, twice per
///    clip (cosine ramps of `period`), the trunk leaning up to 30° and the
///    arms rising forward up to 70°.
///  - reach: both feet planted; the right hand reaches forward and across
///    (shoulder flexion up to 80°, adduction up to 20°, the elbow
///    straightening from 20° to 5°), the trunk leaning up to 25° and the
///    root moving 5 cm forward and 4 cm down, then back, once per `period`.

#include <string>
#include <vector>

#include "framework/bvh_loader.h"

namespace iklab {

/// Frames and timing of a procedural motion (see the file comment for each
/// motion's own defaults: MotionDefaults).
struct ProceduralMotionOptions {
  /// Number of frames, > 0.
  int frames = 240;
  /// Seconds per frame, > 0.
  double frame_time = 1.0 / 120.0;
  /// Seconds per cycle (a run's two steps, one squat, one reach), > 0.
  double period = 2.0;
  /// Run: distance per cycle (cm) >= 0; squat: how far the root goes down
  /// (cm), in [0, 40]; reach: unused.
  double stride = 0.0;
  /// Run: fraction of the cycle a foot is planted, in (0, 0.5).
  double duty = 0.3;
};

/// The names of the procedural motions: "walk", "run", "squat", "reach".
std::vector<std::string> ProceduralMotionNames();

/// The defaults of motion `name`: walk 396 frames (3 cycles of 1.1 s, 1.4 m
/// per cycle), run 252 frames (3 cycles of 0.7 s, 1.8 m per cycle, duty
/// 0.3), squat 480 frames (2 squats of 2 s, 30 cm deep), reach 360 frames
/// (one reach of 3 s); all at 120 frames per second.
/// @throws std::invalid_argument naming the known motions.
ProceduralMotionOptions MotionDefaults(const std::string& name);

/// The motion `name` as BVH text (see the file comment; "walk" is
/// WalkCycleBvh with frames, frame_time, period and stride from `options`).
/// @throws std::invalid_argument for an unknown name (listing the known
///   ones) or an option out of range (naming it).
std::string ProceduralMotionBvh(const std::string& name,
                                const ProceduralMotionOptions& options);

/// ProceduralMotionBvh(name, MotionDefaults(name)) with `frames` frames
/// (0: the default number).
/// @throws std::invalid_argument as ProceduralMotionBvh, or frames < 0.
std::string ProceduralMotionBvh(const std::string& name, int frames = 0);

/// LoadBvhFromString(ProceduralMotionBvh(name, frames), "procedural <name>").
/// @throws std::invalid_argument as ProceduralMotionBvh.
BvhFigure ProceduralMotion(const std::string& name, int frames = 0);

}  // namespace iklab

#endif  // IKLAB_LAB_PROCEDURAL_MOTIONS_H_
