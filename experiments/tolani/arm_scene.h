#ifndef IKLAB_EXPERIMENTS_TOLANI_ARM_SCENE_H_
#define IKLAB_EXPERIMENTS_TOLANI_ARM_SCENE_H_

/// @file
/// The Tolani reproductions' 3D scene: an SRS arm reaching one pose goal,
/// with the analytic solution's two elbow branches (the two roots of
/// Tolani Eq. 5 at the midpoint of each root's longest valid swivel arc,
/// §3.2.4), the answer a numerical solver (L-BFGS-B from the trial's start
/// pose) found, the elbow's swivel circle of each root (Eq. 6) as a closed
/// path and the target frame.

#include <string>

#include "experiments/tolani/arm_trials.h"
#include "lab/scene.h"

namespace iklab {
namespace tolani {

/// Adds a view `view_name` for `trial`'s pose goal on `arm` to `scene`
/// (the arm's figure is added to the scene). Figure layers are labelled
/// "analytic, elbow root 0" and "analytic, elbow root 1" (only the roots
/// that exist: one at full stretch, none out of reach), "lbfgsb" and
/// "start".
/// @return the view.
SceneView& AddBranchView(const ArmSetup& arm, const Trial& trial,
                         const std::string& view_name, iklab::Scene* scene);

/// Writes `file` in out->dir() with one branch view per arm of `arms` (a
/// reachable trial drawn from `seed`) and registers it with a caption.
void WriteBranchScene(const std::vector<const ArmSetup*>& arms,
                      std::uint64_t seed, const std::string& file,
                      ExperimentOutput* out);

}  // namespace tolani
}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_TOLANI_ARM_SCENE_H_
