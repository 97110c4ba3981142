// The compiled part of the Python package iklab (iklab._iklab).
// std::invalid_argument becomes ValueError with the same text (pybind11's
// standard translation), so a C++ message reaches the notebook unchanged.

#include "bindings.h"

PYBIND11_MODULE(_iklab, m) {
  m.doc() = "iklab: inverse kinematics as constrained optimization";
  // The project's version, from project(iklab VERSION ...) in CMakeLists.txt.
  m.attr("__version__") = IKLAB_VERSION;
  iklab::python::BindFramework(m);
  iklab::python::BindConstraints(m);
  iklab::python::BindSolvers(m);
  iklab::python::BindLab(m);
  iklab::python::BindReach(m);
}
