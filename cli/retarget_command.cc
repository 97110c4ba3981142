#include "cli/retarget_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "framework/bvh_writer.h"
#include "framework/internal/read_file.h"
#include "framework/validate.h"
#include "lab/data.h"
#include "lab/experiment.h"
#include "lab/motion_retargeting.h"
#include "lab/retarget_map.h"
#include "lab/retargeting.h"
#include "lab/robot_target.h"
#include "lab/statistics.h"
#include "solvers/registry.h"

namespace iklab {

void AddRetargetOptions(CLI::App* command, RetargetCommandOptions* o) {
  command->add_option("--bvh", o->bvh, "The motion: a BVH file")->required();
  command->add_option("--onto", o->onto,
                      "Figure to solve on: a BVH file, a robot (.urdf or "
                      "MJCF .xml; floating base), or human[:HEIGHT] (the "
                      "human figure, HEIGHT metres, default 1.75) (default: "
                      "the motion's own skeleton)");
  command->add_option("--map", o->map,
                      "Retarget map file: lines 'pair SOURCE TARGET [w "
                      "[w_orient]]', 'foot SOURCE', 'source_axes UP FWD', "
                      "'target_axes UP FWD', 'target_rest COORDINATE VALUE' "
                      "(default: built-in for --onto "
                      "human, retarget/bvh_onto_h1.map of the data folder "
                      "for the H1 robot, else the shared joint names)");
  command
      ->add_option("--contacts", o->contacts,
                   "Foot contacts: off, penalty (weighted goals) or hard "
                   "(constraints; slsqp or ipopt)")
      ->capture_default_str()
      ->check(CLI::IsMember({"off", "penalty", "hard"}));
  command
      ->add_option("--contact-height", o->contact_height,
                   "Contact: height above the foot point's lowest, in leg "
                   "lengths")
      ->capture_default_str();
  command
      ->add_option("--contact-speed", o->contact_speed,
                   "Contact: speed, in leg lengths per second")
      ->capture_default_str();
  command
      ->add_option("--posture-weight", o->posture_weight,
                   "Weight of the source's segment orientations")
      ->capture_default_str();
  command
      ->add_option("--smoothness-weight", o->smoothness_weight,
                   "Weight of the pull toward the previous frame")
      ->capture_default_str();
  command
      ->add_option("--self-collision", o->self_collision,
                   "Self-collision of a robot target with its own collision "
                   "shapes: off, penalty (a weighted goal) or hard "
                   "(inequality constraints; slsqp or ipopt)")
      ->capture_default_str()
      ->check(CLI::IsMember({"off", "penalty", "hard"}));
  command
      ->add_option("--self-collision-weight", o->self_collision_weight,
                   "Weight of the self-collision penalty")
      ->capture_default_str();
  command
      ->add_option("--branch-check", o->branch_check,
                   "Solve a frame again from the rest pose when a key point "
                   "misses by more than this many leg lengths (0: off)")
      ->capture_default_str();
  // One argument, split at every comma here (empty names kept, and refused
  // by Run): "--effectors , --out o" must not take "--out" as a name.
  command->add_option_function<std::string>(
      "--effectors",
      [o](const std::string& list) {
        o->effectors.clear();
        size_t start = 0;
        for (size_t comma; (comma = list.find(',', start)) != std::string::npos;
             start = comma + 1) {
          o->effectors.push_back(list.substr(start, comma - start));
        }
        o->effectors.push_back(list.substr(start));
      },
      "Effector-only retargeting of these sites, separated by commas: joint "
      "names or <joint>_End (default: key-point retargeting)");
  command
      ->add_option("--solver", o->solver,
                   "Any solver of `iklab solvers` that is not analytic "
                   "(bounded-lm, lbfgsb, dls, ccd, ...)")
      ->capture_default_str()
      ->check([](const std::string& name) -> std::string {
        const SolverEntry* entry = FindSolver(name);
        if (entry == nullptr) {
          return "no solver named '" + name + "'; the known ones are " +
                 SolverNames();
        }
        if (entry->family == SolverFamily::kAnalytic) {
          return "'" + name + "' is analytic (one arm of a given shape); "
                 "retargeting needs a general solver";
        }
        if (name == "extended-jacobian") {  // its accepts: one planar goal
          return "'" + name + "' takes " + entry->accepts +
                 "; retargeting solves several effectors in 3D";
        }
        return "";
      });
  command
      ->add_option("--frames", o->frames,
                   "Solve the first N frames (default: all)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--tolerance", o->tolerance,
                   "Goal tolerance in the target's length units")
      ->capture_default_str();  // CheckTolerance in Run (NaN included)
  command->add_option("--out,-o", o->out_dir, "Output folder")
      ->capture_default_str();
}

namespace {

// The figure to solve on (--onto) and, for BVH skeletons, the BVH to write.
struct RetargetTarget {
  std::shared_ptr<const Model> model;
  bool human = false;
  bool robot = false;
  BvhFigure skeleton;  // when neither human nor robot
  RobotTarget robot_target;  // when robot
  std::string name;
};

RetargetTarget LoadRetargetTarget(const RetargetCommandOptions& o,
                                  const BvhFigure& clip) {
  RetargetTarget t;
  if (const std::optional<HumanFigureOptions> human =
          HumanRetargetOptions(o.onto)) {
    t.model = std::make_shared<const Model>(HumanFigure(*human).Compile());
    t.human = true;
    t.name = "the human figure (H = " + std::to_string(human->body.height) +
             " m)";
    return t;
  }
  if (IsRobotFile(o.onto)) {
    t.robot_target = LoadRobotTarget(o.onto);
    t.model = t.robot_target.model;
    t.robot = true;
    t.name = o.onto + " (" + t.robot_target.robot_name + ")";
    return t;
  }
  t.skeleton = o.onto.empty() ? clip : LoadBvh(o.onto);
  t.model = std::make_shared<const Model>(t.skeleton.figure.Compile());
  t.name = o.onto.empty() ? o.bvh : o.onto;
  if (t.model->nq() == 0) {  // before the output folder is made
    throw std::invalid_argument(t.name +
                                ": the skeleton has no CHANNELS, so no "
                                "coordinates to solve for");
  }
  return t;
}

void WriteRetargetMetrics(const RetargetMetrics& m, const std::string& label,
                          const std::string& dir) {
  nlohmann::json j;
  j["method"] = label;
  j["frames"] = m.frames;
  j["converged"] = m.converged;
  j["tracking_mean"] = m.tracking_mean;
  j["tracking_max"] = m.tracking_max;
  j["tracking_worst_site"] = m.tracking_worst;
  j["limit_violations"] = m.limit_violations;
  j["limit_violation_max"] = m.limit_violation_max;
  j["skating_mean"] = m.skating.mean;
  j["skating_max"] = m.skating.max;
  j["skating_samples"] = m.skating.samples;
  j["penetration_max"] = m.penetration_max;
  // null (JSON) and "n/a" (CSV) where the target has no collision geometry:
  // not measured is not "no penetration".
  const SelfPenetration& sp = m.self_penetration;
  j["self_penetration_max"] =
      sp.measured ? nlohmann::json(sp.max) : nlohmann::json(nullptr);
  j["self_penetration_frames"] =
      sp.measured ? nlohmann::json(sp.frames) : nlohmann::json(nullptr);
  j["self_penetration_worst_pair"] =
      sp.measured ? nlohmann::json(sp.worst_pair) : nlohmann::json(nullptr);
  j["self_penetration_pairs"] =
      sp.measured ? nlohmann::json(sp.pairs) : nlohmann::json(nullptr);
  j["jerk_rms"] = m.jerk_rms;
  j["keypoint_jerk_rms"] = m.keypoint_jerk_rms;
  j["ms_per_frame_median"] = m.ms_per_frame_median;
  j["ms_per_frame_mean"] = m.ms_per_frame_mean;
  const std::string json_path = dir + "/metrics.json";
  std::ofstream json(json_path);
  json << j.dump(2) << "\n";
  json.close();
  if (!json) throw std::invalid_argument(internal::CannotWrite(json_path));
  const std::string csv_path = dir + "/metrics.csv";
  std::ofstream csv(csv_path);
  csv.precision(10);
  const auto na = [&](double value) {
    std::ostringstream text;
    text.precision(10);
    if (sp.measured) {
      text << value;
    } else {
      text << "n/a";
    }
    return text.str();
  };
  csv << "method,frames,converged,tracking_mean,tracking_max,"
         "tracking_worst_site,limit_violations,limit_violation_max,"
         "skating_mean,skating_max,skating_samples,penetration_max,"
         "self_penetration_max,self_penetration_frames,jerk_rms,"
         "keypoint_jerk_rms,ms_per_frame_median,ms_per_frame_mean\n"
      << CsvField(label) << "," << m.frames << "," << m.converged << ","
      << m.tracking_mean << "," << m.tracking_max << "," << CsvField(m.tracking_worst)
      << "," << m.limit_violations << "," << m.limit_violation_max << ","
      << m.skating.mean << "," << m.skating.max << "," << m.skating.samples
      << "," << m.penetration_max << ","
      << na(sp.max) << "," << na(sp.frames) << "," << m.jerk_rms << ","
      << m.keypoint_jerk_rms << "," << m.ms_per_frame_median << "," << m.ms_per_frame_mean << "\n";
  csv.close();
  if (!csv) throw std::invalid_argument(internal::CannotWrite(csv_path));
}

int Run(const RetargetCommandOptions& o) {
  CheckTolerance(o.tolerance, "--tolerance");
  const BvhFigure clip = LoadBvh(o.bvh);
  const auto clip_model = std::make_shared<const Model>(clip.figure.Compile());
  const RetargetTarget target = LoadRetargetTarget(o, clip);
  const Model& model = *target.model;
  for (const std::string& name : o.effectors) {
    if (name.empty()) {
      throw std::invalid_argument(
          "--effectors: an empty name in the list; give joint names "
          "separated by commas (--effectors LeftHand,RightHand)");
    }
  }
  const bool effector_only = !o.effectors.empty();
  if (effector_only && (target.human || target.robot)) {
    throw std::invalid_argument(
        "--effectors solves the clip's own joint names on a BVH skeleton; "
        "drop --effectors to retarget onto " + o.onto + " by key points");
  }
  MotionRetargetOptions options;
  options.contacts = ParseContactMode(o.contacts);
  options.orientation_weight = o.posture_weight;
  options.smoothness_weight = o.smoothness_weight;
  options.contact.height_threshold = o.contact_height;
  options.contact.speed_threshold = o.contact_speed;
  options.self_collision = ParseContactMode(o.self_collision);
  options.self_collision_weight = o.self_collision_weight;
  options.branch_check_error = o.branch_check;
  if (target.robot) options.collision_shapes = target.robot_target.collision_shapes;
  if (options.self_collision != ContactMode::kOff &&
      (effector_only || options.collision_shapes.empty())) {
    throw std::invalid_argument(
        "--self-collision " + o.self_collision +
        " needs a robot target with collision shapes (--onto robot.urdf or "
        ".xml); " + (o.onto.empty() ? o.bvh : o.onto) + " has none");
  }
  std::string why;
  if (!options.IsValid(&why)) {
    throw std::invalid_argument(
        "--contact-height, --contact-speed, --posture-weight, "
        "--smoothness-weight, --self-collision-weight, --branch-check: " +
        why);
  }
  const SolverEntry* entry = FindSolver(o.solver);
  if (entry == nullptr) {
    throw std::invalid_argument("--solver: no solver named '" + o.solver +
                                "'; the known ones are " + SolverNames());
  }
  if (options.contacts == ContactMode::kHard && !effector_only &&
      !entry->hard_constraints) {
    throw std::invalid_argument(
        "--contacts hard needs a solver that keeps hard constraints (slsqp, "
        "ipopt); '" + o.solver + "' solves goals only (use --contacts "
        "penalty)");
  }
  if (options.self_collision == ContactMode::kHard &&
      !entry->hard_constraints) {
    throw std::invalid_argument(
        "--self-collision hard needs a solver that keeps hard constraints "
        "(slsqp, ipopt); '" + o.solver + "' solves goals only (use "
        "--self-collision penalty)");
  }
  RetargetMap map;
  if (!o.map.empty()) {
    map = LoadRetargetMap(o.map);
  } else if (target.human) {
    map = HumanoidMap();
  } else if (target.robot) {
    if (target.robot_target.robot_name != "unitree_h1") {
      throw std::invalid_argument(
          "--onto " + o.onto + ": no built-in map onto the robot '" +
          target.robot_target.robot_name +
          "'; give one with --map FILE (pairs of a source joint and a robot "
          "link or site)");
    }
    map = LoadRetargetMap(DataFile("retarget/bvh_onto_h1.map").string());
  } else {
    map = MapByName(*clip_model, model);
  }
  const int count =
      o.frames > 0 ? std::min(o.frames, clip.num_frames()) : clip.num_frames();
  std::vector<int> frames(count);
  for (int f = 0; f < count; ++f) frames[f] = f;
  if (clip.num_frames() > 0 && clip_model->nq() == 0) {
    throw std::invalid_argument(o.bvh +
                                ": the skeleton has no CHANNELS, so no "
                                "motion to retarget");
  }
  const KeyPointTrack track = MakeKeyPointTrack(
      *clip_model, clip.poses, frames, clip.frame_time, map, model);

  std::vector<std::string> sites;
  std::vector<std::vector<Eigen::Vector3d>> targets;
  if (effector_only) {
    sites = o.effectors;
    try {
      targets = EffectorTargets(*clip_model, clip.poses, frames, sites);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(o.bvh + ": " + e.what());
    }
  }
  std::error_code error;
  std::filesystem::create_directories(o.out_dir, error);
  if (error) {
    throw std::invalid_argument("--out " + o.out_dir +
                                ": cannot create the folder (" +
                                error.message() + ")");
  }
  const std::unique_ptr<Solver> solver =
      MakeMotionRetargetSolver(o.solver, o.tolerance);
  MotionRetargetResult result;
  try {
    if (effector_only) {
      result.run = Retarget(target.model, sites, frames, targets, *solver,
                            Eigen::VectorXd::Zero(model.nq()));
      result.contact = SourceContacts(track, options.contact);
      result.metrics =
          MeasureAgainstTrack(model, track, result.run, result.contact);
    } else {
      if (target.robot) {
        options.self_collision_matrix = RobotSelfCollisionMatrix(
            target.robot_target, options.collision_matrix);
      }
      result = RetargetMotion(target.model, track, *solver, options,
                              Eigen::VectorXd::Zero(model.nq()));
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(target.name + ": " + e.what());
  }

  // A frame whose residual overflowed has no meaningful answer (its error is
  // not finite): refuse the clip rather than write frames that look solved.
  // Other numerical failures (e.g. an SQP iteration limit) keep their
  // best-effort frame, with the status in frames.csv.
  for (const RetargetFrame& r : result.run.frames) {
    if (r.status == SolveStatus::kNumericalFailure &&
        !std::isfinite(r.max_error)) {
      throw std::invalid_argument(
          o.bvh + ": frame " + std::to_string(r.frame) + ": " + r.message +
          " (check the clip's root translation and offsets)");
    }
  }
  const std::string csv_path = o.out_dir + "/frames.csv";
  std::ofstream csv(csv_path);
  csv.precision(10);
  csv << "frame,max_error,mean_error,microseconds,iterations,converged,"
         "status";
  for (int k : track.feet) csv << ",contact_" << track.source_sites[k];
  csv << "\n";
  int converged = 0;
  for (std::size_t f = 0; f < result.run.frames.size(); ++f) {
    const RetargetFrame& r = result.run.frames[f];
    csv << r.frame << "," << r.max_error << "," << r.mean_error << ","
        << r.microseconds << "," << r.iterations << "," << r.converged << ","
        << SolveStatusName(r.status);
    for (char c : result.contact[f]) csv << "," << static_cast<int>(c);
    csv << "\n";
    converged += r.converged;
  }
  csv.close();
  if (!csv) throw std::invalid_argument(internal::CannotWrite(csv_path));
  const std::string joints_path = o.out_dir + "/joints.csv";
  std::ofstream joints(joints_path);
  joints.precision(12);
  joints << "frame,time";
  for (int i = 0; i < model.nq(); ++i) joints << "," << model.dof_name(i);
  joints << "\n";
  for (int f = 0; f < count; ++f) {
    joints << f << "," << f * clip.frame_time;
    for (int i = 0; i < model.nq(); ++i) joints << "," << result.run.q[f][i];
    joints << "\n";
  }
  joints.close();
  if (!joints) throw std::invalid_argument(internal::CannotWrite(joints_path));
  std::string label = effector_only
                          ? "effectors"
                          : std::string("keypoints, contacts ") +
                                ContactModeName(options.contacts);
  if (options.self_collision != ContactMode::kOff) {
    label += std::string(", self-collision ") +
             ContactModeName(options.self_collision);
  }
  WriteRetargetMetrics(result.metrics, label, o.out_dir);
  std::string robot_files;
  if (target.robot) {
    WriteRobotTrajectoryCsv(model, result.run.q, clip.frame_time,
                            o.out_dir + "/robot_trajectory.csv");
    robot_files = ", " + o.out_dir + "/robot_trajectory.csv";
    if (target.robot_target.from_mjcf) {
      WriteMujocoKeyframes(target.robot_target, result.run.q, clip.frame_time,
                           o.out_dir + "/mujoco_keyframes.xml");
      robot_files += ", " + o.out_dir + "/mujoco_keyframes.xml";
    }
  } else if (!target.human) {
    BvhFigure solved = target.skeleton;
    solved.frame_time = clip.frame_time;
    solved.poses.resize(count, model.nq());
    for (int f = 0; f < count; ++f) {
      solved.poses.row(f) = result.run.q[f].transpose();
    }
    SaveBvh(solved, o.out_dir + "/retargeted.bvh");
  }

  const RetargetMetrics& m = result.metrics;
  const SelfPenetration& sp = m.self_penetration;
  std::string self_text =
      "n/a (the target has no collision geometry)";
  if (sp.measured) {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "max %.4g over %d of %d frames (%d shape pairs%s%s); "
                  "self-collision %s",
                  sp.max, sp.frames, count, sp.pairs,
                  sp.worst_pair.empty() ? "" : ", deepest ",
                  sp.worst_pair.c_str(), o.self_collision.c_str());
    self_text = line;
  }
  std::printf(
      "%s onto %s: %d frames, %zu key points (%s), %s, %s: %d converged\n"
      "  key-point error mean %.4g, max %.4g (%s); scale %.4g\n"
      "  foot skating mean %.4g, max %.4g per s over %d contact samples; "
      "ground penetration max %.4g\n"
      "  self-penetration %s\n"
      "  joint-limit violations %d (largest %.3g); jerk rms %.4g rad/s^3; "
      "%.3f ms per frame (median)\n"
      "Results: %s/frames.csv, %s/joints.csv, %s/metrics.json%s\n",
      o.bvh.c_str(), target.name.c_str(), count, track.p.empty() ? 0 : track.p[0].size(),
      map.origin.c_str(), label.c_str(), result.run.solver.c_str(), converged,
      m.tracking_mean, m.tracking_max, m.tracking_worst.c_str(), track.scale,
      m.skating.mean, m.skating.max, m.skating.samples, m.penetration_max,
      self_text.c_str(), m.limit_violations, m.limit_violation_max, m.jerk_rms,
      m.ms_per_frame_median, o.out_dir.c_str(), o.out_dir.c_str(),
      o.out_dir.c_str(),
      target.robot   ? robot_files.c_str()
      : target.human ? ""
                     : (", " + o.out_dir + "/retargeted.bvh").c_str());
  return 0;
}

}  // namespace

int RunRetargetCommand(const RetargetCommandOptions& o) {
  try {
    return Run(o);
  } catch (const std::invalid_argument& e) {
    // The readers' messages start with "file:line: ".
    std::fprintf(stderr, "iklab retarget: %s\n", e.what());
    return 2;
  }
}

}  // namespace iklab
