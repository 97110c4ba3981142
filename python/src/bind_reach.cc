// reach/: reachability and capability maps of a chain's site, computed on
// this process's threads (the same loop as `iklab reach` without MPI, so a
// map written from Python is byte-identical to the command's file for the
// same robot, settings and seed), read and written as HDF5.

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bindings.h"
#include "reach/process_group.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_map.h"
#include "reach/reach_run.h"

namespace iklab::python {
namespace {

// A per-voxel vector as an (nx, ny, nz) array (voxel index (i·ny + j)·nz + k).
template <typename T>
py::array_t<T> GridArray(const std::vector<T>& values, const VoxelGrid& grid) {
  py::array_t<T> out({grid.shape.x(), grid.shape.y(), grid.shape.z()});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}


}  // namespace

void BindReach(py::module_& m) {
  py::class_<ReachMap>(m, "ReachMap",
                       "A reachability/capability map: per voxel the share of the approach "
                       "orientations reached within the limits and the Yoshikawa "
                       "manipulability of the answers (arrays shaped like the grid).")
      .def_property_readonly("origin", [](const ReachMap& r) { return r.grid.origin; },
                             "Centre of voxel (0, 0, 0) in the model's root frame.")
      .def_property_readonly("resolution", [](const ReachMap& r) { return r.grid.resolution; },
                             "Voxel edge length (model length units).")
      .def_property_readonly("shape", [](const ReachMap& r) {
        return py::make_tuple(r.grid.shape.x(), r.grid.shape.y(), r.grid.shape.z());
      }, "Voxels per axis (nx, ny, nz).")
      .def_property_readonly("fraction", [](const ReachMap& r) {
        std::vector<double> fraction(r.state.size());
        for (std::size_t v = 0; v < fraction.size(); ++v) {
          fraction[v] = r.Fraction(static_cast<std::int64_t>(v));
        }
        return GridArray(fraction, r.grid);
      }, "Reached share of the orientations per voxel, in [0, 1].")
      .def_property_readonly("state", [](const ReachMap& r) { return GridArray(r.state, r.grid); },
                             "0 pending, 1 solved, 2 outside the chain's reach, 3 skipped by "
                             "the flood fill.")
      .def_property_readonly("reached", [](const ReachMap& r) { return GridArray(r.reached, r.grid); },
                             "Number of approach orientations reached per voxel (uint16, "
                             "(nx, ny, nz)).")
      .def_property_readonly("manipulability_min",
                             [](const ReachMap& r) { return GridArray(r.manipulability_min, r.grid); },
                             "Smallest Yoshikawa manipulability sqrt(det(J J^T)) over the "
                             "reached queries per voxel (float32); NaN where none.")
      .def_property_readonly("manipulability_mean",
                             [](const ReachMap& r) { return GridArray(r.manipulability_mean, r.grid); },
                             "Mean Yoshikawa manipulability over the reached queries per "
                             "voxel (float32); NaN where none.")
      .def_property_readonly("manipulability_max",
                             [](const ReachMap& r) { return GridArray(r.manipulability_max, r.grid); },
                             "Largest Yoshikawa manipulability over the reached queries per "
                             "voxel (float32); NaN where none.")
      .def_property_readonly("orientations", [](const ReachMap& r) {
        RowMatrixXd out(static_cast<long>(r.orientations.size()), 4);
        for (std::size_t i = 0; i < r.orientations.size(); ++i) {
          const Eigen::Quaterniond& o = r.orientations[i];
          out.row(static_cast<long>(i)) << o.w(), o.x(), o.y(), o.z();
        }
        return out;
      }, "(K, 4) approach orientations, quaternions w x y z.")
      .def_property_readonly("solver", [](const ReachMap& r) { return r.solver; })
      .def_property_readonly(
          "solver_method", [](const ReachMap& r) { return r.solver_method; },
          "How the queries were solved: 'simd-bounded-lm (<instruction set>, <lanes> "
          "lanes)' on the SIMD batch solver, else 'scalar' and why the batch solver "
          "does not apply (empty for a map read from a file written before it was "
          "recorded).")
      .def_property_readonly("site", [](const ReachMap& r) { return r.site; },
                             "Name of the site the map is of.")
      .def("centre", [](const ReachMap& r, std::int64_t voxel) {
        if (voxel < 0 || voxel >= r.grid.num_voxels()) {
          throw std::invalid_argument("voxel: must be in [0, " +
                                      std::to_string(r.grid.num_voxels()) + "); got " +
                                      std::to_string(voxel));
        }
        return Eigen::Vector3d(r.grid.Centre(voxel));
      }, py::arg("voxel"),
      "Centre of voxel `voxel` (linear index (i ny + j) nz + k) in the model's root frame. "
      "Raises ValueError for an index outside [0, nx ny nz).")
      .def("write_hdf5", [](const ReachMap& r, const std::string& path) {
        WriteReachMapHdf5(r, path);
      }, py::arg("path"), "Writes the map in the layout of `iklab reach` (docs/reach.md, "
                 "\"The HDF5 layout\").");
  m.def("read_reach_map", &ReadReachMapHdf5, py::arg("path"),
        "Reads a map written by `iklab reach` or ReachMap.write_hdf5.");
  m.def(
      "reach_map",
      [](std::shared_ptr<const Model> model, SiteArg site, double resolution,
         int approach_axes, int rolls, bool position_only, bool flood_fill,
         const std::string& solver, int max_attempts, int max_iterations, double tolerance,
         std::uint64_t seed, ThreadsArg threads, const std::string& robot,
         const std::string& base_link) {
        ReachSettings settings;
        settings.resolution = resolution;
        settings.approach_axes = approach_axes;
        settings.rolls = rolls;
        settings.position_only = position_only;
        settings.flood_fill = flood_fill;
        settings.solver = ReachSolverFromName(solver);
        settings.max_attempts = max_attempts;
        settings.max_iterations = max_iterations;
        settings.tolerance = tolerance;
        settings.seed = seed;
        const std::string site_name = model->site_name(SiteOf(*model, site));
        const ReachTask task(model, site_name, settings);
        ReachRunOptions options;
        options.threads = ToThreadCount(threads, "threads");
        py::gil_scoped_release release;
        const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
        return RunReach(task, robot, base_link, local.get(), options).map;
      },
      py::arg("model"), py::arg("site"), py::arg("resolution") = 0.05,
      py::arg("approach_axes") = 20, py::arg("rolls") = 1, py::arg("position_only") = false,
      py::arg("flood_fill") = false, py::arg("solver") = "auto", py::arg("max_attempts") = 10,
      py::arg("max_iterations") = 500, py::arg("tolerance") = 1e-5, py::arg("seed") = 1,
      py::arg("threads") = py::none(), py::arg("robot") = "", py::arg("base_link") = "",
      "The reachability map of `site` (the library of `iklab reach`; threads: default all "
      "cores, the same map at any count). robot/base_link only label the HDF5 file.");
}

}  // namespace iklab::python
