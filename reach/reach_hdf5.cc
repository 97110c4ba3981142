#include "reach/reach_hdf5.h"

#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "reach/orientation_set.h"

#ifndef IKLAB_VERSION
#define IKLAB_VERSION "unknown"
#endif

namespace iklab {

namespace {

constexpr int kFormatVersion = 1;
constexpr char kFormat[] = "iklab reachability map";
constexpr char kOrientationSet[] =
    "site z axis along each point of the spherical Fibonacci lattice "
    "(Gonzalez 2010: z_k = 1 - (2k+1)/A, phi_k = 2 pi k / golden^2), the "
    "smallest rotation from e_z, then rolls 2 pi j / rolls about the axis; "
    "index k * rolls + j";

// Closes an HDF5 handle when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what)
      : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error("HDF5: cannot " + what);
  }
  ~Handle() { close_(id_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void Check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what);
}

// Silences the library's own error stack printing; our messages say what
// failed.
struct QuietErrors {
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function, data); }
  H5E_auto2_t function = nullptr;
  void* data = nullptr;
};

void WriteDataset(hid_t file, const char* name, hid_t type,
                  const std::vector<hsize_t>& dims, const void* data) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(),
                                nullptr),
               H5Sclose, std::string("describe ") + name);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create a property list");
  Check(H5Pset_obj_track_times(dcpl, false), "turn off time tracking");
  Handle set(H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
             H5Dclose, std::string("create dataset ") + name);
  Check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
        std::string("write dataset ") + name);
}

void WriteAttribute(hid_t file, const char* name, hid_t type,
                    const std::vector<hsize_t>& dims, const void* data) {
  Handle space(dims.empty() ? H5Screate(H5S_SCALAR)
                            : H5Screate_simple(static_cast<int>(dims.size()),
                                               dims.data(), nullptr),
               H5Sclose, std::string("describe attribute ") + name);
  Handle attribute(H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose, std::string("create attribute ") + name);
  Check(H5Awrite(attribute, type, data), std::string("write attribute ") + name);
}

void WriteString(hid_t file, const char* name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  Check(H5Tset_size(type, std::max<size_t>(1, value.size())), "size a string");
  Check(H5Tset_strpad(type, H5T_STR_NULLPAD), "pad a string");
  std::string padded = value.empty() ? std::string(1, '\0') : value;
  WriteAttribute(file, name, type, {}, padded.data());
}

void WriteInt(hid_t file, const char* name, long long value) {
  WriteAttribute(file, name, H5T_NATIVE_LLONG, {}, &value);
}

void WriteDouble(hid_t file, const char* name, double value) {
  WriteAttribute(file, name, H5T_NATIVE_DOUBLE, {}, &value);
}

void WriteVector3(hid_t file, const char* name, const Eigen::Vector3d& v) {
  WriteAttribute(file, name, H5T_NATIVE_DOUBLE, {3}, v.data());
}

bool HasAttribute(hid_t file, const char* name) {
  return H5Aexists(file, name) > 0;
}

void ReadAttribute(hid_t file, const char* name, hid_t type, void* data) {
  Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose,
                   std::string("open attribute ") + name);
  Check(H5Aread(attribute, type, data), std::string("read attribute ") + name);
}

std::string ReadString(hid_t file, const char* name) {
  Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose,
                   std::string("open attribute ") + name);
  Handle type(H5Aget_type(attribute), H5Tclose, "read a string type");
  const size_t size = H5Tget_size(type);
  std::string value(size, '\0');
  Handle memory(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  Check(H5Tset_size(memory, size), "size a string");
  Check(H5Tset_strpad(memory, H5T_STR_NULLPAD), "pad a string");
  Check(H5Aread(attribute, memory, value.data()),
        std::string("read attribute ") + name);
  value.resize(value.find('\0') == std::string::npos ? size
                                                      : value.find('\0'));
  return value;
}

long long ReadInt(hid_t file, const char* name) {
  long long value = 0;
  ReadAttribute(file, name, H5T_NATIVE_LLONG, &value);
  return value;
}

double ReadDouble(hid_t file, const char* name) {
  double value = 0;
  ReadAttribute(file, name, H5T_NATIVE_DOUBLE, &value);
  return value;
}

template <typename T>
void ReadDataset(hid_t file, const char* name, hid_t type, size_t expected,
                 std::vector<T>* out) {
  Handle set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose,
             std::string("open dataset ") + name);
  Handle space(H5Dget_space(set), H5Sclose, "read a dataspace");
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count < 0 || static_cast<size_t>(count) != expected) {
    throw std::runtime_error(std::string("HDF5: dataset ") + name + " has " +
                             std::to_string(count) + " values, expected " +
                             std::to_string(expected));
  }
  out->resize(expected);
  if (expected > 0) {
    Check(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out->data()),
          std::string("read dataset ") + name);
  }
}

}  // namespace

void WriteReachMapHdf5(const ReachMap& map, const std::string& path) {
  namespace fs = std::filesystem;
  const QuietErrors quiet;
  const std::string temporary =
      path + ".tmp-" + std::to_string(static_cast<long long>(::getpid()));
  const ReachSettings& s = map.settings;
  const int n = s.orientations_per_voxel();
  const auto& shape = map.grid.shape;
  const std::vector<hsize_t> grid_dims = {
      static_cast<hsize_t>(shape.x()), static_cast<hsize_t>(shape.y()),
      static_cast<hsize_t>(shape.z())};
  std::vector<float> fraction(map.state.size());
  std::int64_t reachable = 0;
  for (size_t v = 0; v < fraction.size(); ++v) {
    fraction[v] = static_cast<float>(map.Fraction(static_cast<std::int64_t>(v)));
    reachable += map.reached[v] > 0;
  }
  try {
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "create a property list");
    Check(H5Pset_obj_track_times(fcpl, false), "turn off time tracking");
    Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT),
                H5Fclose, "create '" + temporary + "'");
    WriteString(file, "format", kFormat);
    WriteInt(file, "format_version", kFormatVersion);
    WriteString(file, "iklab_version", IKLAB_VERSION);
    WriteString(file, "robot", map.robot);
    WriteString(file, "base_link", map.base_link);
    WriteString(file, "site", map.site);
    WriteString(file, "solver", map.solver);
    WriteString(file, "orientation_set",
                s.position_only ? "none (position-only map)" : kOrientationSet);
    WriteVector3(file, "grid_origin", map.grid.origin);
    WriteDouble(file, "grid_resolution", map.grid.resolution);
    const long long grid_shape[3] = {shape.x(), shape.y(), shape.z()};
    WriteAttribute(file, "grid_shape", H5T_NATIVE_LLONG, {3}, grid_shape);
    WriteVector3(file, "reach_centre", map.reach.centre);
    WriteDouble(file, "reach_radius", map.reach.radius);
    WriteInt(file, "approach_axes", s.position_only ? 0 : s.approach_axes);
    WriteInt(file, "rolls", s.position_only ? 0 : s.rolls);
    WriteInt(file, "orientations_per_voxel", n);
    WriteInt(file, "position_only", s.position_only);
    WriteInt(file, "flood_fill", s.flood_fill);
    WriteInt(file, "max_attempts", s.max_attempts);
    WriteInt(file, "max_iterations", s.max_iterations);
    WriteDouble(file, "tolerance", s.tolerance);
    const unsigned long long seed = s.seed;
    WriteAttribute(file, "seed", H5T_NATIVE_ULLONG, {}, &seed);
    WriteInt(file, "voxels_solved", map.CountState(VoxelState::kSolved));
    WriteInt(file, "queries_solved", map.SolvedQueries());
    WriteInt(file, "reachable_voxels", reachable);

    WriteDataset(file, "state", H5T_NATIVE_UINT8, grid_dims, map.state.data());
    WriteDataset(file, "reachable_fraction", H5T_NATIVE_FLOAT, grid_dims,
                 fraction.data());
    WriteDataset(file, "reached", H5T_NATIVE_UINT16, grid_dims,
                 map.reached.data());
    WriteDataset(file, "manipulability_min", H5T_NATIVE_FLOAT, grid_dims,
                 map.manipulability_min.data());
    WriteDataset(file, "manipulability_mean", H5T_NATIVE_FLOAT, grid_dims,
                 map.manipulability_mean.data());
    WriteDataset(file, "manipulability_max", H5T_NATIVE_FLOAT, grid_dims,
                 map.manipulability_max.data());
    std::vector<hsize_t> orientation_dims = grid_dims;
    orientation_dims.push_back(static_cast<hsize_t>(n));
    WriteDataset(file, "reached_orientations", H5T_NATIVE_UINT8,
                 orientation_dims, map.reached_orientations.data());
    if (!s.position_only) {
      std::vector<double> quaternions;
      for (const Eigen::Quaterniond& q : map.orientations) {
        quaternions.insert(quaternions.end(), {q.w(), q.x(), q.y(), q.z()});
      }
      WriteDataset(file, "orientations", H5T_NATIVE_DOUBLE,
                   {map.orientations.size(), 4}, quaternions.data());
      std::vector<double> axes;
      for (const Eigen::Vector3d& a : FibonacciSphere(s.approach_axes)) {
        axes.insert(axes.end(), {a.x(), a.y(), a.z()});
      }
      WriteDataset(file, "approach_axes", H5T_NATIVE_DOUBLE,
                   {static_cast<hsize_t>(s.approach_axes), 3}, axes.data());
    }
    Check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush '" + temporary + "'");
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    throw std::runtime_error("cannot rename the map to '" + path + "'");
  }
}

ReachMap ReadReachMapHdf5(const std::string& path) {
  const QuietErrors quiet;
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
              "open '" + path + "' (not an HDF5 file?)");
  if (!HasAttribute(file, "format") || ReadString(file, "format") != kFormat) {
    throw std::runtime_error("'" + path +
                             "' is not an iklab reachability map");
  }
  const long long version = ReadInt(file, "format_version");
  if (version != kFormatVersion) {
    throw std::runtime_error("'" + path + "' has format_version " +
                             std::to_string(version) + "; this iklab reads " +
                             std::to_string(kFormatVersion));
  }
  ReachMap map;
  map.robot = ReadString(file, "robot");
  map.base_link = ReadString(file, "base_link");
  map.site = ReadString(file, "site");
  map.solver = ReadString(file, "solver");
  ReadAttribute(file, "grid_origin", H5T_NATIVE_DOUBLE, map.grid.origin.data());
  map.grid.resolution = ReadDouble(file, "grid_resolution");
  long long shape[3] = {0, 0, 0};
  ReadAttribute(file, "grid_shape", H5T_NATIVE_LLONG, shape);
  for (int a = 0; a < 3; ++a) {
    if (shape[a] < 1 || shape[a] > 2147483647LL) {
      throw std::runtime_error("'" + path + "': grid_shape out of range");
    }
    map.grid.shape[a] = static_cast<int>(shape[a]);
  }
  ReadAttribute(file, "reach_centre", H5T_NATIVE_DOUBLE,
                map.reach.centre.data());
  map.reach.radius = ReadDouble(file, "reach_radius");
  ReachSettings& s = map.settings;
  s.resolution = map.grid.resolution;
  s.position_only = ReadInt(file, "position_only") != 0;
  s.approach_axes = s.position_only ? 1 : static_cast<int>(ReadInt(file, "approach_axes"));
  s.rolls = s.position_only ? 1 : static_cast<int>(ReadInt(file, "rolls"));
  s.flood_fill = ReadInt(file, "flood_fill") != 0;
  s.max_attempts = static_cast<int>(ReadInt(file, "max_attempts"));
  s.max_iterations = static_cast<int>(ReadInt(file, "max_iterations"));
  s.tolerance = ReadDouble(file, "tolerance");
  unsigned long long seed = 0;
  ReadAttribute(file, "seed", H5T_NATIVE_ULLONG, &seed);
  s.seed = seed;
  try {  // the one name table (a foreign name is an error, not bounded-lm)
    s.solver = ReachSolverFromName(map.solver);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("'" + path + "': " + e.what());
  }
  std::string why;
  if (!s.IsValid(&why)) {
    throw std::runtime_error("'" + path + "': invalid settings: " + why);
  }
  const int n = s.orientations_per_voxel();
  const auto voxels = static_cast<size_t>(map.grid.num_voxels());
  ReadDataset(file, "state", H5T_NATIVE_UINT8, voxels, &map.state);
  ReadDataset(file, "reached", H5T_NATIVE_UINT16, voxels, &map.reached);
  ReadDataset(file, "manipulability_min", H5T_NATIVE_FLOAT, voxels,
              &map.manipulability_min);
  ReadDataset(file, "manipulability_mean", H5T_NATIVE_FLOAT, voxels,
              &map.manipulability_mean);
  ReadDataset(file, "manipulability_max", H5T_NATIVE_FLOAT, voxels,
              &map.manipulability_max);
  ReadDataset(file, "reached_orientations", H5T_NATIVE_UINT8, voxels * n,
              &map.reached_orientations);
  if (!s.position_only) {
    std::vector<double> quaternions;
    ReadDataset(file, "orientations", H5T_NATIVE_DOUBLE, static_cast<size_t>(n) * 4,
                &quaternions);
    for (int o = 0; o < n; ++o) {
      map.orientations.emplace_back(quaternions[4 * o], quaternions[4 * o + 1],
                                    quaternions[4 * o + 2],
                                    quaternions[4 * o + 3]);
    }
  }
  return map;
}

}  // namespace iklab
