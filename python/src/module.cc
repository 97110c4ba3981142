// The compiled part of the Python package iklab (iklab._iklab).
// std::invalid_argument becomes ValueError with the same text (pybind11's
// standard translation), so a C++ message reaches the notebook unchanged.

#include "bindings.h"

PYBIND11_MODULE(_iklab, m) {
  m.doc() = "iklab: inverse kinematics as constrained optimization";
  iklab::python::BindFramework(m);
  iklab::python::BindConstraints(m);
  iklab::python::BindSolvers(m);
  iklab::python::BindLab(m);
  iklab::python::BindReach(m);
}
