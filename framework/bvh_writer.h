#ifndef IKLAB_FRAMEWORK_BVH_WRITER_H_
#define IKLAB_FRAMEWORK_BVH_WRITER_H_

/// @file
/// BVH text from a skeleton and a motion: the inverse of bvh_loader.h, so
/// that motions iklab makes or solves can be saved and read by any BVH tool.
///
///     BvhFigure clip = LoadBvh("walk.bvh");
///     clip.poses = solved;               // frames × nq, radians
///     SaveBvh(clip, "solved.bvh");
///
/// What is written: BvhFigure::joints (names, parents, OFFSETs, End Sites),
/// the channels of each joint in BvhFigure::channels order, "Frame Time:"
/// and one line per row of `poses`, where the c-th value of a line is
/// poses(frame, channels[c].q_index), rotations converted back to degrees.
/// BvhFigure::figure is not read: a caller may fill joints, channels,
/// frame_time and poses by hand (see lab/walk_cycle.h) and let LoadBvh build
/// the figure from the text. Numbers are written with 17 significant digits,
/// so LoadBvhFromString(WriteBvh(b)) gives back b's offsets exactly and its
/// poses to the rounding of the degree conversion (about 1e-15 relative).

#include <string>

#include "framework/bvh_loader.h"

namespace iklab {

/// The BVH text of `bvh` (see the file comment).
/// @param bvh joints in file order (every parent before its children, the
///   children of a joint in the order they are to be written, i.e. the
///   depth-first order LoadBvh produces), channels in the same order (each
///   joint's channels contiguous from first_channel), poses with one column
///   per coordinate, frame_time > 0.
/// @throws std::invalid_argument naming the field of `bvh` that breaks one of
///   these rules (a parent after its child, channels out of order or of
///   another joint, a q_index outside poses, a non-finite value, no joints,
///   frame_time <= 0), or an empty joint name.
std::string WriteBvh(const BvhFigure& bvh);

/// Writes WriteBvh(bvh) to `path`.
/// @throws std::invalid_argument as WriteBvh, or "path: cannot write ..." if
///   the file cannot be written.
void SaveBvh(const BvhFigure& bvh, const std::string& path);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_BVH_WRITER_H_
