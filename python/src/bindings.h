#ifndef IKLAB_PYTHON_BINDINGS_H_
#define IKLAB_PYTHON_BINDINGS_H_

// Shared pieces of the Python bindings: the per-layer Bind* functions and the
// checked conversions from Python objects (NumPy arrays, sequences) to Eigen
// types. The conversions name the argument and the expected shape in their
// ValueError, which pybind11's own Eigen casters do not.

#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "framework/model.h"
#include "solvers/batch_solve.h"

namespace iklab::python {

namespace py = pybind11;

void BindFramework(py::module_& m);
void BindConstraints(py::module_& m);
void BindSolvers(py::module_& m);
void BindLab(py::module_& m);
void BindReach(py::module_& m);

/// A C-contiguous float64 view of `object` (no copy when it already is one;
/// integer and boolean arrays are converted). Throws ValueError naming `name`
/// when `object` is not numeric or its shape is not `shape` (−1: any size;
/// `shape_text` is how the message spells the expected shape).
py::array_t<double, py::array::c_style> AsArray(py::handle object,
                                                const char* name,
                                                std::initializer_list<long> shape,
                                                const std::string& shape_text);

/// A vector of size `size` (−1: any).
Eigen::VectorXd ToVector(py::handle object, const char* name, long size = -1);
Eigen::Vector3d ToVector3(py::handle object, const char* name);
Eigen::Vector2d ToVector2(py::handle object, const char* name);
Eigen::Matrix3d ToMatrix3(py::handle object, const char* name);
/// A rows × cols row-major matrix (−1: any); `shape_text` e.g. "(B, 7)".
RowMatrixXd ToMatrix(py::handle object, const char* name, long rows, long cols,
                     const std::string& shape_text);

/// A pose from a 4 × 4 homogeneous matrix or a pair (position[3],
/// quaternion[4] in the order w, x, y, z; normalized here).
Eigen::Isometry3d ToPose(py::handle object, const char* name);
/// A pose as a 4 × 4 NumPy array.
py::array_t<double> PoseToArray(const Eigen::Isometry3d& X);
/// A pose as (position[3], quaternion[4] w x y z).
py::tuple PoseToPositionQuaternion(const Eigen::Isometry3d& X);

/// Data after ForwardKinematics(model, q) (q already checked).
Data DataAt(const Model& model, const Eigen::VectorXd& q);

/// An int argument `name`: a Python int or anything with __index__ (a NumPy
/// integer), not a bool. Throws TypeError naming `name`, the expected type and
/// what was given (pybind11's own cast says only "Unable to cast Python
/// instance to C++ type"), ValueError when it does not fit an int.
int ToInt(py::handle object, const char* name);

/// A thread-count argument: None -> every core, else ToInt(object, name).
int ToThreadCount(py::handle object, const char* name = "threads");

/// A site given by name or index.
int SiteOf(const Model& model, py::handle site, const char* name = "site");

}  // namespace iklab::python

#endif  // IKLAB_PYTHON_BINDINGS_H_
