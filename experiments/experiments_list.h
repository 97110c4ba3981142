#ifndef IKLAB_EXPERIMENTS_EXPERIMENTS_LIST_H_
#define IKLAB_EXPERIMENTS_EXPERIMENTS_LIST_H_

/// @file
/// The registration function of each experiment file, called in report order
/// by registry.cc.

#include <vector>

#include "experiments/experiment.h"

namespace iklab {

void AddStandardIkBenchmark(std::vector<Experiment>* experiments);
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
void AddTolaniTables4To7(std::vector<Experiment>* experiments);
void AddTolaniFigures12To15(std::vector<Experiment>* experiments);

}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_EXPERIMENTS_LIST_H_
