#include "reach/reach_hdf5.h"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "framework/internal/read_file.h"
#include "reach/internal/file_checks.h"
#include "reach/orientation_set.h"

#ifndef IKLAB_VERSION
#define IKLAB_VERSION "unknown"
#endif

namespace iklab {

namespace {

constexpr int kFormatVersion = 2;
constexpr char kFormat[] = "iklab reachability map";
// The header: an HDF5 user block (H5Pset_userblock) of this size in front of
// the HDF5 data, which HDF5 readers skip.
constexpr size_t kHeaderBytes = 512;
constexpr unsigned char kHdf5Signature[8] = {0x89, 'H', 'D', 'F',
                                             '\r', '\n', 0x1a, '\n'};
constexpr char kOrientationSet[] =
    "site z axis along each point of the spherical Fibonacci lattice "
    "(Gonzalez 2010: z_k = 1 - (2k+1)/A, phi_k = 2 pi k / golden^2), the "
    "smallest rotation from e_z, then rolls 2 pi j / rolls about the axis; "
    "index k * rolls + j";

// The last HDF5 error, innermost call first ("H5F__super_read: truncated
// file ..."), in one line; "" if none is recorded.
herr_t CollectError(unsigned depth, const H5E_error2_t* error, void* data) {
  auto* text = static_cast<std::string*>(data);
  if (depth > 2 || error == nullptr) return 0;
  if (!text->empty()) *text += "; ";
  *text += std::string(error->func_name ? error->func_name : "?") + ": " +
           (error->desc ? error->desc : "?");
  return 0;
}

std::string Hdf5ErrorText() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, CollectError, &text);
  return text;
}

[[noreturn]] void ThrowHdf5(const std::string& what) {
  const std::string details = Hdf5ErrorText();
  throw std::runtime_error("HDF5 cannot " + what +
                           (details.empty() ? "" : " (" + details + ")"));
}

// Closes an HDF5 handle when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what)
      : id_(id), close_(close) {
    if (id_ < 0) ThrowHdf5(what);
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
  if (status < 0) ThrowHdf5(what);
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

// The header text for `hdf5_bytes` bytes of HDF5 data with checksum
// `checksum`: kHeaderBytes bytes, ASCII lines then zeros.
std::string HeaderText(int version, unsigned long long hdf5_bytes,
                       std::uint64_t checksum) {
  char text[kHeaderBytes] = {};
  std::snprintf(text, sizeof text,
                "%s\nformat_version %d\nhdf5_bytes %llu\nfnv1a64 %016" PRIx64
                "\n",
                kFormat, version, hdf5_bytes, checksum);
  return std::string(text, sizeof text);
}

// Reading, every step checked; a failed check throws a runtime_error saying
// what is wrong (the caller adds the file name).
[[noreturn]] void Fail(const std::string& what) {
  throw std::runtime_error(what);
}

// The attribute `name` of the root group, present, of type class `type_class`
// with `count` elements (0: a scalar).
Handle OpenAttribute(hid_t file, const char* name, H5T_class_t type_class,
                     hssize_t count) {
  const htri_t exists = H5Aexists(file, name);
  if (exists < 0) ThrowHdf5(std::string("look up attribute '") + name + "'");
  if (exists == 0) Fail(std::string("it has no attribute '") + name + "'");
  Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose,
                   std::string("open attribute '") + name + "'");
  Handle type(H5Aget_type(attribute), H5Tclose,
              std::string("read the type of attribute '") + name + "'");
  if (H5Tget_class(type) != type_class) {
    Fail(std::string("attribute '") + name + "' has the wrong type");
  }
  Handle space(H5Aget_space(attribute), H5Sclose,
               std::string("read the shape of attribute '") + name + "'");
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  const int rank = H5Sget_simple_extent_ndims(space);
  if (count == 0 ? !(rank == 0 && points == 1)
                 : !(rank == 1 && points == count)) {
    Fail(std::string("attribute '") + name + "' has the wrong shape (" +
         (count == 0 ? std::string("a scalar") : std::to_string(count) +
                                                     " values") +
         " expected)");
  }
  return Handle(H5Aopen(file, name, H5P_DEFAULT), H5Aclose,
                std::string("open attribute '") + name + "'");
}

void ReadAttribute(hid_t file, const char* name, H5T_class_t type_class,
                   hssize_t count, hid_t memory_type, void* data) {
  const Handle attribute = OpenAttribute(file, name, type_class, count);
  Check(H5Aread(attribute, memory_type, data),
        std::string("read attribute '") + name + "'");
}

std::string ReadString(hid_t file, const char* name) {
  const Handle attribute = OpenAttribute(file, name, H5T_STRING, 0);
  Handle type(H5Aget_type(attribute), H5Tclose, "read a string type");
  if (H5Tis_variable_str(type) != 0) {
    Fail(std::string("attribute '") + name +
         "' is not a fixed-length string");
  }
  const size_t size = H5Tget_size(type);
  if (size == 0 || size > 65536) {
    Fail(std::string("attribute '") + name + "' has a string of " +
         std::to_string(size) + " bytes (1 to 65536 expected)");
  }
  std::string value(size, '\0');
  Handle memory(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  Check(H5Tset_size(memory, size), "size a string");
  Check(H5Tset_strpad(memory, H5T_STR_NULLPAD), "pad a string");
  Check(H5Aread(attribute, memory, value.data()),
        std::string("read attribute '") + name + "'");
  value.resize(std::min(value.find('\0'), size));
  return value;
}

long long ReadInt(hid_t file, const char* name, long long lowest,
                  long long highest) {
  long long value = 0;
  ReadAttribute(file, name, H5T_INTEGER, 0, H5T_NATIVE_LLONG, &value);
  if (value < lowest || value > highest) {
    Fail(std::string("attribute '") + name + "' is " + std::to_string(value) +
         ", outside [" + std::to_string(lowest) + ", " +
         std::to_string(highest) + "]");
  }
  return value;
}

double ReadFiniteDouble(hid_t file, const char* name) {
  double value = 0;
  ReadAttribute(file, name, H5T_FLOAT, 0, H5T_NATIVE_DOUBLE, &value);
  if (!std::isfinite(value)) {
    Fail(std::string("attribute '") + name + "' is not a finite number");
  }
  return value;
}

Eigen::Vector3d ReadFiniteVector3(hid_t file, const char* name) {
  Eigen::Vector3d value;
  ReadAttribute(file, name, H5T_FLOAT, 3, H5T_NATIVE_DOUBLE, value.data());
  if (!value.allFinite()) {
    Fail(std::string("attribute '") + name + "' is not 3 finite numbers");
  }
  return value;
}

// Dataset `name`: present, of `type_class`, contiguous, of exactly the
// dimensions `dims`, with its data stored in the file; read whole.
template <typename T>
void ReadDataset(hid_t file, const char* name, H5T_class_t type_class,
                 hid_t memory_type, const std::vector<hsize_t>& dims,
                 std::vector<T>* out) {
  const std::string quoted = std::string("'") + name + "'";
  const htri_t exists = H5Lexists(file, name, H5P_DEFAULT);
  if (exists < 0) ThrowHdf5("look up dataset " + quoted);
  if (exists == 0) Fail("it has no dataset " + quoted);
  Handle set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose,
             "open dataset " + quoted);
  Handle type(H5Dget_type(set), H5Tclose, "read the type of " + quoted);
  if (H5Tget_class(type) != type_class) {
    Fail("dataset " + quoted + " has the wrong type");
  }
  Handle space(H5Dget_space(set), H5Sclose, "read the shape of " + quoted);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> actual(std::max(rank, 0));
  if (rank != static_cast<int>(dims.size()) ||
      H5Sget_simple_extent_dims(space, actual.data(), nullptr) != rank ||
      actual != dims) {
    std::string expected;
    for (hsize_t d : dims) {
      expected += (expected.empty() ? "" : " x ") + std::to_string(d);
    }
    Fail("dataset " + quoted + " has the wrong shape (" + expected +
         " expected)");
  }
  Handle plist(H5Dget_create_plist(set), H5Pclose,
               "read the layout of " + quoted);
  if (H5Pget_layout(plist) != H5D_CONTIGUOUS || H5Pget_nfilters(plist) != 0) {
    Fail("dataset " + quoted + " is not stored contiguously");
  }
  size_t count = 1;
  for (hsize_t d : dims) count *= static_cast<size_t>(d);
  // A contiguous dataset's data lies in the file: its size is bounded by
  // the file's, so no allocation below exceeds what the file holds.
  const size_t stored_bytes = H5Tget_size(type) * count;
  if (count > 0 && H5Dget_storage_size(set) != stored_bytes) {
    Fail("dataset " + quoted + " holds " +
         std::to_string(H5Dget_storage_size(set)) + " bytes of data; " +
         std::to_string(stored_bytes) + " expected");
  }
  out->resize(count);
  if (count > 0) {
    Check(H5Dread(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                  out->data()),
          "read dataset " + quoted);
  }
}

// The header of `bytes`, checked: the HDF5 data after it is intact. Throws
// what is wrong otherwise.
void CheckHeader(const std::string& bytes) {
  if (bytes.size() >= sizeof kHdf5Signature &&
      std::memcmp(bytes.data(), kHdf5Signature, sizeof kHdf5Signature) == 0) {
    Fail("an HDF5 file without the iklab header: a map of format_version 1 "
         "(written by an earlier iklab, without a checksum) or not an iklab "
         "map. Its bytes cannot be checked for damage before HDF5 parses "
         "them, so it is not read; compute the map again with `iklab reach` "
         "(the same options give the same map)");
  }
  const std::string first_line = std::string(kFormat) + "\n";
  if (bytes.compare(0, first_line.size(), first_line) != 0) {
    Fail("not an iklab reachability map (it does not begin with the line '" +
         std::string(kFormat) + "')");
  }
  if (bytes.size() < kHeaderBytes) {
    Fail("truncated: " + std::to_string(bytes.size()) +
         " bytes, shorter than the header (" + std::to_string(kHeaderBytes) +
         " bytes)");
  }
  const std::string header = bytes.substr(0, kHeaderBytes);
  // The lines before the zero padding; numbers read digit by digit (no
  // sscanf: its behaviour on an out-of-range number is undefined).
  std::vector<std::string> lines;
  {
    const std::string text = header.substr(0, header.find('\0'));
    size_t start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos;
         start = end + 1) {
      lines.push_back(text.substr(start, end - start));
    }
  }
  const auto field = [&](size_t index, const std::string& key, size_t digits,
                         int base, unsigned long long* value) {
    if (index >= lines.size() || lines[index].rfind(key + " ", 0) != 0) {
      return false;
    }
    const std::string number = lines[index].substr(key.size() + 1);
    if (number.empty() || number.size() > digits) return false;
    *value = 0;
    for (char c : number) {
      const int digit = std::isdigit(static_cast<unsigned char>(c))
                            ? c - '0'
                            : (base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                                  : -1);
      if (digit < 0) return false;
      *value = *value * static_cast<unsigned>(base) +
               static_cast<unsigned>(digit);
    }
    return true;
  };
  unsigned long long version = 0;
  unsigned long long hdf5_bytes = 0;
  unsigned long long checksum = 0;
  if (!field(1, "format_version", 9, 10, &version)) {
    Fail("damaged: its header has no format_version line");
  }
  if (version != kFormatVersion) {
    Fail("format_version " + std::to_string(version) + "; this iklab reads " +
         std::to_string(kFormatVersion) +
         (version > kFormatVersion ? " (a newer iklab wrote it)" : ""));
  }
  if (!field(2, "hdf5_bytes", 19, 10, &hdf5_bytes) ||
      !field(3, "fnv1a64", 16, 16, &checksum) ||
      HeaderText(kFormatVersion, hdf5_bytes, checksum) != header) {
    Fail("damaged: its header (the first " + std::to_string(kHeaderBytes) +
         " bytes) is not as iklab writes it");
  }
  const size_t actual = bytes.size() - kHeaderBytes;
  if (hdf5_bytes != actual) {
    Fail("damaged or truncated: its header says " +
         std::to_string(hdf5_bytes) + " bytes of map data follow it; " +
         std::to_string(actual) + " do");
  }
  const std::uint64_t computed =
      internal::Fnv1a64(bytes.data() + kHeaderBytes, actual);
  if (computed != checksum) {
    char text[96];
    std::snprintf(text, sizeof text,
                  "checksum %016" PRIx64 ", its header says %016" PRIx64,
                  computed, static_cast<std::uint64_t>(checksum));
    Fail(std::string("damaged: its map data has ") + text +
         " (changed since iklab wrote it)");
  }
}

// Every voxel and the summary attributes agree (reach/internal/file_checks.h).
void CheckVoxels(const ReachMap& map, const std::vector<float>& fraction,
                 long long voxels_solved, long long queries_solved,
                 long long reachable_voxels) {
  const int n = map.settings.orientations_per_voxel();
  long long solved = 0;
  long long reachable = 0;
  for (size_t v = 0; v < map.state.size(); ++v) {
    const std::string fault = internal::VoxelFault(
        map.state[v], map.reached[v], map.manipulability_min[v],
        map.manipulability_mean[v], map.manipulability_max[v],
        map.reached_orientations.data() + v * n, n);
    if (!fault.empty()) Fail("voxel " + std::to_string(v) + ": " + fault);
    const float expected = static_cast<float>(map.Fraction(
        static_cast<std::int64_t>(v)));
    if (!(fraction[v] == expected)) {
      Fail("voxel " + std::to_string(v) + ": reachable_fraction " +
           std::to_string(fraction[v]) + " is not reached / " +
           std::to_string(n) + " = " + std::to_string(expected));
    }
    solved += map.state[v] == static_cast<std::uint8_t>(VoxelState::kSolved);
    reachable += map.reached[v] > 0;
  }
  if (solved != voxels_solved || solved * n != queries_solved ||
      reachable != reachable_voxels) {
    Fail("the counts voxels_solved, queries_solved, reachable_voxels (" +
         std::to_string(voxels_solved) + ", " +
         std::to_string(queries_solved) + ", " +
         std::to_string(reachable_voxels) + ") differ from the voxels' (" +
         std::to_string(solved) + ", " + std::to_string(solved * n) + ", " +
         std::to_string(reachable) + ")");
  }
}

// Reads the map from the open HDF5 file (the bytes already checked).
ReachMap ReadMap(hid_t file, size_t file_bytes) {
  if (ReadString(file, "format") != kFormat) {
    Fail("not an iklab reachability map (attribute 'format')");
  }
  const long long version = ReadInt(file, "format_version", 0, 1000000);
  if (version != kFormatVersion) {
    Fail("attribute format_version is " + std::to_string(version) +
         ", its header says " + std::to_string(kFormatVersion));
  }
  ReachMap map;
  map.robot = ReadString(file, "robot");
  map.base_link = ReadString(file, "base_link");
  map.site = ReadString(file, "site");
  map.solver = ReadString(file, "solver");
  {
    // Written since the SIMD batch solver came; absent: the scalar solver.
    const htri_t exists = H5Aexists(file, "solver_method");
    if (exists < 0) ThrowHdf5("look up attribute 'solver_method'");
    if (exists > 0) map.solver_method = ReadString(file, "solver_method");
  }
  map.grid.origin = ReadFiniteVector3(file, "grid_origin");
  map.grid.resolution = ReadFiniteDouble(file, "grid_resolution");
  long long shape[3] = {0, 0, 0};
  ReadAttribute(file, "grid_shape", H5T_INTEGER, 3, H5T_NATIVE_LLONG, shape);
  constexpr long long kMaxVoxels = 2147483647LL;  // ReachTask's bound
  long long voxels = 1;
  for (int a = 0; a < 3; ++a) {
    if (shape[a] < 1 || shape[a] > kMaxVoxels) {
      Fail("attribute grid_shape has an axis of " + std::to_string(shape[a]) +
           " voxels, outside [1, 2^31 - 1]");
    }
    voxels *= shape[a];  // ≤ 2^31 · 2^31 before the check below: no overflow
    if (voxels > kMaxVoxels) Fail("attribute grid_shape has more than 2^31 voxels");
    map.grid.shape[a] = static_cast<int>(shape[a]);
  }
  map.reach.centre = ReadFiniteVector3(file, "reach_centre");
  map.reach.radius = ReadFiniteDouble(file, "reach_radius");
  if (map.reach.radius < 0.0) Fail("attribute reach_radius is negative");
  ReachSettings& s = map.settings;
  s.resolution = map.grid.resolution;
  s.position_only = ReadInt(file, "position_only", 0, 1) != 0;
  if (s.position_only) {
    ReadInt(file, "approach_axes", 0, 0);
    ReadInt(file, "rolls", 0, 0);
    s.approach_axes = 1;
    s.rolls = 1;
  } else {
    // The ranges ReachSettings::IsValid checks again below, read as int.
    s.approach_axes = static_cast<int>(ReadInt(file, "approach_axes", 1, 1 << 30));
    s.rolls = static_cast<int>(ReadInt(file, "rolls", 1, 1 << 30));
  }
  s.flood_fill = ReadInt(file, "flood_fill", 0, 1) != 0;
  s.max_attempts = static_cast<int>(ReadInt(file, "max_attempts", 1, 1 << 30));
  s.max_iterations =
      static_cast<int>(ReadInt(file, "max_iterations", 1, 1 << 30));
  s.tolerance = ReadFiniteDouble(file, "tolerance");
  unsigned long long seed = 0;
  ReadAttribute(file, "seed", H5T_INTEGER, 0, H5T_NATIVE_ULLONG, &seed);
  s.seed = seed;
  s.simd = map.solver_method.rfind("simd", 0) == 0;
  try {  // the one name table (a foreign name is an error, not bounded-lm)
    s.solver = ReachSolverFromName(map.solver);
  } catch (const std::invalid_argument& e) {
    Fail(e.what());
  }
  std::string why;
  if (!s.IsValid(&why)) Fail("invalid settings: " + why);
  const int n = s.orientations_per_voxel();
  if (ReadInt(file, "orientations_per_voxel", 1, 65535) != n) {
    Fail("attribute orientations_per_voxel is not approach_axes x rolls");
  }
  // Every per-voxel array is in the file: refuse a grid it cannot hold
  // before allocating for it.
  const double needed = static_cast<double>(voxels) * (n + 19.0);
  if (needed > static_cast<double>(file_bytes)) {
    Fail("its grid (" + std::to_string(voxels) + " voxels x " +
         std::to_string(n) + " orientations) needs more data than the file's " +
         std::to_string(file_bytes) + " bytes");
  }
  const std::vector<hsize_t> dims = {static_cast<hsize_t>(shape[0]),
                                     static_cast<hsize_t>(shape[1]),
                                     static_cast<hsize_t>(shape[2])};
  std::vector<hsize_t> orientation_dims = dims;
  orientation_dims.push_back(static_cast<hsize_t>(n));
  std::vector<float> fraction;
  ReadDataset(file, "state", H5T_INTEGER, H5T_NATIVE_UINT8, dims, &map.state);
  ReadDataset(file, "reachable_fraction", H5T_FLOAT, H5T_NATIVE_FLOAT, dims,
              &fraction);
  ReadDataset(file, "reached", H5T_INTEGER, H5T_NATIVE_UINT16, dims,
              &map.reached);
  ReadDataset(file, "manipulability_min", H5T_FLOAT, H5T_NATIVE_FLOAT, dims,
              &map.manipulability_min);
  ReadDataset(file, "manipulability_mean", H5T_FLOAT, H5T_NATIVE_FLOAT, dims,
              &map.manipulability_mean);
  ReadDataset(file, "manipulability_max", H5T_FLOAT, H5T_NATIVE_FLOAT, dims,
              &map.manipulability_max);
  ReadDataset(file, "reached_orientations", H5T_INTEGER, H5T_NATIVE_UINT8,
              orientation_dims, &map.reached_orientations);
  CheckVoxels(map, fraction,
              ReadInt(file, "voxels_solved", 0, kMaxVoxels),
              ReadInt(file, "queries_solved", 0,
                      std::numeric_limits<long long>::max()),
              ReadInt(file, "reachable_voxels", 0, kMaxVoxels));
  if (!s.position_only) {
    // The orientations are those the settings define (orientation_set.h),
    // to rounding.
    std::vector<double> quaternions;
    ReadDataset(file, "orientations", H5T_FLOAT, H5T_NATIVE_DOUBLE,
                {static_cast<hsize_t>(n), 4}, &quaternions);
    const std::vector<Eigen::Quaterniond> expected =
        ApproachOrientations(s.approach_axes, s.rolls);
    for (int o = 0; o < n; ++o) {
      const Eigen::Quaterniond q(quaternions[4 * o], quaternions[4 * o + 1],
                                 quaternions[4 * o + 2],
                                 quaternions[4 * o + 3]);
      if (!q.coeffs().allFinite() ||
          !((q.coeffs() - expected[o].coeffs()).cwiseAbs().maxCoeff() <=
            1e-9)) {
        Fail("orientation " + std::to_string(o) +
             " is not the one its approach_axes and rolls define");
      }
      map.orientations.push_back(q);
    }
  }
  return map;
}

}  // namespace

void WriteReachMapHdf5(const ReachMap& map, const std::string& path) {
  namespace fs = std::filesystem;
  const QuietErrors quiet;
  // A short temporary name in the same folder (a rename within one file
  // system), so that a long `path` is not made longer.
  const fs::path parent = fs::path(path).parent_path();
  const std::string temporary =
      (parent / (".iklab-map-" +
                 std::to_string(static_cast<long long>(::getpid())) + ".tmp"))
          .string();
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
    Check(H5Pset_userblock(fcpl, kHeaderBytes), "reserve the header");
    // The 1.8 format on every HDF5 version: checksummed metadata, the same
    // bytes whichever library writes them.
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a property list");
    Check(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18),
          "choose the 1.8 file format");
    Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, fcpl, fapl),
                H5Fclose, "create '" + temporary + "'");
    WriteString(file, "format", kFormat);
    WriteInt(file, "format_version", kFormatVersion);
    WriteString(file, "iklab_version", IKLAB_VERSION);
    WriteString(file, "robot", map.robot);
    WriteString(file, "base_link", map.base_link);
    WriteString(file, "site", map.site);
    WriteString(file, "solver", map.solver);
    if (!map.solver_method.empty()) {
      WriteString(file, "solver_method", map.solver_method);
    }
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
  // The file is closed: the header over its HDF5 data.
  try {
    std::fstream file(temporary,
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(kHeaderBytes));
    std::uint64_t checksum = internal::Fnv1a64(nullptr, 0);
    unsigned long long hdf5_bytes = 0;
    std::vector<char> buffer(1 << 20);
    while (file.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) ||
           file.gcount() > 0) {
      const auto got = static_cast<size_t>(file.gcount());
      checksum = internal::Fnv1a64(buffer.data(), got, checksum);
      hdf5_bytes += got;
    }
    file.clear();
    const std::string header = HeaderText(kFormatVersion, hdf5_bytes, checksum);
    file.seekp(0);
    file.write(header.data(), static_cast<std::streamsize>(header.size()));
    file.flush();
    if (!file) {
      throw std::runtime_error("cannot write the header of '" + temporary +
                               "'");
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw std::runtime_error("cannot write the map '" + path + "' (" +
                             error.message() + ")");
  }
}

ReachMap ReadReachMapHdf5FromBytes(std::string bytes,
                                   const std::string& source) {
  const QuietErrors quiet;
  try {
    CheckHeader(bytes);
    const size_t size = bytes.size();
    // HDF5 opens the checked bytes in memory (the core driver with a file
    // image, which HDF5 copies and owns: nothing it keeps points into
    // `bytes`). Closing the file closes every object in it, so a read
    // stopped half-way leaves nothing open.
    static std::atomic<unsigned long long> images{0};
    const std::string name = "iklab-map-image-" + std::to_string(++images);
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a property list");
    Check(H5Pset_fapl_core(fapl, 1 << 16, /*backing_store=*/false),
          "choose the in-memory driver");
    Check(H5Pset_file_image(fapl, bytes.data(), size), "take the bytes");
    Check(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "set the close degree");
    std::string().swap(bytes);  // HDF5 holds its copy
    Handle file(H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose,
                "open it as HDF5");
    return ReadMap(file, size);
  } catch (const std::exception& e) {
    throw std::runtime_error(source + ": " + e.what());
  }
}

ReachMap ReadReachMapHdf5(const std::string& path) {
  const std::string reason =
      internal::UnreadableFileReason(path, "an iklab reachability map (.h5)");
  if (!reason.empty()) throw std::runtime_error(reason);
  std::string bytes;
  try {
    bytes = internal::ReadFile(path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  return ReadReachMapHdf5FromBytes(std::move(bytes), path);
}


}  // namespace iklab
