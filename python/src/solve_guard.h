#ifndef IKLAB_PYTHON_SOLVE_GUARD_H_
#define IKLAB_PYTHON_SOLVE_GUARD_H_

// Objects that a solve is reading cannot be changed from Python.
//
// Solves run without the GIL, so another Python thread may call a mutator
// meanwhile: adding a goal reallocates the goal list the solver is iterating
// over (a crash), and setting a goal's target or weight, or a bound, while
// the solver evaluates it gives torn reads (half an old target, half a new
// one) and, for a name, a crash. The bindings therefore mark every Problem
// a solve reads with a SolveGuard, taken while the GIL is held and before it
// is released, and every mutator of a Problem, of a goal, regularizer or
// constraint, or of a Problem's Bounds calls RefuseWhileSolving first, which
// raises RuntimeError naming the object, the member and what to do instead.
// A goal is refused while any Problem being solved holds it, directly or as
// a child of a composite goal. The marks are only read and written with the
// GIL held, which is their lock.

#include <vector>

#include "constraints/bounds.h"
#include "constraints/goal.h"
#include "constraints/problem.h"

namespace iklab::python {

/// Marks a problem (or a batch's list of problems) as being solved for the
/// guard's lifetime. Construct it with the GIL held, before
/// py::gil_scoped_release, so that it is destroyed after the GIL is taken
/// back. A single solve's guard allocates nothing (it is on the per-call
/// path, whose overhead docs/python.md measures); the mutators, not the
/// solves, pay for the search.
class SolveGuard {
 public:
  explicit SolveGuard(const Problem& problem);
  explicit SolveGuard(std::vector<const Problem*> problems);
  ~SolveGuard();
  SolveGuard(const SolveGuard&) = delete;
  SolveGuard& operator=(const SolveGuard&) = delete;

  /// Lifts this guard's marks (with the GIL held) while the solve is not
  /// reading its problem, e.g. while solve_trajectory's path moves the goals
  /// between two frames; Resume puts them back. Other solves' marks stay.
  void Pause();
  void Resume();

 private:
  void Mark();
  void Unmark();

  const Problem* single_ = nullptr;
  std::vector<const Problem*> many_;
  bool marked_ = false;
};

/// Throws RuntimeError ("Problem.<method>: ...") while a SolveGuard holds
/// `problem`. Call with the GIL held.
void RefuseWhileSolving(const Problem& problem, const char* method);

/// Throws RuntimeError ("<what>: ...", e.g. what = "PositionGoal.target")
/// while a SolveGuard holds a problem that uses `goal` as a goal,
/// regularizer or constraint, directly or inside a composite goal. Call with
/// the GIL held.
void RefuseWhileSolving(const Goal& goal, const char* what);

/// Throws RuntimeError ("Bounds.<method>: ...") while a SolveGuard holds the
/// problem whose bounds() is `bounds` (a Problem's `bounds` attribute is a
/// view into the problem, not a copy). Call with the GIL held.
void RefuseWhileSolving(const Bounds& bounds, const char* method);

}  // namespace iklab::python

#endif  // IKLAB_PYTHON_SOLVE_GUARD_H_
