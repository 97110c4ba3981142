#include "lab/experiment.h"
#include "experiments/experiments_list.h"

namespace iklab {

// Each experiment file defines one of these; the order here is the report's.
// (Explicit calls rather than static self-registration, which a static
// library's linker would silently drop.)

const std::vector<Experiment>& AllExperiments() {
  static const std::vector<Experiment> experiments = [] {
    std::vector<Experiment> all;
    AddStandardIkBenchmark(&all);
    AddGoalSolverMatrix(&all);
    AddCollisionAvoidance(&all);
    AddReachMap(&all);
    AddIiwaHermitePath(&all);
    AddParentFigure520(&all);
    AddParentFigure521(&all);
    AddParentFigure522(&all);
    AddParentFigures523To525(&all);
    AddParentSection531(&all);
    AddSochFigures4To6(&all);
    AddNlpExample31(&all);
    AddNlpMultiEffectorExamples(&all);
    AddNlpDampingExamples(&all);
    AddTolaniTables4To7(&all);
    AddTolaniFigures12To15(&all);
    AddBvhRetargeting(&all);
    AddRetargetingSolvers(&all);
    return all;
  }();
  return experiments;
}

const Experiment* FindExperiment(const std::string& name) {
  for (const Experiment& e : AllExperiments()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace iklab
