#include "cli/retarget_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <system_error>

#include "framework/bvh_loader.h"
#include "framework/bvh_writer.h"
#include "framework/internal/read_file.h"
#include "framework/validate.h"
#include "lab/retargeting.h"
#include "lab/statistics.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/registry.h"

namespace iklab {

void AddRetargetOptions(CLI::App* command, RetargetCommandOptions* o) {
  command->add_option("--bvh", o->bvh, "The motion: a BVH file")->required();
  command->add_option("--onto", o->onto,
                      "Skeleton to solve on: a BVH file with the same joint "
                      "names (default: the motion's own skeleton)");
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
      "Effector sites, separated by commas: joint names or <joint>_End "
      "(default: every End Site)");
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
                   "Effector tolerance in the file's length units")
      ->capture_default_str();  // CheckTolerance in Run (NaN included)
  command->add_option("--out,-o", o->out_dir, "Output folder")
      ->capture_default_str();
}

namespace {

std::unique_ptr<Solver> MakeRetargetSolver(const std::string& name,
                                           double tolerance) {
  // No time budget and no random restarts: a restart would jump to an
  // unrelated pose and break the frame-to-frame continuity.
  SolveOptions common;
  common.position_tolerance = tolerance;
  common.max_iterations = 10000;
  common.time_budget_seconds = 0.0;
  if (name != "bounded-lm") return MakeSolver(name, common);
  BoundedLmOptions lm;  // its own restarts off, for the same reason
  lm.common = common;
  lm.max_attempts = 1;
  return std::make_unique<BoundedLmSolver>(lm);
}

int Run(const RetargetCommandOptions& o) {
  CheckTolerance(o.tolerance, "--tolerance");
  const BvhFigure clip = LoadBvh(o.bvh);
  const BvhFigure skeleton = o.onto.empty() ? clip : LoadBvh(o.onto);
  const auto clip_model = std::make_shared<const Model>(clip.figure.Compile());
  const auto model = std::make_shared<const Model>(skeleton.figure.Compile());
  if (model->nq() == 0) {  // before the output folder is made
    throw std::invalid_argument((o.onto.empty() ? o.bvh : o.onto) +
                                ": the skeleton has no CHANNELS, so no "
                                "coordinates to solve for");
  }
  for (const std::string& name : o.effectors) {
    if (name.empty()) {
      throw std::invalid_argument(
          "--effectors: an empty name in the list; give joint names "
          "separated by commas (--effectors LeftHand,RightHand)");
    }
  }
  const std::vector<std::string> sites =
      o.effectors.empty() ? EndSiteNames(clip) : o.effectors;
  if (sites.empty()) {
    throw std::invalid_argument(o.bvh +
                                ": the skeleton has no End Site; "
                                "name the effectors with --effectors");
  }
  const int count =
      o.frames > 0 ? std::min(o.frames, clip.num_frames()) : clip.num_frames();
  std::vector<int> frames(count);
  for (int f = 0; f < count; ++f) frames[f] = f;

  std::vector<std::vector<Eigen::Vector3d>> targets;
  try {
    targets = EffectorTargets(*clip_model, clip.poses, frames, sites);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(o.bvh + ": " + e.what());
  }
  std::error_code error;
  std::filesystem::create_directories(o.out_dir, error);
  if (error) {
    throw std::invalid_argument("--out " + o.out_dir +
                                ": cannot create the folder (" +
                                error.message() + ")");
  }
  const std::unique_ptr<Solver> solver =
      MakeRetargetSolver(o.solver, o.tolerance);
  RetargetRun run;
  try {
    run = Retarget(model, sites, frames, targets, *solver,
                   Eigen::VectorXd::Zero(model->nq()));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument((o.onto.empty() ? o.bvh : o.onto) + ": " +
                                e.what());
  }

  // A frame whose residual overflowed has no meaningful answer: refuse the
  // clip rather than write frames that look solved.
  for (const RetargetFrame& r : run.frames) {
    if (r.status == SolveStatus::kNumericalFailure) {
      throw std::invalid_argument(
          o.bvh + ": frame " + std::to_string(r.frame) + ": " + r.message +
          " (check the clip's root translation and offsets)");
    }
  }
  const std::string csv_path = o.out_dir + "/frames.csv";
  std::ofstream csv(csv_path);
  csv.precision(10);
  csv << "frame,max_error,mean_error,microseconds,iterations,converged\n";
  int converged = 0;
  double worst = 0.0;
  std::vector<double> times;
  for (const RetargetFrame& r : run.frames) {
    csv << r.frame << "," << r.max_error << "," << r.mean_error << ","
        << r.microseconds << "," << r.iterations << "," << r.converged << "\n";
    converged += r.converged;
    worst = std::max(worst, r.max_error);
    times.push_back(r.microseconds);
  }
  csv.close();
  if (!csv) {
    throw std::invalid_argument(internal::CannotWrite(csv_path));
  }
  BvhFigure solved = skeleton;
  solved.frame_time = clip.frame_time;
  solved.poses.resize(count, model->nq());
  for (int f = 0; f < count; ++f) solved.poses.row(f) = run.q[f].transpose();
  SaveBvh(solved, o.out_dir + "/retargeted.bvh");

  const double median = times.empty() ? 0.0 : Median(times);
  std::printf(
      "%s: %d frames, %zu effectors, %s: %d converged, largest effector "
      "error %.3g (file units), median %.1f us per frame\n"
      "Results: %s/frames.csv, %s/retargeted.bvh\n",
      o.bvh.c_str(), count, sites.size(), run.solver.c_str(), converged, worst,
      median, o.out_dir.c_str(), o.out_dir.c_str());
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
