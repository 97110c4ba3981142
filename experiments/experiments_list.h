#ifndef IKLAB_EXPERIMENTS_EXPERIMENTS_LIST_H_
#define IKLAB_EXPERIMENTS_EXPERIMENTS_LIST_H_

/// @file
/// The shipped experiments (reproductions and our own studies), and the
/// registration function of each experiment file, called in report order by
/// registry.cc.

#include <vector>

#include "lab/experiment.h"

namespace iklab {

/// All experiments, in report order. Each experiment file contributes through
/// one registration function listed in registry.cc (explicit, so
/// the linker cannot drop an experiment and the order is visible).
const std::vector<Experiment>& AllExperiments();

/// Finds an experiment by name; nullptr if there is none.
const Experiment* FindExperiment(const std::string& name);

/// Registration functions, one per experiment file.
void AddStandardIkBenchmark(std::vector<Experiment>* experiments);
void AddGoalSolverMatrix(std::vector<Experiment>* experiments);
void AddCollisionAvoidance(std::vector<Experiment>* experiments);
void AddReachMap(std::vector<Experiment>* experiments);
void AddIiwaHermitePath(std::vector<Experiment>* experiments);
void AddParentFigure520(std::vector<Experiment>* experiments);
void AddParentFigure521(std::vector<Experiment>* experiments);
void AddParentFigure522(std::vector<Experiment>* experiments);
void AddParentFigures523To525(std::vector<Experiment>* experiments);
void AddParentSection531(std::vector<Experiment>* experiments);
void AddSochFigures4To6(std::vector<Experiment>* experiments);
void AddNlpExample31(std::vector<Experiment>* experiments);
void AddNlpMultiEffectorExamples(std::vector<Experiment>* experiments);
void AddNlpDampingExamples(std::vector<Experiment>* experiments);
void AddBvhRetargeting(std::vector<Experiment>* experiments);
void AddRetargetingSolvers(std::vector<Experiment>* experiments);
void AddTolaniTables4To7(std::vector<Experiment>* experiments);
void AddTolaniFigures12To15(std::vector<Experiment>* experiments);

}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_EXPERIMENTS_LIST_H_
