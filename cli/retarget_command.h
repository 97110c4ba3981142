#ifndef IKLAB_CLI_RETARGET_COMMAND_H_
#define IKLAB_CLI_RETARGET_COMMAND_H_

/// @file
/// `iklab retarget`: a user's own motion file, retargeted by effector
/// positions (lab/retargeting.h).
///
///     iklab retarget --bvh walk.bvh [--onto tall.bvh] [--effectors a,b,...]
///                    [--solver NAME] [--frames N]
///                    [--tolerance T] [--out DIR]
///
/// Every frame's effector positions (default: the clip's End Sites, i.e.
/// hands, feet, head) are solved on the `--onto` skeleton (default: the
/// clip's own), warm-started from the previous frame (the first from the
/// rest pose). Writes DIR/frames.csv (per frame: largest and mean effector
/// error in file units, microseconds, iterations, converged) and
/// DIR/retargeted.bvh (the skeleton with the solved motion, readable by any
/// BVH tool), and prints a one-line summary.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace iklab {

struct RetargetCommandOptions {
  /// The motion (BVH file).
  std::string bvh;
  /// The skeleton to solve on (BVH file; its motion is ignored). Empty: the
  /// motion's own skeleton.
  std::string onto;
  /// Effector sites (joint names or "<joint>_End"). Empty: every End Site.
  std::vector<std::string> effectors;
  std::string solver = "bounded-lm";
  /// Solve the first `frames` frames; 0: all.
  int frames = 0;
  /// Convergence: every effector within this distance (file length units).
  double tolerance = 1e-4;
  std::string out_dir = "retarget-out";
};

/// Declares the options of `retarget` on `command`.
void AddRetargetOptions(CLI::App* command, RetargetCommandOptions* options);

/// Runs the retargeting; returns the exit code: 0 ran (how well each frame
/// converged is a result, in frames.csv), 2 bad input (a malformed BVH file,
/// an unknown effector, an output folder that cannot be written), with one
/// line on stderr naming the file (and line) and the problem.
int RunRetargetCommand(const RetargetCommandOptions& options);

}  // namespace iklab

#endif  // IKLAB_CLI_RETARGET_COMMAND_H_
