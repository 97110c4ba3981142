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

/// A Python argument that any object binds to, as py::handle does (the
/// binding converts and checks it: AsArray, ToVector, ToPose, SiteOf, ...,
/// which accept lists, float32, Fortran-ordered and strided arrays), but
/// whose pybind11 signature names what it expects, so help() and the
/// stubs read `q: numpy.ndarray[numpy.float64[nq]]` instead of `q: handle`.
/// `Tag::name` is the text (a pybind11 descr).
template <typename Tag>
class Arg : public py::object {
 public:
  static bool AnyObject(PyObject* /*object*/) { return true; }
  PYBIND11_OBJECT_DEFAULT(Arg, py::object, AnyObject)
};

namespace arg {
// The names in signatures. Shapes: nq the model's coordinates, B the batch.
struct VectorNq { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[nq]]"); };
struct Vector { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[n]]"); };
struct Vector2 { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[2]]"); };
struct Vector3 { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[3]]"); };
struct Vector7 { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[7]]"); };
struct Matrix3 { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[3, 3]]"); };
struct Pose {
  static constexpr auto name = py::detail::const_name(
      "numpy.ndarray[numpy.float64[4, 4]] | tuple[position[3], quaternion_wxyz[4]]");
};
struct BatchTargets {
  static constexpr auto name = py::detail::const_name(
      "numpy.ndarray[numpy.float64[B, 7]] | numpy.ndarray[numpy.float64[B, 3]] | list[Problem]");
};
struct BatchQ { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[B, nq]]"); };
struct BatchPoses { static constexpr auto name = py::detail::const_name("numpy.ndarray[numpy.float64[B, 7]]"); };
struct Site { static constexpr auto name = py::detail::const_name("str | int"); };
struct Coordinates { static constexpr auto name = py::detail::const_name("list[int | str]"); };
struct Threads { static constexpr auto name = py::detail::const_name("int | None"); };
struct Strings { static constexpr auto name = py::detail::const_name("list[str] | None"); };
struct Path { static constexpr auto name = py::detail::const_name("str | None"); };
/// "T | None" for a bound class T (pybind11 puts in its Python name).
template <typename T>
struct OrNone {
  static constexpr auto name = py::detail::const_name<T>() + py::detail::const_name(" | None");
};
}  // namespace arg

using VectorNqArg = Arg<arg::VectorNq>;
using VectorArg = Arg<arg::Vector>;
using Vector2Arg = Arg<arg::Vector2>;
using Vector3Arg = Arg<arg::Vector3>;
using Vector7Arg = Arg<arg::Vector7>;
using Matrix3Arg = Arg<arg::Matrix3>;
using PoseArg = Arg<arg::Pose>;
using BatchTargetsArg = Arg<arg::BatchTargets>;
using BatchQArg = Arg<arg::BatchQ>;
using BatchPosesArg = Arg<arg::BatchPoses>;
using SiteArg = Arg<arg::Site>;
using CoordinatesArg = Arg<arg::Coordinates>;
using ThreadsArg = Arg<arg::Threads>;
using StringsArg = Arg<arg::Strings>;
using PathArg = Arg<arg::Path>;
template <typename T>
using OrNoneArg = Arg<arg::OrNone<T>>;

void BindFramework(py::module_& m);
void BindConstraints(py::module_& m);
void BindSolvers(py::module_& m);
void BindLab(py::module_& m);
/// Studies (lab/study.h) with Python scenarios, solver factories, accept
/// tests and claims; called by BindLab after the goal specifications.
void BindStudies(py::module_& m);
void BindReach(py::module_& m);
/// Motion retargeting and the procedural motions (bind_retarget.cc); called
/// by BindLab.
void BindRetargeting(py::module_& m);

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

namespace pybind11::detail {
template <typename Tag>
struct handle_type_name<iklab::python::Arg<Tag>> {
  static constexpr auto name = Tag::name;
};
}  // namespace pybind11::detail

#endif  // IKLAB_PYTHON_BINDINGS_H_
