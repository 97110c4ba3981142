// The `iklab` program: the command line (cli/command_line.h) over the shipped
// experiments — the reproductions of the four papers and our own studies.
//
//   iklab list
//   iklab run parent-fig-5.20 soch-fig-4 --out out --seed 7
//   iklab run all --out out          (writes out/REPORT.md)
//   iklab bench --robots panda,ur5 --targets 1000 --out bench
//   iklab bench --urdf arm.urdf --base base --tip tool --targets-csv t.csv
#include "cli/command_line.h"
#include "experiments/experiments_list.h"

int main(int argc, char** argv) {
  iklab::ProgramInfo program;
  program.name = "iklab";
  program.description =
      "inverse kinematics experiments, studies and reproductions of "
      "published results";
  program.report_title = "iklab: reproduction report";
  return iklab::RunCommandLine(argc, argv, iklab::AllExperiments(), program);
}
