// Motion retargeting from Python (lab/motion_retargeting.h): a BVH motion
// onto the human figure or another BVH skeleton through a retarget map, with
// the options of `iklab retarget`, the solved frames, contacts and per-frame
// measures as NumPy arrays, and the metrics; and the procedural motions
// (lab/procedural_motions.h). The solves run without the GIL.

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"
#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "framework/bvh_writer.h"
#include "framework/kinematics.h"
#include "lab/data.h"
#include "lab/motion_retargeting.h"
#include "lab/procedural_motions.h"
#include "lab/retarget_map.h"
#include "lab/retarget_metrics.h"
#include "lab/robot_target.h"

namespace iklab::python {

// Named, not anonymous: the unity batches compile this file with others.
namespace bind_retarget_internal {

// A retargeted motion and what it was solved on.
struct MotionRetargeting {
  std::shared_ptr<Model> model;
  bool bvh_target = false;
  BvhFigure skeleton;  // the target skeleton, when bvh_target
  bool robot_target = false;
  RobotTarget robot;  // when robot_target
  KeyPointTrack track;
  MotionRetargetResult result;
};

MotionRetargeting Retarget(const BvhFigure& clip, py::object onto,
                           py::object map, const std::string& solver_name,
                           const std::string& contacts, py::object frames,
                           double posture_weight, double smoothness_weight,
                           double contact_height, double contact_speed,
                           double tolerance, const std::string& self_collision,
                           double self_collision_weight, double branch_check) {
  MotionRetargeting out;
  if (py::isinstance<BvhFigure>(onto)) {
    out.skeleton = onto.cast<BvhFigure>();
    out.bvh_target = true;
  } else if (py::isinstance<py::str>(onto)) {
    const std::string name = onto.cast<std::string>();
    if (const std::optional<HumanFigureOptions> human =
            HumanRetargetOptions(name)) {
      out.model = std::make_shared<Model>(HumanFigure(*human).Compile());
    } else if (IsRobotFile(name)) {
      out.robot = LoadRobotTarget(name);
      out.robot_target = true;
      out.model = std::make_shared<Model>(*out.robot.model);
    } else {
      out.skeleton = LoadBvh(name);
      out.bvh_target = true;
    }
  } else {
    throw py::type_error(
        "onto: expected 'human', 'human:H', a BVH file path or a BvhFigure; "
        "got " + std::string(py::str(py::type::of(onto))));
  }
  if (out.bvh_target) {
    out.model = std::make_shared<Model>(out.skeleton.figure.Compile());
    if (out.model->nq() == 0) {
      throw std::invalid_argument(
          out.skeleton.source +
          ": the skeleton has no CHANNELS, so no coordinates to solve for");
    }
  }
  const Model source = clip.figure.Compile();
  if (source.nq() == 0) {
    throw std::invalid_argument(clip.source +
                                ": the skeleton has no CHANNELS, so no motion "
                                "to retarget");
  }
  RetargetMap retarget_map;
  if (map.is_none() && out.robot_target) {
    if (out.robot.robot_name != "unitree_h1") {
      throw std::invalid_argument(
          "map: no built-in map onto the robot '" + out.robot.robot_name +
          "'; give a map file or RetargetMap");
    }
    retarget_map =
        LoadRetargetMap(DataFile("retarget/bvh_onto_h1.map").string());
  } else if (map.is_none()) {
    retarget_map = out.bvh_target ? MapByName(source, *out.model) : HumanoidMap();
  } else if (py::isinstance<RetargetMap>(map)) {
    retarget_map = map.cast<RetargetMap>();
  } else if (py::isinstance<py::str>(map)) {
    retarget_map = LoadRetargetMap(map.cast<std::string>());
  } else {
    throw py::type_error("map: expected None, a file path or a RetargetMap; got " +
                         std::string(py::str(py::type::of(map))));
  }
  int count = clip.num_frames();
  if (!frames.is_none()) {
    const int n = ToInt(frames, "frames");
    if (n < 0) {
      throw std::invalid_argument("frames: expected None or a count >= 0; got " +
                                  std::to_string(n));
    }
    if (n > 0) count = std::min(n, count);
  }
  std::vector<int> rows(count);
  for (int f = 0; f < count; ++f) rows[f] = f;
  MotionRetargetOptions options;
  options.contacts = ParseContactMode(contacts);
  options.orientation_weight = posture_weight;
  options.smoothness_weight = smoothness_weight;
  options.contact.height_threshold = contact_height;
  options.contact.speed_threshold = contact_speed;
  options.self_collision = ParseContactMode(self_collision);
  options.self_collision_weight = self_collision_weight;
  options.branch_check_error = branch_check;
  if (out.robot_target) {
    options.collision_shapes = out.robot.collision_shapes;
    // Once per process and robot file (RobotCollisions' cache).
    options.self_collision_matrix =
        RobotSelfCollisionMatrix(out.robot, options.collision_matrix);
  }
  std::string why;
  if (!options.IsValid(&why)) throw std::invalid_argument(why);
  const std::unique_ptr<Solver> solver =
      MakeMotionRetargetSolver(solver_name, tolerance);
  out.track = MakeKeyPointTrack(source, clip.poses, rows, clip.frame_time,
                                retarget_map, *out.model);
  {
    py::gil_scoped_release release;
    out.result = RetargetMotion(out.model, out.track, *solver, options,
                                Eigen::VectorXd::Zero(out.model->nq()));
  }
  return out;
}

py::array_t<double> Matrix(const std::vector<Eigen::VectorXd>& rows, long cols) {
  py::array_t<double> a({static_cast<long>(rows.size()), cols});
  auto m = a.mutable_unchecked<2>();
  for (std::size_t t = 0; t < rows.size(); ++t) {
    for (long i = 0; i < cols; ++i) m(t, i) = rows[t][i];
  }
  return a;
}

void BindMap(py::module_& m) {
  py::class_<RetargetMap>(
      m, "RetargetMap",
      "Which source site drives which target site, which are feet, and how "
      "the two worlds' axes relate (lab/retarget_map.h). Made by "
      "humanoid_map, load_retarget_map or parse_retarget_map.")
      .def_property_readonly(
          "pairs",
          [](const RetargetMap& map) {
            py::list pairs;
            for (const RetargetPair& p : map.pairs) {
              pairs.append(py::make_tuple(p.source, p.target, p.position_weight,
                                          p.orientation_weight));
            }
            return pairs;
          },
          "The pairs as (source site, target site, position weight, "
          "orientation weight) tuples, in map order.")
      .def_readonly("feet", &RetargetMap::feet,
                    "Source sites (each the source of a pair) that touch the "
                    "ground.")
      .def_property_readonly(
          "target_rest",
          [](const RetargetMap& map) {
            py::dict rest;
            for (const RetargetRestCoordinate& c : map.target_rest) {
              rest[py::str(c.coordinate)] = c.value;
            }
            return rest;
          },
          "The target's rest pose where it is not q = 0 (the map's "
          "target_rest lines), as {coordinate name: value}.")
      .def_readonly("origin", &RetargetMap::origin,
                    "Where the map came from: its file, or 'built-in ...'.");
  m.def("humanoid_map", &HumanoidMap,
        "The built-in map from the CMU / procedural-motion joint names (Hips, "
        "LeftHip, LeftKnee, ...) onto the human figure's sites.");
  m.def("load_retarget_map", &LoadRetargetMap, py::arg("path"),
        "Reads a retarget map file (lines 'pair SOURCE TARGET [w [w_orient]]', "
        "'foot SOURCE', 'source_axes UP FWD', 'target_axes UP FWD', "
        "'target_rest COORDINATE VALUE'). Raises "
        "ValueError naming the file and line of a mistake.");
  m.def("parse_retarget_map", &ParseRetargetMap, py::arg("text"),
        py::arg("origin") = "map text",
        "load_retarget_map from text; `origin` names it in error messages.");
}

void BindMetrics(py::module_& m) {
  py::class_<Skating>(m, "Skating",
                      "Horizontal speed of the foot points while in contact "
                      "(target units per second).")
      .def_readonly("mean", &Skating::mean, "Mean speed; 0 with no samples.")
      .def_readonly("max", &Skating::max, "Largest speed.")
      .def_readonly("samples", &Skating::samples,
                    "Number of (frame, foot point) pairs in contact at both "
                    "ends of a frame step.");
  py::class_<RetargetMetrics>(
      m, "RetargetMetrics",
      "The measures of a retargeted motion, in the target's units "
      "(lab/retarget_metrics.h).")
      .def_readonly("frames", &RetargetMetrics::frames, "Frames measured.")
      .def_readonly("tracking_mean", &RetargetMetrics::tracking_mean,
                    "Mean distance of the key points from their targets.")
      .def_readonly("tracking_max", &RetargetMetrics::tracking_max,
                    "Largest distance of a key point from its target.")
      .def_readonly("tracking_worst", &RetargetMetrics::tracking_worst,
                    "The target site with the largest distance.")
      .def_readonly("limit_violations", &RetargetMetrics::limit_violations,
                    "(frame, coordinate) pairs outside the target's limits "
                    "by more than 1e-9.")
      .def_readonly("limit_violation_max",
                    &RetargetMetrics::limit_violation_max,
                    "The largest excess over a limit (radians or length).")
      .def_readonly("skating", &RetargetMetrics::skating,
                    "Foot skating during the source's contacts (a Skating).")
      .def_readonly("penetration_max", &RetargetMetrics::penetration_max,
                    "Deepest foot point below the ground, >= 0.")
      .def_property_readonly(
          "self_penetration_max",
          [](const RetargetMetrics& m) -> py::object {
            if (!m.self_penetration.measured) return py::none();
            return py::float_(m.self_penetration.max);
          },
          "Deepest overlap of the target's own collision shapes (target "
          "units); None where the target has no collision geometry.")
      .def_property_readonly(
          "self_penetration_frames",
          [](const RetargetMetrics& m) -> py::object {
            if (!m.self_penetration.measured) return py::none();
            return py::int_(m.self_penetration.frames);
          },
          "Frames with any self-overlap; None without collision geometry.")
      .def_property_readonly(
          "self_penetration_worst_pair",
          [](const RetargetMetrics& m) -> py::object {
            if (!m.self_penetration.measured) return py::none();
            return py::str(m.self_penetration.worst_pair);
          },
          "The deepest overlapping shape pair ('' when none overlaps); None "
          "without collision geometry.")
      .def_readonly("jerk_rms", &RetargetMetrics::jerk_rms,
                    "Angular jerk (rad/s^3): RMS over frames and links of "
                    "the jerk of each link's rotation relative to its parent, "
                    "from rotation differences (no Euler-angle wraps).")
      .def_readonly("keypoint_jerk_rms", &RetargetMetrics::keypoint_jerk_rms,
                    "Key-point jerk (target length units/s^3): RMS third "
                    "difference of the key points' positions over dt^3.")
      .def_readonly("ms_per_frame_median",
                    &RetargetMetrics::ms_per_frame_median,
                    "Median milliseconds of solver time per frame.")
      .def_readonly("ms_per_frame_mean", &RetargetMetrics::ms_per_frame_mean,
                    "Mean milliseconds of solver time per frame.")
      .def_readonly("converged", &RetargetMetrics::converged,
                    "Frames whose solve reported convergence.");
}

void BindResult(py::module_& m) {
  py::class_<MotionRetargeting>(
      m, "MotionRetargeting",
      "A motion retargeted by retarget_motion: the target model, the solved "
      "frames, the key points and contacts, per-frame measures as NumPy "
      "arrays, and the metrics.")
      .def_readonly("model", &MotionRetargeting::model,
                    "The target's Model (the human figure or the BVH "
                    "skeleton).")
      .def_property_readonly(
          "q",
          [](const MotionRetargeting& r) {
            return Matrix(r.result.run.q, r.model->nq());
          },
          "The solved coordinates, shape (frames, nq), model order.")
      .def_property_readonly(
          "frame_time", [](const MotionRetargeting& r) { return r.track.frame_time; },
          "Seconds per frame (the clip's).")
      .def_property_readonly(
          "scale", [](const MotionRetargeting& r) { return r.track.scale; },
          "s = L_T / L_S, the ratio of the leg lengths.")
      .def_property_readonly(
          "solver", [](const MotionRetargeting& r) { return r.result.run.solver; },
          "The solver's name.")
      .def_property_readonly(
          "key_points",
          [](const MotionRetargeting& r) { return r.track.target_sites; },
          "The target sites of the key points, in map order.")
      .def_property_readonly(
          "targets",
          [](const MotionRetargeting& r) {
            const long frames = static_cast<long>(r.track.p.size());
            const long k = static_cast<long>(r.track.target_sites.size());
            py::array_t<double> a({frames, k, 3L});
            auto v = a.mutable_unchecked<3>();
            for (long t = 0; t < frames; ++t) {
              for (long j = 0; j < k; ++j) {
                for (long c = 0; c < 3; ++c) v(t, j, c) = r.track.p[t][j][c];
              }
            }
            return a;
          },
          "The key points' targets (the scaled source), shape (frames, K, 3), "
          "target world.")
      .def_property_readonly(
          "key_point_error",
          [](const MotionRetargeting& r) {
            const Model& model = *r.model;
            const long frames = static_cast<long>(r.result.run.q.size());
            const long k = static_cast<long>(r.track.target_sites.size());
            py::array_t<double> a({frames, k});
            auto v = a.mutable_unchecked<2>();
            Data data(model);
            for (long t = 0; t < frames; ++t) {
              ForwardKinematics(model, r.result.run.q[t], &data);
              for (long j = 0; j < k; ++j) {
                v(t, j) = (SitePosition(model, data,
                                        model.SiteIndex(r.track.target_sites[j])) -
                           r.track.p[t][j])
                              .norm();
              }
            }
            return a;
          },
          "Distance of each key point from its target, shape (frames, K).")
      .def_property_readonly(
          "feet",
          [](const MotionRetargeting& r) {
            std::vector<std::string> feet;
            for (int k : r.track.feet) feet.push_back(r.track.target_sites[k]);
            return feet;
          },
          "The target sites of the foot key points (the columns of contact).")
      .def_property_readonly(
          "contact",
          [](const MotionRetargeting& r) {
            const long frames = static_cast<long>(r.result.contact.size());
            const long feet = static_cast<long>(r.track.feet.size());
            py::array_t<bool> a({frames, feet});
            auto v = a.mutable_unchecked<2>();
            for (long t = 0; t < frames; ++t) {
              for (long j = 0; j < feet; ++j) v(t, j) = r.result.contact[t][j];
            }
            return a;
          },
          "The source's contact phases, shape (frames, feet), bool.")
      .def_property_readonly(
          "microseconds",
          [](const MotionRetargeting& r) {
            std::vector<double> us;
            for (const RetargetFrame& f : r.result.run.frames) us.push_back(f.microseconds);
            return py::array_t<double>(static_cast<long>(us.size()), us.data());
          },
          "Solver wall time per frame (µs).")
      .def_property_readonly(
          "converged",
          [](const MotionRetargeting& r) {
            py::array_t<bool> a(static_cast<long>(r.result.run.frames.size()));
            auto v = a.mutable_unchecked<1>();
            for (std::size_t t = 0; t < r.result.run.frames.size(); ++t) {
              v(t) = r.result.run.frames[t].converged;
            }
            return a;
          },
          "Whether each frame's solve reported convergence.")
      .def_property_readonly(
          "angular_jerk",
          [](const MotionRetargeting& r) {
            const std::vector<double> j =
                RotationJerk(*r.model, r.result.run.q, r.track.frame_time);
            return py::array_t<double>(static_cast<long>(j.size()), j.data());
          },
          "Angular jerk per frame (rad/s^3, RMS over links; frames - 3 "
          "entries, entry t from frames t .. t + 3).")
      .def_property_readonly(
          "metrics",
          [](const MotionRetargeting& r) { return r.result.metrics; },
          "The motion's RetargetMetrics.")
      .def_property_readonly(
          "bvh_text",
          [](const MotionRetargeting& r) {
            if (!r.bvh_target) {
              throw std::invalid_argument(
                  "bvh_text: the target is the human figure or a robot, not "
                  "a BVH skeleton; use q and model");
            }
            BvhFigure solved = r.skeleton;
            solved.frame_time = r.track.frame_time;
            solved.poses.resize(static_cast<Eigen::Index>(r.result.run.q.size()),
                                r.model->nq());
            for (std::size_t f = 0; f < r.result.run.q.size(); ++f) {
              solved.poses.row(static_cast<Eigen::Index>(f)) =
                  r.result.run.q[f].transpose();
            }
            return WriteBvh(solved);
          },
          "The retargeted motion as BVH text on the target skeleton (a BVH "
          "target only; ValueError for the human figure).");
}

}  // namespace bind_retarget_internal

void BindRetargeting(py::module_& m) {
  m.def("procedural_motion_names", &ProceduralMotionNames,
        "The motions the project generates: walk, run, squat, reach.");
  m.def(
      "procedural_motion_bvh",
      [](const std::string& name, py::object frames) {
        return ProceduralMotionBvh(name, frames.is_none() ? 0 : ToInt(frames, "frames"));
      },
      py::arg("name"), py::arg("frames") = py::none(),
      "A procedural motion (lab/procedural_motions.h) as BVH text: the walk, "
      "a run with flight phases, a squat or a reach, on one skeleton "
      "(centimetres, Y up, facing +Z); `frames` None: the motion's default.");
  m.def(
      "procedural_motion",
      [](const std::string& name, py::object frames) {
        return ProceduralMotion(name, frames.is_none() ? 0 : ToInt(frames, "frames"));
      },
      py::arg("name"), py::arg("frames") = py::none(),
      "load_bvh_from_string(procedural_motion_bvh(name, frames)).");
  bind_retarget_internal::BindMap(m);
  bind_retarget_internal::BindMetrics(m);
  bind_retarget_internal::BindResult(m);
  m.def("retarget_motion", &bind_retarget_internal::Retarget, py::arg("bvh"),
        py::arg("onto") = "human", py::arg("map") = py::none(),
        py::arg("solver") = "bounded-lm", py::arg("contacts") = "penalty",
        py::arg("frames") = py::none(), py::arg("posture_weight") = 0.05,
        py::arg("smoothness_weight") = 0.001, py::arg("contact_height") = 0.05,
        py::arg("contact_speed") = 0.3, py::arg("tolerance") = 1e-4,
        py::arg("self_collision") = "off",
        py::arg("self_collision_weight") = 100.0,
        py::arg("branch_check") = 0.1,
        "Retargets the motion `bvh` (a BvhFigure) onto `onto`: 'human' or "
        "'human:H' (the human figure, H metres), a BVH file path, a "
        "BvhFigure, or a robot file (.urdf or MJCF .xml; the built-in map "
        "for the Unitree H1), frame by frame, by the key points of `map` (None: the "
        "built-in human map, or the shared joint names for a BVH target; a "
        "map file path or a RetargetMap), the source's posture, foot "
        "contacts ('off', 'penalty', 'hard': slsqp or ipopt) and the target's "
        "limits, and with `self_collision` ('off', 'penalty', 'hard') a "
        "robot's self-collision with its own collision shapes, and the "
        "branch check (`branch_check` leg lengths; 0: off), as `iklab "
        "retarget` does. `frames`: the first N (None: all). "
        "Returns a MotionRetargeting. Raises ValueError for a bad option, an "
        "unknown site of the map or solver, or 'hard' with a solver that "
        "takes no constraints.");
}

}  // namespace iklab::python
