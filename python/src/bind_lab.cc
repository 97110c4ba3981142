// lab/, bench/, experiments/: the shipped data, studies, the benchmark
// protocol, and the paper reproductions (list them, run one or all).

#include <cstdint>
#include <filesystem>

#include "bench/ik_benchmark.h"
#include "bench/target_csv.h"
#include "bindings.h"
#include "experiments/experiments_list.h"
#include "framework/validate.h"
#include "lab/collision_files.h"
#include "lab/data.h"
#include "lab/experiment.h"
#include "lab/html_report.h"
#include "lab/report.h"
#include "lab/study.h"

namespace iklab::python {

namespace {

const Experiment& FindOrThrow(const std::string& name) {
  const Experiment* experiment = FindExperiment(name);
  if (experiment == nullptr) {
    std::string known;
    for (const Experiment& e : AllExperiments()) known += (known.empty() ? "" : ", ") + e.name;
    throw std::invalid_argument("unknown experiment '" + name + "'; known: " + known);
  }
  return *experiment;
}

py::dict RunToDict(const ExperimentRun& run) {
  py::list claims;
  for (const Claim& c : run.output.claims()) {
    py::dict claim;
    claim["text"] = c.text;
    claim["paper"] = c.paper;
    claim["ours"] = c.ours;
    claim["verdict"] = std::string(VerdictName(c.verdict));
    claim["reason"] = c.reason;
    claims.append(claim);
  }
  py::dict out;
  out["name"] = run.experiment->name;
  out["title"] = run.experiment->title;
  out["dir"] = run.output.dir().string();
  out["wall_seconds"] = run.wall_seconds;
  out["error"] = run.error;
  out["claims"] = claims;
  return out;
}

ExperimentContext Context(std::uint64_t seed, bool quick, int threads) {
  CheckThreadCount(threads, "threads");
  ExperimentContext context;
  context.seed = seed;
  context.quick = quick;
  context.threads = threads;
  return context;
}

const BenchmarkSolver& PoseSolver(const std::vector<BenchmarkSolver>& solvers,
                                  const std::string& name) {
  std::string known;
  for (const BenchmarkSolver& s : solvers) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("unknown benchmark solver '" + name + "'; known: " + known);
}

// The shipped data and the experiments (list them, run one or all).
void BindDataAndExperiments(py::module_& m) {
  m.def("data_directory", [] { return DataDirectory().string(); },
        "The folder of the shipped robots and motions.");
  m.def("set_data_directory",
        [](const std::string& dir, const std::string& origin) { SetDataDirectory(dir, origin); },
        py::arg("dir"), py::arg("origin") = "set_data_directory",
        "Points data_directory() at `dir` (the folder holding robots/) for the "
        "rest of the process; '' restores the lookup. `origin` names where the "
        "folder came from in error messages. Raises ValueError if `dir` is not "
        "a folder.");
  m.def("data_file", [](const std::string& path) { return DataFile(path).string(); },
        py::arg("relative_path"),
        "The path of a shipped data file, e.g. 'robots/panda.urdf'.");

  m.def("list_experiments", [] {
    py::list out;
    for (const Experiment& e : AllExperiments()) {
      py::dict d;
      d["name"] = e.name;
      d["title"] = e.title;
      d["source"] = e.source;
      out.append(d);
    }
    return out;
  }, "Every shipped experiment: [{'name', 'title', 'source'}, ...].");
  m.def("run_experiment",
        [](const std::string& name, const std::string& out_dir, std::uint64_t seed,
           bool quick, int threads) {
          const Experiment& experiment = FindOrThrow(name);
          const ExperimentContext context = Context(seed, quick, threads);
          std::filesystem::create_directories(out_dir);
          std::unique_ptr<ExperimentRun> run;
          {
            py::gil_scoped_release release;
            run = std::make_unique<ExperimentRun>(RunExperiment(experiment, context, out_dir));
          }
          return RunToDict(*run);
        },
        py::arg("name"), py::arg("out_dir"), py::arg("seed") = 1, py::arg("quick") = false,
        py::arg("threads") = 1,
        "Runs one experiment into out_dir/<name>; returns its claims and verdicts.");
  m.def("run_experiments",
        [](const std::string& out_dir, StringsArg names, std::uint64_t seed, bool quick,
           int threads) {
          std::vector<const Experiment*> chosen;
          if (names.is_none()) {
            for (const Experiment& e : AllExperiments()) chosen.push_back(&e);
          } else {
            for (const std::string& name : names.cast<std::vector<std::string>>()) {
              chosen.push_back(&FindOrThrow(name));
            }
          }
          const ExperimentContext context = Context(seed, quick, threads);
          std::filesystem::create_directories(out_dir);
          std::vector<ExperimentRun> runs;
          std::string report;
          {
            py::gil_scoped_release release;
            for (const Experiment* e : chosen) {
              runs.push_back(RunExperiment(*e, context, out_dir));
            }
            report = WriteReport(runs, context, out_dir).string();
            WriteHtmlReport(runs, context, out_dir);
          }
          py::list out;
          for (const ExperimentRun& run : runs) out.append(RunToDict(run));
          return py::make_tuple(report, out);
        },
        py::arg("out_dir"), py::arg("names") = py::none(), py::arg("seed") = 1,
        py::arg("quick") = false, py::arg("threads") = 1,
        "Runs the named experiments (default: all) and writes out_dir/REPORT.md "
        "and the HTML report out_dir/index.html; "
        "returns (report path, [run, ...]).");
}

// Studies: goal kinds, goal specifications and start poses.
void BindStudyGoals(py::module_& m) {
  py::enum_<GoalKind>(m, "GoalKind")
      .value("POSITION", GoalKind::kPosition)
      .value("ORIENTATION", GoalKind::kOrientation)
      .value("POSE", GoalKind::kPose)
      .value("AXIS", GoalKind::kAxis)
      .value("AIMING", GoalKind::kAiming)
      .value("PLANE", GoalKind::kPlane)
      .value("WEIGHTED_SUM", GoalKind::kWeightedSum)
      .value("DISJUNCTIVE", GoalKind::kDisjunctive)
      .value("CONE", GoalKind::kCone)
      .value("POSITION_BOX", GoalKind::kPositionBox)
      .value("GAZE", GoalKind::kGaze)
      .value("ORIENTATION_BOX", GoalKind::kOrientationBox)
      .value("POINT_DISTANCE", GoalKind::kPointDistance)
      .value("SITE_DISTANCE", GoalKind::kSiteDistance)
      .value("RELATIVE_POSE", GoalKind::kRelativePose)
      .value("JOINT_RANGE", GoalKind::kJointRange)
      .value("JOINT_POSTURE", GoalKind::kJointPosture)
      .value("COLLISION_FREE", GoalKind::kCollisionFree);
  py::class_<CollisionSetup, std::shared_ptr<CollisionSetup>>(
      m, "CollisionSetup",
      "A robot's collision shapes, its self-collision matrix, the obstacles and the "
      "checked self pairs (robot_collisions).")
      .def_readonly("shapes", &CollisionSetup::shapes, "The link shapes (LinkShape list).")
      .def_readonly("matrix", &CollisionSetup::matrix,
                    "The self-collision matrix (empty without self-collision).")
      .def_readonly("obstacles", &CollisionSetup::obstacles, "The WorldShape obstacles.")
      .def_readonly("self_pairs", &CollisionSetup::self_pairs,
                    "The checked link pairs (the matrix's enabled pairs).")
      .def("make_goal", [](const CollisionSetup& setup, const Model& model, double weight) {
        return std::const_pointer_cast<ShapeCollisionGoal>(setup.MakeGoal(model, weight));
      }, py::arg("model"), py::arg("weight") = 1.0,
      "A ShapeCollisionGoal over these shapes, pairs and obstacles (margin 0).");
  m.def("robot_collisions",
        [](const Model& model, const std::string& robot_file, bool self,
           const std::string& obstacles, bool mjcf, int samples, std::uint64_t seed,
           const std::string& matrix_file) {
          CollisionSetting setting;
          setting.self = self;
          setting.obstacle_file = obstacles;
          SelfCollisionMatrixOptions options;
          options.samples = samples;
          options.seed = seed;
          return std::const_pointer_cast<CollisionSetup>(
              RobotCollisions(model, robot_file, setting, mjcf, options, matrix_file));
        },
        py::arg("model"), py::arg("robot_file"), py::arg("self") = true,
        py::arg("obstacles") = "", py::arg("mjcf") = false, py::arg("samples") = 10000,
        py::arg("seed") = 1, py::arg("matrix_file") = "",
        "The CollisionSetup of a URDF (or MJCF, mjcf=True) for `model`: its collision "
        "shapes, with self=True the self-collision matrix (computed from `samples` "
        "seeded configurations, or read from `matrix_file`), obstacles from an obstacle "
        "JSON file. Made once per process for the same arguments and shared.");
  m.def("read_obstacle_file", &ReadObstacleFile, py::arg("path"),
        "The obstacles (WorldShape list) of an obstacle JSON file. Raises ValueError "
        "naming the file, the element and what to fix.");
  m.def("write_self_collision_matrix", &WriteSelfCollisionMatrix, py::arg("matrix"),
        py::arg("path"), "Writes a SelfCollisionMatrix as JSON.");
  m.def("read_self_collision_matrix", &ReadSelfCollisionMatrix, py::arg("path"),
        "Reads a SelfCollisionMatrix JSON file (as write_self_collision_matrix writes it).");
  m.def("min_distance",
        [](const Model& model, const CollisionSetup& setup, VectorNqArg q) {
          return MinDistanceFcl(model, setup, ToVector(q, "q", model.nq()));
        },
        py::arg("model"), py::arg("setup"), py::arg("q"),
        "The clearance at q: the smallest signed distance over the setup's checked "
        "pairs (negative = penetration depth), computed with FCL for every pair; "
        "inf when nothing is checked.");
  py::class_<GoalSpec>(m, "GoalSpec", "A goal of a study, generated per trial.")
      .def_static("position", &GoalSpec::Position, py::arg("site"), py::arg("weight") = 1.0,
                  "A PositionGoal at the site's generated position; weight w >= 0 of the "
                  "potential 1/2 w ||r||^2 (every GoalSpec is checked when the study "
                  "runs: run_study raises ValueError).")
      .def_static("orientation", &GoalSpec::Orientation, py::arg("site"), py::arg("weight") = 1.0,
                  "An OrientationGoal at the site's generated rotation.")
      .def_static("pose", &GoalSpec::Pose, py::arg("site"), py::arg("rotation_weight") = 1.0,
                  py::arg("weight") = 1.0,
                  "A PositionOrientationGoal at the site's generated pose; rotation_weight "
                  "c scales the rotation residual against the position residual, "
                  "r ~ [dp; c theta] (length units per radian).")
      .def_static("axis", [](std::string site, Vector3Arg axis, double weight) {
        return GoalSpec::Axis(std::move(site), ToVector3(axis, "axis"), weight);
      }, py::arg("site"), py::arg("axis"), py::arg("weight") = 1.0,
      "An AxisGoal: the site's `axis` (site frame, non-zero; normalized) along its "
      "generated direction.")
      .def_static("aiming", [](std::string site, Vector3Arg axis, double distance, double weight) {
        return GoalSpec::Aiming(std::move(site), ToVector3(axis, "axis"), distance, weight);
      }, py::arg("site"), py::arg("axis"), py::arg("distance"), py::arg("weight") = 1.0,
      "An AimingGoal: the site's `axis` aims at the point `distance` (model units, > 0) "
      "along it at the generating pose.")
      .def_static("plane", &GoalSpec::Plane, py::arg("site"), py::arg("weight") = 1.0,
                  "A PlaneGoal: the site on a plane through its generated position with a "
                  "random normal.")
      .def_static("cone", [](std::string site, Vector3Arg axis, double angle, double weight) {
        return GoalSpec::Cone(std::move(site), ToVector3(axis, "axis"), angle, weight);
      }, py::arg("site"), py::arg("axis"), py::arg("angle"), py::arg("weight") = 1.0,
      "A ConeGoal (inequality, smooth penalty form): the site's `axis` within `angle` "
      "(radians in [0, pi]) of its generated direction.")
      .def_static("position_box", &GoalSpec::PositionBox, py::arg("site"),
                  py::arg("tolerance"), py::arg("weight") = 1.0,
                  "A PositionBoxGoal (inequality): the site within +-tolerance (model "
                  "units, > 0) of its generated position on each axis of its generated "
                  "frame.")
      .def_static("gaze", [](std::string site, Vector3Arg axis, double angle, double distance,
                             double weight) {
        return GoalSpec::Gaze(std::move(site), ToVector3(axis, "axis"), angle, distance, weight);
      }, py::arg("site"), py::arg("axis"), py::arg("angle"), py::arg("distance"),
         py::arg("weight") = 1.0,
         "A GazeGoal (inequality): the site's `axis` within `angle` (radians) of the "
         "direction to the point `distance` (model units, > 0) along it at the "
         "generating pose.")
      .def_static("orientation_box", &GoalSpec::OrientationBox, py::arg("site"),
                  py::arg("angle"), py::arg("weight") = 1.0,
                  "An OrientationBoxGoal (inequality): the site's rotation vector "
                  "relative to its generated orientation within +-angle radians per axis "
                  "(angle in (0, pi)).")
      .def_static("point_distance", &GoalSpec::PointDistance, py::arg("site"),
                  py::arg("distance"), py::arg("tolerance"), py::arg("weight") = 1.0,
                  "A PointDistanceGoal (inequality): the site's distance to a point "
                  "`distance` away in a random direction at the generating pose stays "
                  "within +-tolerance of `distance` (model units, > 0).")
      .def_static("site_distance", &GoalSpec::SiteDistance, py::arg("site"),
                  py::arg("other_site"), py::arg("tolerance"), py::arg("weight") = 1.0,
                  "A SiteDistanceGoal (inequality): the distance between `site` and "
                  "`other_site` within +-tolerance (model units, > 0) of its generated "
                  "value.")
      .def_static("relative_pose", &GoalSpec::RelativePose, py::arg("site"),
                  py::arg("other_site"), py::arg("rotation_weight") = 1.0,
                  py::arg("weight") = 1.0,
                  "A RelativePoseGoal: `site`'s pose in `other_site`'s frame as "
                  "generated; rotation_weight is its length per radian.")
      .def_static("relative_position", &GoalSpec::RelativePosition, py::arg("site"),
                  py::arg("other_site"), py::arg("weight") = 1.0,
                  "A RelativePoseGoal on the position only: `site`'s position in "
                  "`other_site`'s frame as generated.")
      .def_static("joint_range", &GoalSpec::JointRange, py::arg("coordinates"),
                  py::arg("angle"), py::arg("weight") = 1.0,
                  "A JointRangeGoal (inequality): `coordinates` (indices into q, distinct; "
                  "empty: all) within +-angle (> 0, the coordinate's unit) of their "
                  "generated values.")
      .def_static("joint_posture", &GoalSpec::JointPosture, py::arg("coordinates"),
                  py::arg("weight") = 1.0,
                  "A JointPostureGoal: `coordinates` (indices into q; empty: all) at their "
                  "generated values.")
      .def_static("weighted_sum", &GoalSpec::WeightedSum, py::arg("parts"),
                  py::arg("weight") = 1.0,
                  "A WeightedSumGoal of `parts` (each with its weight; not themselves sums "
                  "or disjunctions).")
      .def_static("any_of", &GoalSpec::AnyOf, py::arg("parts"), py::arg("weight") = 1.0,
                  "A DisjunctiveGoal: any one of `parts` (the first is met at the "
                  "generating pose, the others at other random poses).")
      .def_static("collision_free",
                  [](std::shared_ptr<CollisionSetup> collisions, double clearance, bool hard,
                     double weight) {
                    return GoalSpec::CollisionFree(std::move(collisions), clearance, hard,
                                                   weight);
                  },
                  py::arg("collisions"), py::arg("clearance") = 0.0, py::arg("hard") = true,
                  py::arg("weight") = 1.0,
                  "No self-collision and clear of obstacles: a ShapeCollisionGoal over "
                  "`collisions` (robot_collisions) with every distance >= clearance; "
                  "hard=True adds it as a hard inequality constraint (constrained-NLP "
                  "solvers; the records show min_distance), else as a penalty goal. The "
                  "generating poses are drawn collision-free.")
      .def_readonly("kind", &GoalSpec::kind,
                    "The goal kind (GoalKind) the spec makes.")
      .def_readonly("site", &GoalSpec::site)
      .def("label", &GoalSpec::Label,
           "A short label, e.g. 'pose(tool0)', 'any-of(position(l), position(r))', "
           "'joint-range(all)'.");
  py::enum_<StartPose>(m, "StartPose")
      .value("MID_LIMITS", StartPose::kMidLimits)
      .value("RANDOM", StartPose::kRandom)
      .value("GIVEN", StartPose::kGiven)
      .value("PREVIOUS_TRIAL", StartPose::kPreviousTrial);
}

// The benchmark protocol: robots, targets and the independent check.
void BindBenchmarkTargets(py::module_& m) {
  py::class_<BenchmarkRobot>(m, "BenchmarkRobot")
      .def_readonly("name", &BenchmarkRobot::name)
      .def_readonly("urdf_path", &BenchmarkRobot::urdf_path)
      .def_readonly("base_link", &BenchmarkRobot::base_link,
                    "First link of the arm chain (load_urdf's base_link).")
      .def_readonly("tip_link", &BenchmarkRobot::tip_link,
                    "Last link of the arm chain (load_urdf's tip_link).");
  m.def("standard_robots",
        [](PathArg data_dir) {
          return StandardRobots(data_dir.is_none() ? DataDirectory().string()
                                                   : data_dir.cast<std::string>());
        },
        py::arg("data_dir") = py::none(),
        "The shipped robots of the benchmark with their arm chains.");
  py::enum_<SeedMode>(m, "SeedMode")
      .value("MID_LIMITS", SeedMode::kMidLimits)
      .value("RANDOM", SeedMode::kRandom);
  m.def("generate_targets",
        [](const Model& model, SiteArg site, int count, std::uint64_t seed, SeedMode mode) {
          if (count < 0) throw py::value_error("count must be >= 0");
          const std::vector<BenchmarkTarget> targets =
              GenerateTargets(model, SiteOf(model, site), count, seed, mode);
          RowMatrixXd poses(count, 7), seeds(count, model.nq());
          for (int i = 0; i < count; ++i) {
            const Eigen::Quaterniond q(targets[i].target.linear());
            poses.row(i) << targets[i].target.translation().transpose(), q.w(), q.x(), q.y(), q.z();
            seeds.row(i) = targets[i].seed.transpose();
          }
          return py::make_tuple(poses, seeds);
        },
        py::arg("model"), py::arg("site"), py::arg("count"), py::arg("seed") = 1,
        py::arg("mode") = SeedMode::kRandom,
        "The benchmark's reachable targets: (poses (B, 7), seeds (B, nq)).");
  py::class_<Verification>(m, "Verification")
      .def_readonly("position_error", &Verification::position_error)
      .def_readonly("rotation_error", &Verification::rotation_error)
      .def_readonly("within_limits", &Verification::within_limits,
                    "q lies within the model's joint limits.")
      .def_readonly("success", &Verification::success,
                    "position_error <= tolerance, rotation_error <= tolerance and within_limits.");
  m.def("verify",
        [](const Model& model, SiteArg site, VectorNqArg q, PoseArg target,
           double tolerance) {
          return Verify(model, SiteOf(model, site), ToVector(q, "q", model.nq()),
                        ToPose(target, "target"), tolerance);
        },
        py::arg("model"), py::arg("site"), py::arg("q"), py::arg("target"),
        py::arg("tolerance") = 1e-5, "The benchmark's independent success check.");
}

// The benchmark protocol: solver names, summaries and run_benchmark.
void BindBenchmarkRuns(py::module_& m) {
  m.def("benchmark_solver_names", [] {
    std::vector<std::string> names;
    for (const BenchmarkSolver& s : PoseSolvers()) names.push_back(s.name);
    for (const BenchmarkSolver& s : BaselineSolvers()) names.push_back(s.name);
    return names;
  }, "The solver names run_benchmark accepts: every iklab solver that applies to a "
     "full-pose goal on a serial arm, then the other libraries' baselines built in "
     "(KDL's 'kdl-lma' and 'kdl-nr-jl' when CMake found orocos_kdl).");
  py::class_<BenchmarkSummary>(m, "BenchmarkSummary")
      .def_readonly("robot", &BenchmarkSummary::robot, "The robot's name.")
      .def_readonly("solver", &BenchmarkSummary::solver, "The solver's name.")
      .def_readonly("dofs", &BenchmarkSummary::dofs,
                    "Number of coordinates of the robot (nq).")
      .def_readonly("targets", &BenchmarkSummary::targets,
                    "Number of targets solved.")
      .def_readonly("solve_rate", &BenchmarkSummary::solve_rate)
      .def_readonly("mean_us", &BenchmarkSummary::mean_us)
      .def_readonly("median_us", &BenchmarkSummary::median_us,
                    "Median time per solve over all targets, failures included, microseconds.")
      .def_readonly("p95_us", &BenchmarkSummary::p95_us,
                    "95th percentile of the time per solve (all targets), microseconds.")
      .def_readonly("p99_us", &BenchmarkSummary::p99_us,
                    "99th percentile of the time per solve (all targets), microseconds.")
      .def_readonly("mean_iterations", &BenchmarkSummary::mean_iterations,
                    "Mean iterations per solve over all targets.")
      .def_readonly("false_claims", &BenchmarkSummary::false_claims)
      .def_readonly("overruns", &BenchmarkSummary::overruns);
  m.def("run_benchmark",
        [](std::shared_ptr<Model> model, SiteArg site, const std::string& solver,
           BatchPosesArg poses, BatchQArg seeds, double time_budget_seconds,
           double tolerance, ThreadsArg threads, const std::string& robot) {
          const int s = SiteOf(*model, site);
          const RowMatrixXd P = ToMatrix(poses, "poses", -1, 7, "(B, 7)");
          const RowMatrixXd Q =
              ToMatrix(seeds, "seeds", P.rows(), model->nq(),
                       "(B, nq) = (" + std::to_string(P.rows()) + ", " +
                           std::to_string(model->nq()) + ")");
          std::vector<BenchmarkTarget> targets(P.rows());
          for (Eigen::Index i = 0; i < P.rows(); ++i) {
            if (!P.row(i).allFinite() || !Q.row(i).allFinite()) {
              throw std::invalid_argument(
                  std::string(P.row(i).allFinite() ? "seeds" : "poses") + " row " +
                  std::to_string(i) + " must be finite (no NaN or inf)");
            }
            targets[i].seed = Q.row(i).transpose();
            targets[i].target.translation() = P.row(i).head<3>().transpose();
            targets[i].target.linear() =
                CheckQuaternion(P(i, 3), P(i, 4), P(i, 5), P(i, 6), "poses row " + std::to_string(i) + " columns 3..6").toRotationMatrix();
          }
          std::vector<BenchmarkSolver> all = PoseSolvers();
          for (BenchmarkSolver& b : BaselineSolvers()) all.push_back(std::move(b));
          const BenchmarkSolver& chosen = PoseSolver(all, solver);
          const std::string why = NotApplicable(chosen, *model, s);
          if (!why.empty()) throw std::invalid_argument(solver + ": " + why);
          BenchmarkSettings settings;
          settings.targets = static_cast<int>(targets.size());
          settings.time_budget_seconds = time_budget_seconds;
          settings.tolerance = tolerance;
          settings.threads = ToThreadCount(threads, "threads");
          std::vector<TargetOutcome> outcomes;
          {
            py::gil_scoped_release release;
            outcomes = RunTargets(model, s, targets, chosen, settings);
          }
          const BenchmarkSummary summary =
              Summarize(robot, solver, "given", model->nq(), outcomes, time_budget_seconds);
          const Eigen::Index n = static_cast<Eigen::Index>(outcomes.size());
          RowMatrixXd q(n, model->nq());
          Eigen::VectorXd us(n);
          py::array_t<bool> success(n);
          for (Eigen::Index i = 0; i < n; ++i) {
            q.row(i) = outcomes[i].q.size() == model->nq()
                           ? Eigen::RowVectorXd(outcomes[i].q.transpose())
                           : Eigen::RowVectorXd(Q.row(i));
            us[i] = outcomes[i].microseconds;
            success.mutable_at(i) = outcomes[i].success;
          }
          py::dict out;
          out["q"] = q;
          out["success"] = success;
          out["microseconds"] = us;
          out["summary"] = summary;
          return out;
        },
        py::arg("model"), py::arg("site"), py::arg("solver"), py::arg("poses"),
        py::arg("seeds"), py::arg("time_budget_seconds") = 0.005,
        py::arg("tolerance") = 1e-5, py::arg("threads") = 1, py::arg("robot") = "robot",
        "The benchmark protocol (bench/ik_benchmark.h) on given targets: "
        "{'q', 'success', 'microseconds', 'summary'}.");
}

}  // namespace

void BindLab(py::module_& m) {
  BindDataAndExperiments(m);
  BindStudyGoals(m);
  BindStudies(m);  // bind_study.cc
  BindRetargeting(m);  // bind_retarget.cc
  BindBenchmarkTargets(m);
  BindBenchmarkRuns(m);
}

}  // namespace iklab::python
