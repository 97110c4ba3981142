#include "solve_guard.h"

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include <pybind11/pybind11.h>

namespace iklab::python {

namespace {

// How many running solves read each Problem. Guarded by the GIL.
std::unordered_map<const Problem*, int>& SolvesOf() {
  static auto* solves = new std::unordered_map<const Problem*, int>();
  return *solves;
}

}  // namespace

SolveGuard::SolveGuard(const Problem& problem) : SolveGuard(std::vector{&problem}) {}

SolveGuard::SolveGuard(std::vector<const Problem*> problems)
    : problems_(std::move(problems)) {
  for (const Problem* p : problems_) ++SolvesOf()[p];
}

SolveGuard::~SolveGuard() {
  auto& solves = SolvesOf();
  for (const Problem* p : problems_) {
    auto it = solves.find(p);
    if (--it->second == 0) solves.erase(it);
  }
}

void RefuseWhileSolving(const Problem& problem, const char* method) {
  if (SolvesOf().count(&problem) == 0) return;
  throw std::runtime_error(
      std::string("Problem.") + method +
      ": this Problem is being solved (solve, solve_batch or solve_trajectory "
      "running in another thread without the GIL); change it after the solve "
      "returns, or build another Problem for the new goals");
}

}  // namespace iklab::python
