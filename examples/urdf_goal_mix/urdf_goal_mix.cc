// A real arm (the Franka Panda, from the URDF iklab ships) asked for several
// things at once: grasp either of two handle poses, keep the elbow on a plane,
// and point the wrist camera's z axis at a marker, without the arm hitting
// itself (the URDF's collision shapes). Which optimizer copes best: L-BFGS-B,
// Ceres, damped least squares or bounded Levenberg-Marquardt?
#include "iklab.h"

using iklab::GoalSpec;

iklab::Study GoalMix(const iklab::ExperimentContext& context) {
  iklab::Study study;
  study.question = "Panda: any of two hand poses + elbow on a plane + wrist "
                   "aiming + no self-collision, all met by one random "
                   "collision-free pose within the limits.";
  study.model = std::make_shared<const iklab::Model>(
      iklab::LoadUrdfChain(iklab::DataFile("robots/panda.urdf"),
                           "panda_link0", "panda_hand")
          .figure.Compile());
  study.goals = {
      GoalSpec::AnyOf({GoalSpec::Pose("panda_hand", 0.4),
                       GoalSpec::Pose("panda_hand", 0.4)}),
      GoalSpec::Plane("panda_link4"),
      GoalSpec::Aiming("panda_link6", Eigen::Vector3d::UnitZ(), 0.5, 0.1),
      // No self-collision, as a penalty goal every solver takes (hard = false);
      // a success also needs every checked distance >= 0 (FCL check).
      GoalSpec::CollisionFree(
          iklab::RobotCollisions(*study.model,
                                 iklab::DataFile("robots/panda.urdf").string(),
                                 iklab::ParseCollisionSetting("self")),
          /*clearance=*/0.0, /*hard=*/false)};
  study.solvers = iklab::Solvers({"lbfgsb", "ceres-lm", "dls", "bounded-lm"});
  for (iklab::StudySolver& solver : study.solvers) solver.attempts = 5;
  study.trials = context.quick ? 20 : 500;
  study.time_budget_seconds = 0.02;
  return study;
}

int main(int argc, char** argv) {
  return iklab::RunCommandLine(
      argc, argv,
      {iklab::StudyExperiment("panda-goal-mix", "Panda with a goal mix",
                              "examples/urdf_goal_mix", GoalMix)},
      {"urdf_goal_mix", "a goal mix on the Franka Panda", "Goal-mix study"});
}
