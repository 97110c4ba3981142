#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bindings.h"
#include "framework/kinematics.h"
#include "framework/validate.h"

namespace iklab::python {

namespace {

std::string ShapeOf(const py::array& array) {
  std::ostringstream out;
  out << "(";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    out << (i ? ", " : "") << array.shape(i);
  }
  out << (array.ndim() == 1 ? ",)" : ")");
  return out.str();
}

using CArray = py::array_t<double, py::array::c_style>;

// True if `object` is already what AsArray returns: a C-contiguous float64
// (native byte order) NumPy array of `shape` (-1: any size). The common case
// on the per-call path (solver.solve(problem, q0) with q0 from NumPy), which
// then costs a type and a flag test instead of two NumPy conversions, a dtype
// object and the message texts (docs/python.md, "Cost of Python").
bool IsCArrayOfShape(py::handle object, std::initializer_list<long> shape) {
  if (!CArray::check_(object)) return false;
  const auto* array = py::detail::array_proxy(object.ptr());
  if (array->nd != static_cast<int>(shape.size())) return false;
  int i = 0;
  for (long expected : shape) {
    if (expected >= 0 && array->dimensions[i] != expected) return false;
    ++i;
  }
  return true;
}

}  // namespace

py::array_t<double, py::array::c_style> AsArray(
    py::handle object, const char* name, std::initializer_list<long> shape,
    const std::string& shape_text) {
  if (IsCArrayOfShape(object, shape)) return py::reinterpret_borrow<CArray>(object);
  // Null until ensure succeeds (py::array's default constructor would make
  // an empty array for nothing).
  auto array = py::reinterpret_steal<py::array>(py::handle());
  try {
    array = py::array::ensure(object);
  } catch (const py::error_already_set&) {
  }
  if (!array) {
    throw py::value_error(std::string(name) + " must be an array of shape " +
                          shape_text + ", got an object of type " +
                          std::string(py::str(py::type::of(object).attr("__name__"))));
  }
  const char kind = array.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::value_error(std::string(name) + " must be a numeric array of shape " +
                          shape_text + " (float64), got dtype " +
                          std::string(py::str(array.dtype())));
  }
  bool ok = array.ndim() == static_cast<py::ssize_t>(shape.size());
  int i = 0;
  for (long expected : shape) {
    if (!ok) break;
    if (expected >= 0 && array.shape(i) != expected) ok = false;
    ++i;
  }
  if (!ok) {
    throw py::value_error(std::string(name) + " must have shape " + shape_text +
                          ", got shape " + ShapeOf(array));
  }
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
      array);
}

Eigen::VectorXd ToVector(py::handle object, const char* name, long size) {
  if (IsCArrayOfShape(object, {size})) {
    const auto* array = py::detail::array_proxy(object.ptr());
    return Eigen::Map<const Eigen::VectorXd>(reinterpret_cast<const double*>(array->data),
                                             array->dimensions[0]);
  }
  const std::string text =
      size >= 0 ? "(" + std::to_string(size) + ",)" : std::string("(n,)");
  const auto a = AsArray(object, name, {size}, text);
  return Eigen::Map<const Eigen::VectorXd>(a.data(), a.shape(0));
}

Eigen::Vector3d ToVector3(py::handle object, const char* name) {
  return ToVector(object, name, 3);
}

Eigen::Vector2d ToVector2(py::handle object, const char* name) {
  return ToVector(object, name, 2);
}

Eigen::Matrix3d ToMatrix3(py::handle object, const char* name) {
  return ToMatrix(object, name, 3, 3, "(3, 3)");
}

RowMatrixXd ToMatrix(py::handle object, const char* name, long rows, long cols,
                     const std::string& shape_text) {
  const auto a = AsArray(object, name, {rows, cols}, shape_text);
  return Eigen::Map<const RowMatrixXd>(a.data(), a.shape(0), a.shape(1));
}

Eigen::Isometry3d ToPose(py::handle object, const char* name) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  if (py::isinstance<py::tuple>(object) || py::isinstance<py::list>(object)) {
    const py::sequence pair = py::reinterpret_borrow<py::sequence>(object);
    if (pair.size() == 2) {
      const std::string n(name);
      X.translation() = ToVector3(pair[0], (n + " position").c_str());
      const Eigen::Vector4d wxyz =
          ToVector(pair[1], (n + " quaternion (w, x, y, z)").c_str(), 4);
      X.linear() = CheckQuaternion(wxyz[0], wxyz[1], wxyz[2], wxyz[3], n)
                       .toRotationMatrix();
      return X;
    }
  }
  const RowMatrixXd M = ToMatrix(
      object, name, 4, 4,
      "(4, 4) (or a pair (position[3], quaternion[4] w x y z))");
  return CheckPose(M, name);
}

py::array_t<double> PoseToArray(const Eigen::Isometry3d& X) {
  py::array_t<double> out({4, 4});
  auto view = out.mutable_unchecked<2>();
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) view(r, c) = X.matrix()(r, c);
  }
  return out;
}

py::tuple PoseToPositionQuaternion(const Eigen::Isometry3d& X) {
  const Eigen::Quaterniond q(X.linear());
  py::array_t<double> p(3), w(4);
  for (int i = 0; i < 3; ++i) p.mutable_at(i) = X.translation()[i];
  w.mutable_at(0) = q.w();
  w.mutable_at(1) = q.x();
  w.mutable_at(2) = q.y();
  w.mutable_at(3) = q.z();
  return py::make_tuple(p, w);
}

Data DataAt(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return data;
}

int ToInt(py::handle object, const char* name) {
  if (PyBool_Check(object.ptr()) || !PyIndex_Check(object.ptr())) {
    throw py::type_error(std::string(name) + " must be an int, got " +
                         std::string(py::str(py::type::of(object).attr("__name__"))) +
                         " " + std::string(py::repr(object)));
  }
  const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(object.ptr()));
  if (!value) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0 || v < std::numeric_limits<int>::min() ||
      v > std::numeric_limits<int>::max()) {
    throw py::value_error(std::string(name) + " = " + std::string(py::repr(object)) +
                          " does not fit an int");
  }
  return static_cast<int>(v);
}

int ToThreadCount(py::handle object, const char* name) {
  if (object.is_none()) {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  return ToInt(object, name);
}

int SiteOf(const Model& model, py::handle site, const char* name) {
  if (py::isinstance<py::str>(site)) {
    return model.SiteIndex(site.cast<std::string>());
  }
  if (py::isinstance<py::int_>(site)) {
    const int index = ToInt(site, name);  // 2**40 is "does not fit an int"
    if (index < 0 || index >= model.num_sites()) {
      throw py::value_error(std::string(name) + " index " +
                            std::to_string(index) + " out of range [0, " +
                            std::to_string(model.num_sites()) + ")");
    }
    return index;
  }
  throw py::value_error(std::string(name) + " must be a site name (str) or index (int)");
}

}  // namespace iklab::python
