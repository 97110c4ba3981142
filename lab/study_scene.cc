#include "lab/study_scene.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/kinematics.h"
#include "lab/internal/study_helpers.h"
#include "lab/plot.h"
#include "lab/scene.h"
#include "lab/study.h"

// A study's 3D scene (declared in lab/internal/study_helpers.h): one view
// per drawn trial with every solver's answer, the start pose and the goals;
// in trajectory mode every solver animated over the frames with the target
// path.

namespace iklab::internal {

namespace {

// Caps that keep a scene file modest: trials drawn, figure layers in all
// (solvers × trials), animated trials and frames per animation.
constexpr int kMaxTrials = 20;
constexpr int kMaxFigureLayers = 240;
constexpr int kMaxAnimatedTrials = 3;
constexpr int kMaxFrames = 121;
constexpr const char* kStartColor = "#999999";

// The figure's size at mid-limits (FigureExtent).
double Extent(const Model& model) {
  return FigureExtent(model, model.MidLimits());
}

bool Usable(const StudyRecord& record, int nq) {
  return record.q.size() == nq && record.q.allFinite() &&
         record.status != SolveStatus::kInvalidInput;
}

std::string Number(double value) {
  return std::isfinite(value) ? FormatNumber(value, 3) : "–";
}

// Positions of the position targets of a problem's goals, in goal order.
std::vector<Eigen::Vector3d> Targets(const Problem& problem) {
  std::vector<Eigen::Vector3d> targets;
  for (const auto& goal : problem.goals()) {
    if (const auto* g = dynamic_cast<const PositionGoal*>(goal.get())) {
      targets.push_back(g->target());
    } else if (const auto* g =
                   dynamic_cast<const PositionOrientationGoal*>(goal.get())) {
      targets.push_back(g->target().translation());
    }
  }
  return targets;
}

// The records of `trial` per solver (frame order), empty lists for solvers
// that did not solve it.
std::vector<std::vector<const StudyRecord*>> TrialRecords(
    const StudyResult& result, int num_solvers, int trial) {
  std::vector<std::vector<const StudyRecord*>> per_solver(num_solvers);
  for (const StudyRecord& r : result.records) {
    if (r.trial == trial && r.solver < num_solvers) per_solver[r.solver].push_back(&r);
  }
  return per_solver;
}

void AddAnimatedView(const Study& study, const StudyResult& result,
                     const std::vector<std::vector<const StudyRecord*>>& frames,
                     int trial, int figure, double size, Scene* scene) {
  const Model& model = *study.model;
  const int num_frames = static_cast<int>(frames[0].size());
  const int stride = std::max(1, (num_frames + kMaxFrames - 2) / (kMaxFrames - 1));
  // Drawn frames: the start (0), then every stride-th solved frame and the
  // last one.
  std::vector<int> drawn = {0};
  for (int k = stride; k < num_frames; k += stride) drawn.push_back(k);
  if (drawn.back() != num_frames) drawn.push_back(num_frames);

  Trial made = MakeStudyTrial(study, trial,
                              study.start == StartPose::kPreviousTrial
                                  ? frames[0][0]->q0
                                  : Eigen::VectorXd());
  std::vector<Eigen::Vector3d> path;
  std::vector<std::vector<Eigen::Vector3d>> target_at(num_frames + 1);
  target_at[0] = Targets(made.problem);
  for (int k = 1; k <= num_frames; ++k) {
    made.path(k, static_cast<double>(k) / num_frames, &made.problem);
    target_at[k] = Targets(made.problem);
    if (!target_at[k].empty()) path.push_back(target_at[k][0]);
  }

  SceneView& view =
      scene->AddView("trial " + std::to_string(trial) + ": all solvers over time");
  view.SetFrames(static_cast<int>(drawn.size()), 1.0 / 30.0 * stride);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t s = 0; s < frames.size(); ++s) {
    std::vector<Eigen::VectorXd> poses;
    Eigen::VectorXd q = frames[s][0]->q0;
    int successes = 0;
    double worst = 0.0;
    std::vector<Eigen::VectorXd> solved(num_frames + 1);
    solved[0] = q;
    for (int k = 1; k <= num_frames; ++k) {
      const StudyRecord& r = *frames[s][k - 1];
      if (Usable(r, model.nq())) q = r.q;
      solved[k] = q;
      successes += r.verified ? 1 : 0;
      worst = std::max(worst, MaxPosition(r.errors));
    }
    for (int k : drawn) poses.push_back(solved[k]);
    view.AddFigure(figure, poses, study.solvers[s].label,
                   PaletteColor(static_cast<int>(s)));
    rows.push_back({study.solvers[s].label,
                    std::to_string(successes) + " / " + std::to_string(num_frames),
                    Number(worst)});
  }
  if (path.size() >= 2) view.AddPath(path, false, "target path", "#000000");
  if (!target_at[num_frames].empty()) {
    std::vector<std::vector<Eigen::Vector3d>> moving;
    for (int k : drawn) moving.push_back(target_at[k]);
    view.AddAnimatedPoints(moving, "targets", "#000000", 0.3 * size);
  }
  (void)result;
  view.SetTable({"solver", "frames solved", "largest position error"},
                std::move(rows));
}

}  // namespace

void WriteStudyScene(const Study& study, const StudyResult& result,
                     ExperimentOutput* out) {
  const Model& model = *study.model;
  const int num_solvers = static_cast<int>(study.solvers.size());
  const double extent = Extent(model);
  const double size = 0.08 * extent;
  Scene scene(study.name + ": " + (study.title.empty() ? "trials" : study.title),
              "m", Eigen::Vector3d::UnitZ());
  const int figure = scene.AddFigure(model, study.name, 0.02 * extent);

  // records[trial][solver] (frame 0 or, in trajectory mode, the frames).
  std::map<int, std::vector<std::vector<const StudyRecord*>>> by_trial;
  for (const StudyRecord& r : result.records) {
    auto& per_solver = by_trial[r.trial];
    per_solver.resize(num_solvers);
    per_solver[r.solver].push_back(&r);
  }
  int views = 0;
  const int trials_cap =
      result.trajectory
          ? kMaxAnimatedTrials
          : std::min(kMaxTrials, std::max(1, kMaxFigureLayers / (num_solvers + 1)));
  for (const auto& [trial, per_solver] : by_trial) {
    if (views >= trials_cap) break;
    bool complete = true;
    for (const auto& list : per_solver) complete = complete && !list.empty();
    if (!complete) continue;  // a solver limited to fewer trials (max_trials)
    if (result.trajectory) {
      AddAnimatedView(study, result, per_solver, trial, figure, size, &scene);
    } else {
      AddStudyTrialView(study, result, trial, figure, "trial " + std::to_string(trial),
                        &scene);
    }
    ++views;
  }
  if (views == 0) return;
  scene.Write(out->dir() / "scene.json");
  out->AddScene("scene.json",
                result.trajectory
                    ? "The first trials in 3D: every solver's figure animated "
                      "over the frames, with the target path."
                    : "The first " + std::to_string(views) +
                          " trials in 3D: each solver's answer (its colour), the "
                          "start pose (grey) and the goals.");
}

}  // namespace iklab::internal

namespace iklab {

SceneView& AddStudyTrialView(const Study& study, const StudyResult& result,
                             int trial, int figure, const std::string& name,
                             Scene* scene, int max_solvers) {
  const Model& model = *study.model;
  const int num_solvers = static_cast<int>(study.solvers.size());
  const auto per_solver = internal::TrialRecords(result, num_solvers, trial);
  const StudyRecord* first = nullptr;
  for (const auto& list : per_solver) {
    if (!list.empty() && first == nullptr) first = list.front();
  }
  if (first == nullptr) {
    throw std::invalid_argument("AddStudyTrialView: study '" + study.name +
                                "' has no record of trial " +
                                std::to_string(trial));
  }
  const Trial made = internal::MakeStudyTrial(
      study, trial,
      study.start == StartPose::kPreviousTrial ? first->q0 : Eigen::VectorXd());
  SceneView& view = scene->AddView(name);
  view.AddFigure(figure, {made.q0}, "start", internal::kStartColor);
  // Verified answers first, then the other usable ones, up to max_solvers.
  std::vector<int> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (int s = 0; s < num_solvers; ++s) {
      if (per_solver[s].empty()) continue;
      const StudyRecord& r = *per_solver[s].front();
      if (internal::Usable(r, model.nq()) && r.verified == (pass == 0)) {
        order.push_back(s);
      }
    }
  }
  if (max_solvers > 0 && static_cast<int>(order.size()) > max_solvers) {
    order.resize(max_solvers);
  }
  std::sort(order.begin(), order.end());
  Eigen::VectorXd drawn_at = made.q0;
  bool found_verified = false;
  for (int s : order) {
    const StudyRecord& r = *per_solver[s].front();
    view.AddFigure(figure, {r.q}, study.solvers[s].label, PaletteColor(s));
    if (r.verified && !found_verified) {
      drawn_at = r.q;
      found_verified = true;
    }
  }
  // Only the error parts the goals have (no column of zeros for an angle a
  // position goal does not ask for); a refused solve has no errors or time.
  bool position = false, angle = false;
  for (const TermLayout& goal : result.goals) {
    position = position || goal.error_parts.position;
    angle = angle || goal.error_parts.angle;
  }
  std::vector<std::string> columns = {"solver", "status", "success"};
  if (position) columns.push_back("position error");
  if (angle) columns.push_back("angle error (rad)");
  for (const char* c : {"time (µs)", "drawn"}) columns.push_back(c);
  std::vector<std::vector<std::string>> rows;
  for (int s = 0; s < num_solvers; ++s) {
    if (per_solver[s].empty()) continue;
    const StudyRecord& r = *per_solver[s].front();
    const bool refused = r.status == SolveStatus::kInvalidInput;
    const bool drawn = std::find(order.begin(), order.end(), s) != order.end();
    std::vector<std::string> row = {
        study.solvers[s].label,
        refused ? "refused: " + r.message : SolveStatusName(r.status),
        r.verified ? "yes" : "no"};
    if (position) {
      row.push_back(refused ? "" : internal::Number(internal::MaxPosition(r.errors)));
    }
    if (angle) {
      row.push_back(refused ? "" : internal::Number(internal::MaxAngle(r.errors)));
    }
    row.push_back(refused ? "" : internal::Number(r.microseconds));
    row.push_back(drawn ? "yes" : "no");
    rows.push_back(std::move(row));
  }
  AddProblemLayers(made.problem, drawn_at, 0.08 * internal::Extent(model), &view);
  view.SetTable(std::move(columns), std::move(rows));
  return view;
}

}  // namespace iklab
