#ifndef IKLAB_PYTHON_SOLVE_GUARD_H_
#define IKLAB_PYTHON_SOLVE_GUARD_H_

// A Problem that a solve is reading cannot be changed from Python.
//
// Solves run without the GIL, so another Python thread may call a Problem's
// mutators meanwhile; adding a goal reallocates the goal list the solver is
// iterating over (a crash, not an error). The bindings therefore mark every
// Problem a solve reads with a SolveGuard, taken while the GIL is held and
// before it is released, and each mutator of Problem calls
// RefuseWhileSolving first, which raises RuntimeError naming the method.
// The marks are only read and written with the GIL held, which is their lock.

#include <vector>

#include "constraints/problem.h"

namespace iklab::python {

/// Marks a problem (or a batch's list of problems) as being solved for the
/// guard's lifetime. Construct it with the GIL held, before
/// py::gil_scoped_release, so that it is destroyed after the GIL is taken
/// back. A single solve's guard allocates nothing (it is on the per-call
/// path, whose overhead docs/python.md measures).
class SolveGuard {
 public:
  explicit SolveGuard(const Problem& problem);
  explicit SolveGuard(std::vector<const Problem*> problems);
  ~SolveGuard();
  SolveGuard(const SolveGuard&) = delete;
  SolveGuard& operator=(const SolveGuard&) = delete;

 private:
  const Problem* single_ = nullptr;
  std::vector<const Problem*> many_;
};

/// Throws RuntimeError ("Problem.<method>: ...") while a SolveGuard holds
/// `problem`. Call with the GIL held.
void RefuseWhileSolving(const Problem& problem, const char* method);

}  // namespace iklab::python

#endif  // IKLAB_PYTHON_SOLVE_GUARD_H_
