// Following a path: the tool of a 7-DOF arm (the KUKA iiwa14 URDF iklab
// ships) moves along a Hermite curve to a random pose in 50 frames, each frame
// solved from the previous one. Do the differential methods track it as
// closely and as smoothly (joint steps per frame) as the optimizers?
#include "iklab.h"

iklab::Study Trajectory(const iklab::ExperimentContext& context) {
  iklab::Study study;
  study.question = "iiwa14 tool along a Hermite path (50 frames): error per "
                   "frame and joint smoothness, differential vs optimizers.";
  study.model = std::make_shared<const iklab::Model>(
      iklab::LoadUrdfChain(iklab::DataFile("robots/iiwa14.urdf"), "base",
                           "iiwa_link_ee")
          .figure.Compile());
  study.scenario = iklab::HermiteToRandomTarget("iiwa_link_ee", 50);
  study.start = iklab::StartPose::kMidLimits;
  study.solvers = iklab::Solvers({"pseudo-inverse", "dls", "sdls", "bounded-dls",
                                  "jacobian-transpose", "lbfgsb", "ceres-lm", "bounded-lm"});
  study.trials = context.quick ? 3 : 50;
  study.drawn_frames = {0, 10, 25, 50};
  return study;
}

int main(int argc, char** argv) {
  return iklab::RunCommandLine(
      argc, argv,
      {iklab::StudyExperiment("iiwa-path", "iiwa14 along a Hermite path",
                              "examples/trajectory", Trajectory)},
      {"trajectory", "a path study on the KUKA iiwa14", "Trajectory study"});
}
