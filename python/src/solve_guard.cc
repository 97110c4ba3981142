#include "solve_guard.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace iklab::python {

namespace {

// The problems of running single solves, one entry per solve (a Python
// process runs few at a time, so a linear scan of a vector that keeps its
// capacity beats a hash map, whose nodes cost an allocation per solve).
// Guarded by the GIL, like everything here.
std::vector<const Problem*>& SingleSolves() {
  static auto* solves = new std::vector<const Problem*>();
  return *solves;
}

// The problems of running batches over lists of problems (thousands at a
// time): how many running batches hold each.
std::unordered_map<const Problem*, int>& BatchSolves() {
  static auto* solves = new std::unordered_map<const Problem*, int>();
  return *solves;
}

}  // namespace

SolveGuard::SolveGuard(const Problem& problem) : single_(&problem) {
  SingleSolves().push_back(single_);
}

SolveGuard::SolveGuard(std::vector<const Problem*> problems)
    : many_(std::move(problems)) {
  for (const Problem* p : many_) ++BatchSolves()[p];
}

SolveGuard::~SolveGuard() {
  if (single_ != nullptr) {
    auto& solves = SingleSolves();
    auto it = std::find(solves.begin(), solves.end(), single_);
    *it = solves.back();
    solves.pop_back();
  }
  auto& batches = BatchSolves();
  for (const Problem* p : many_) {
    auto it = batches.find(p);
    if (--it->second == 0) batches.erase(it);
  }
}

void RefuseWhileSolving(const Problem& problem, const char* method) {
  const auto& singles = SingleSolves();
  if (std::find(singles.begin(), singles.end(), &problem) == singles.end() &&
      BatchSolves().count(&problem) == 0) {
    return;
  }
  throw std::runtime_error(
      std::string("Problem.") + method +
      ": this Problem is being solved (solve, solve_batch or solve_trajectory "
      "running in another thread without the GIL); change it after the solve "
      "returns, or build another Problem for the new goals");
}

}  // namespace iklab::python
