// Which of iklab's solvers reaches random targets of a 4-link planar arm, how
// often and how fast? Every solver on the same targets; those that do not
// apply to a planar position goal say why ("rejected: ...").
#include "iklab.h"

iklab::Study PlanarArm(const iklab::ExperimentContext& context) {
  iklab::Study study;
  study.question = "Every solver on random reachable targets of a 4-link "
                   "planar arm (links 1, 0.8, 0.6, 0.4; joints unlimited).";
  study.model = std::make_shared<const iklab::Model>(
      iklab::PlanarChain({1.0, 0.8, 0.6, 0.4}).Compile());
  study.goals = {iklab::GoalSpec::Position("effector")};
  study.start = iklab::StartPose::kRandom;
  study.solvers = iklab::EverySolver();
  study.trials = context.quick ? 20 : 500;
  study.time_budget_seconds = 0.01;
  return study;
}

int main(int argc, char** argv) {
  return iklab::RunCommandLine(
      argc, argv,
      {iklab::StudyExperiment("planar-arm", "Every solver on a planar arm",
                              "examples/planar_arm", PlanarArm)},
      {"planar_arm", "every solver on a 4-link planar arm", "Planar arm study"});
}
