#include "solve_guard.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "constraints/composite_goals.h"

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

bool BeingSolved(const Problem& problem) {
  const auto& singles = SingleSolves();
  return std::find(singles.begin(), singles.end(), &problem) != singles.end() ||
         BatchSolves().count(&problem) != 0;
}

// True if `goal` is `target` or a composite that holds it (at any depth).
bool Holds(const Goal& goal, const Goal* target) {
  if (&goal == target) return true;
  const std::vector<std::shared_ptr<const Goal>>* children = nullptr;
  if (const auto* sum = dynamic_cast<const WeightedSumGoal*>(&goal)) {
    children = &sum->goals();
  } else if (const auto* any = dynamic_cast<const DisjunctiveGoal*>(&goal)) {
    children = &any->goals();
  }
  if (children == nullptr) return false;
  return std::any_of(children->begin(), children->end(),
                     [target](const auto& child) { return Holds(*child, target); });
}

template <typename Goals>
bool AnyHolds(const Goals& goals, const Goal* target) {
  return std::any_of(goals.begin(), goals.end(),
                     [target](const auto& g) { return Holds(*g, target); });
}

bool ProblemHolds(const Problem& problem, const Goal* target) {
  return AnyHolds(problem.goals(), target) || AnyHolds(problem.regularizers(), target) ||
         AnyHolds(problem.equality_constraints(), target) ||
         AnyHolds(problem.inequality_constraints(), target);
}

// Calls `visit` on every problem being solved until it returns true.
template <typename Visit>
bool AnySolved(const Visit& visit) {
  for (const Problem* p : SingleSolves()) {
    if (visit(*p)) return true;
  }
  for (const auto& [p, count] : BatchSolves()) {
    if (visit(*p)) return true;
  }
  return false;
}

}  // namespace

SolveGuard::SolveGuard(const Problem& problem) : single_(&problem) { Mark(); }

SolveGuard::SolveGuard(std::vector<const Problem*> problems)
    : many_(std::move(problems)) {
  Mark();
}

SolveGuard::~SolveGuard() { Unmark(); }

void SolveGuard::Pause() { Unmark(); }

void SolveGuard::Resume() { Mark(); }

void SolveGuard::Mark() {
  if (marked_) return;
  if (single_ != nullptr) SingleSolves().push_back(single_);
  for (const Problem* p : many_) ++BatchSolves()[p];
  marked_ = true;
}

void SolveGuard::Unmark() {
  if (!marked_) return;
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
  marked_ = false;
}

void RefuseWhileSolving(const Problem& problem, const char* method) {
  if (!BeingSolved(problem)) return;
  throw std::runtime_error(
      std::string("Problem.") + method +
      ": this Problem is being solved (solve, solve_batch or solve_trajectory "
      "running in another thread without the GIL); change it after the solve "
      "returns, or build another Problem for the new goals");
}

void RefuseWhileSolving(const Goal& goal, const char* what) {
  if (SingleSolves().empty() && BatchSolves().empty()) return;
  if (!AnySolved([&goal](const Problem& p) { return ProblemHolds(p, &goal); })) return;
  throw std::runtime_error(
      std::string(what) + ": this goal" +
      (goal.name().empty() ? std::string() : " ('" + goal.name() + "')") +
      " belongs to a Problem that is being solved (solve, solve_batch or "
      "solve_trajectory running in another thread without the GIL); change it "
      "after the solve returns, or give the next solve its own goal in another "
      "Problem");
}

void RefuseWhileSolving(const Bounds& bounds, const char* method) {
  if (!AnySolved([&bounds](const Problem& p) { return &p.bounds() == &bounds; })) return;
  throw std::runtime_error(
      std::string("Bounds.") + method +
      ": these are the bounds of a Problem that is being solved (solve, "
      "solve_batch or solve_trajectory running in another thread without the "
      "GIL); change them after the solve returns, or set problem.bounds to a "
      "new Bounds then");
}

}  // namespace iklab::python
