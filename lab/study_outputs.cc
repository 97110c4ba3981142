#include "lab/study.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/kinematics.h"
#include "lab/internal/study_helpers.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"

// The standard outputs of a study: CSV, JSON, the report's table and the
// pictures (declared in lab/study.h).

namespace iklab {

using internal::MaxAngle;
using internal::MaxPosition;
using internal::RandomModelPose;

namespace {

std::string Percent(double fraction) {
  return FormatNumber(100.0 * fraction, 4) + " %";
}

// Microseconds: three significant digits below 100, whole numbers above
// (no exponent notation in the tables).
std::string Micro(double us) {
  if (!std::isfinite(us)) return "–";
  if (us >= 100.0) return std::to_string(static_cast<long long>(std::lround(us)));
  return FormatNumber(us, 3);
}

// Planar when every step origin and site of the model stays in z = 0 at a
// few random poses (planar builders); 3D figures get two projections.
bool IsPlanar(const Model& model, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Data data(model);
  for (int k = 0; k < 4; ++k) {
    ForwardKinematics(model, RandomModelPose(model, &rng), &data);
    for (int step = 0; step < model.num_steps(); ++step) {
      if (std::abs(data.X_W(step).translation().z()) > 1e-9) return false;
    }
    for (int site = 0; site < model.num_sites(); ++site) {
      if (std::abs(SitePose(model, data, site).translation().z()) > 1e-9) {
        return false;
      }
    }
  }
  return true;
}

std::string SafeName(const std::string& label) {
  std::string out;
  for (char c : label) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return out;
}

void WriteTrialsCsv(const Study& study, const StudyResult& result,
                    const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << "solver,trial,frame,status,claimed,success,within_bounds,iterations,"
         "evaluations,attempts";
  for (std::size_t g = 0; g < result.goal_labels.size(); ++g) {
    out << ",goal" << g << "_position,goal" << g << "_angle,goal" << g << "_aim";
  }
  for (int i = 0; i < study.model->nq(); ++i) out << ",q_" << study.model->dof_name(i);
  out << ",microseconds\n";
  char buffer[64];
  auto number = [&](double v) {
    std::snprintf(buffer, sizeof(buffer), "%.17g", v);
    out << ',' << buffer;
  };
  for (const StudyRecord& r : result.records) {
    out << '"' << study.solvers[r.solver].label << "\"," << r.trial << ','
        << r.frame << ',' << SolveStatusName(r.status) << ',' << r.claimed
        << ',' << r.verified << ',' << r.within_bounds << ',' << r.iterations
        << ',' << r.evaluations << ',' << r.attempts;
    for (std::size_t g = 0; g < result.goal_labels.size(); ++g) {
      const GoalError e = g < r.errors.size() ? r.errors[g] : GoalError{};
      number(e.position);
      number(e.angle);
      number(e.aim);
    }
    for (int i = 0; i < study.model->nq(); ++i) {
      number(i < r.q.size() ? r.q(i) : std::numeric_limits<double>::quiet_NaN());
    }
    number(r.microseconds);
    out << '\n';
  }
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// Success rates and the distribution of the time per solve.
void DrawSuccessAndTimes(const Study& study, const StudyResult& result,
                         ExperimentOutput* out) {
  const int num_solvers = static_cast<int>(study.solvers.size());
  const std::string what = result.trajectory ? "frames" : "trials";
  BarChart success;
  success.title = study.title.empty() ? study.name : study.title;
  success.title += ": success rate";
  success.y_label = "verified successes (% of " + what + ")";
  success.y_range = "[0:105]";
  success.series_names = {"success"};
  success.values.resize(1);
  for (const SolverSummary& s : result.summaries) {
    success.categories.push_back(s.label);
    success.values[0].push_back(100.0 * s.success_rate);
  }
  DrawBarChart(success, out->dir(), "success");
  out->AddFigure("success.png",
                 "Verified successes per solver (goal errors recomputed from "
                 "FK within tolerance, pose within the bounds)");

  LinePlot cdf;
  cdf.title = "Time per solve: cumulative distribution";
  cdf.x_label = "microseconds per solve (log scale)";
  cdf.y_label = "fraction of solves done";
  cdf.log_x = true;
  cdf.key = "bottom right";
  for (int s = 0; s < num_solvers; ++s) {
    std::vector<double> us;
    for (const StudyRecord* r : result.Of(s)) us.push_back(std::max(r->microseconds, 1e-3));
    std::sort(us.begin(), us.end());
    Series series;
    series.title = study.solvers[s].label;
    series.color = PaletteColor(s);
    for (std::size_t i = 0; i < us.size(); ++i) {
      series.x.push_back(us[i]);
      series.y.push_back(static_cast<double>(i + 1) / us.size());
    }
    cdf.series.push_back(series);
  }
  DrawLinePlot(cdf, out->dir(), "time_cdf");
  out->AddFigure("time_cdf.png",
                 "Cumulative distribution of the time per solve, failures "
                 "included (log axis): further left is faster, higher "
                 "earlier is more predictable");
}

// Convergence curves of trial 0 from the solvers' traces.
void DrawConvergence(const Study& study, const StudyResult& result,
                     ExperimentOutput* out) {
  const int num_solvers = static_cast<int>(study.solvers.size());
  LinePlot convergence;
  convergence.title = "Convergence on trial 0";
  convergence.x_label = "iteration";
  convergence.y_label = "largest position error (log scale)";
  convergence.log_y = true;
  bool any = false;
  for (int s = 0; s < num_solvers; ++s) {
    if (result.traces[s].empty() || result.traces[s][0].empty()) continue;
    Series series;
    series.title = study.solvers[s].label;
    series.color = PaletteColor(s);
    series.style = "linespoints";
    for (const IterationRecord& it : result.traces[s][0]) {
      series.x.push_back(it.iteration);
      series.y.push_back(std::max({it.max_position_error,
                                   it.max_angle_error, 1e-16}));
    }
    convergence.series.push_back(series);
    any = true;
  }
  if (any) {
    convergence.y_label = "largest goal error, length or rad (log scale)";
    DrawLinePlot(convergence, out->dir(), "convergence");
    out->AddFigure("convergence.png",
                   "Largest goal error (position or angle) per iteration on "
                   "trial 0, from each solver's trace (solvers without an "
                   "iteration trace, e.g. closed-form ones, are absent)");
  }
}

// Trajectory mode: per-frame error and joint step of trial 0.
void DrawFrameErrorsAndSteps(const Study& study, const StudyResult& result,
                             ExperimentOutput* out) {
  const int num_solvers = static_cast<int>(study.solvers.size());
  LinePlot error;
  error.title = "Trial 0: error per frame";
  error.x_label = "frame";
  error.y_label = "largest goal error (log scale)";
  error.log_y = true;
  LinePlot steps;
  steps.title = "Trial 0: joint motion per frame";
  steps.x_label = "frame";
  steps.y_label = "joint step |q_k - q_{k-1}| (rad)";
  for (int s = 0; s < num_solvers; ++s) {
    Series e, j;
    e.title = j.title = study.solvers[s].label;
    e.color = j.color = PaletteColor(s);
    const auto& poses = result.first_trial_poses[s];
    for (const StudyRecord* r : result.Of(s)) {
      if (r->trial != 0) continue;
      e.x.push_back(r->frame);
      e.y.push_back(std::max({MaxPosition(r->errors), MaxAngle(r->errors), 1e-16}));
      if (r->frame < static_cast<int>(poses.size())) {
        j.x.push_back(r->frame);
        j.y.push_back((poses[r->frame] - poses[r->frame - 1]).norm());
      }
    }
    error.series.push_back(e);
    steps.series.push_back(j);
  }
  DrawLinePlot(error, out->dir(), "frame_errors");
  out->AddFigure("frame_errors.png",
                 "Largest goal error at each frame of trial 0's path");
  DrawLinePlot(steps, out->dir(), "joint_steps");
  out->AddFigure("joint_steps.png",
                 "Joint-space step between consecutive frames of trial 0 "
                 "(smoothness: spikes are jumps between solution branches)");
}

// Trajectory mode: the figure at the chosen frames of trial 0.
void DrawFigureFrames(const Study& study, const StudyResult& result,
                      ExperimentOutput* out) {
  const int num_solvers = static_cast<int>(study.solvers.size());
  std::vector<int> frames = study.drawn_frames;
  if (frames.empty()) frames = {0, result.frames / 2, result.frames};
  const bool planar = IsPlanar(*study.model, study.seed);
  const std::vector<std::pair<Projection, std::string>> views =
      planar ? std::vector<std::pair<Projection, std::string>>{{Projection::kXY, "x-y"}}
             : std::vector<std::pair<Projection, std::string>>{
                   {Projection::kXZ, "side view x-z"},
                   {Projection::kXY, "top view x-y"}};
  for (int s = 0; s < num_solvers; ++s) {
    const auto& poses = result.first_trial_poses[s];
    std::vector<int> valid;
    for (int f : frames) {
      if (f >= 0 && f < static_cast<int>(poses.size())) valid.push_back(f);
    }
    if (valid.empty()) continue;
    for (const auto& [projection, view] : views) {
      const std::string name = "figure_" + SafeName(study.solvers[s].label) +
                               (planar ? "" : "_" + SafeName(view));
      DrawLinePlot(LinkageFramesPlot(*study.model, poses, valid,
                                     study.solvers[s].label + ", trial 0 (" +
                                         view + ")",
                                     projection),
                   out->dir(), name);
      out->AddFigure(name + ".png", study.solvers[s].label +
                                        ": the figure at frames of trial 0 (" +
                                        view + ")");
    }
  }
}

void DrawPictures(const Study& study, const StudyResult& result,
                  ExperimentOutput* out) {
  DrawSuccessAndTimes(study, result, out);
  if (!result.trajectory) {
    DrawConvergence(study, result, out);
    return;
  }
  DrawFrameErrorsAndSteps(study, result, out);
  DrawFigureFrames(study, result, out);
}

// The study's settings as the report's parameters.
void SetStudyParameters(const Study& study, const StudyResult& result,
                        ExperimentOutput* out) {
  const Model& model = *study.model;
  if (!study.question.empty()) out->AddText(study.question);
  out->SetParameter("model", std::to_string(model.nq()) + " coordinates, " +
                                 std::to_string(model.num_sites()) + " sites");
  out->SetParameter("goals", result.goal_labels);
  if (study.regularization.tikhonov > 0.0) {
    out->SetParameter("tikhonov_alpha", study.regularization.tikhonov);
  }
  if (study.regularization.joint_centre_bias > 0.0) {
    out->SetParameter("joint_centre_bias_gain",
                      study.regularization.joint_centre_bias);
  }
  out->SetParameter("start_pose", StartPoseName(study.start));
  out->SetParameter("trials", study.trials);
  if (result.trajectory) out->SetParameter("frames_per_trial", result.frames);
  out->SetParameter("seed", study.seed);
  out->SetParameter("time_budget_ms", 1e3 * study.time_budget_seconds);
  out->SetParameter("position_tolerance", study.position_tolerance);
  out->SetParameter("angle_tolerance_rad", study.angle_tolerance);
  if (study.stop_tolerance_factor != 1.0) {
    out->SetParameter("solvers_stop_at_tolerance_times",
                      study.stop_tolerance_factor);
  }
  out->SetParameter("joint_limits", study.respect_limits ? "on" : "off");
  out->SetParameter("threads", study.threads);
  nlohmann::json solvers = nlohmann::json::array();
  for (const StudySolver& s : study.solvers) {
    solvers.push_back(s.attempts > 1 ? s.label + " (up to " +
                                           std::to_string(s.attempts) +
                                           " attempts)"
                                     : s.label);
  }
  out->SetParameter("solvers", solvers);
  out->SetParameter("success",
                    "claimed converged, and every goal error recomputed from "
                    "FK within tolerance, and (limits on) the pose within the "
                    "bounds");
}

// The report's table with a row per solver (also solvers.csv); returns the
// same numbers as study.json's "solvers".
nlohmann::json AddSolverTable(const Study& study, const StudyResult& result,
                              ExperimentOutput* out) {
  const std::string unit = result.trajectory ? "frame" : "solve";
  std::vector<std::vector<std::string>> rows;
  nlohmann::json json = nlohmann::json::array();
  for (std::size_t index = 0; index < result.summaries.size(); ++index) {
    const SolverSummary& s = result.summaries[index];
    const int cap = study.solvers[index].max_trials;
    const std::string label =
        cap > 0 && cap < study.trials
            ? s.label + " (first " + std::to_string(cap) + " trials)"
            : s.label;
    std::string statuses;
    for (const auto& [name, count] : s.statuses) {
      statuses += (statuses.empty() ? "" : "; ") + name + ": " +
                  std::to_string(count);
    }
    if (!s.rejected.empty()) {
      rows.push_back({label, "rejected: " + s.rejected, "", "", "", "", "",
                      "", "", "", ""});
    } else {
      rows.push_back({label, Percent(s.success_rate), Micro(s.mean_us),
                      Micro(s.median_us), Micro(s.p95_us), Micro(s.p99_us),
                      FormatNumber(s.mean_iterations, 3),
                      FormatNumber(s.median_position_error, 3),
                      FormatNumber(s.median_angle_error, 3),
                      std::to_string(s.false_claims), statuses});
      if (result.trajectory) {
        rows.back().back() += "; joint step mean " +
                              FormatNumber(s.mean_joint_step, 3) + ", max " +
                              FormatNumber(s.max_joint_step, 3) + " rad";
      }
    }
    nlohmann::json j = {{"solver", s.label},
                        {"solves", s.solves},
                        {"successes", s.successes},
                        {"success_rate", s.success_rate},
                        {"mean_us", s.mean_us},
                        {"median_us", s.median_us},
                        {"p95_us", s.p95_us},
                        {"p99_us", s.p99_us},
                        {"mean_iterations", s.mean_iterations},
                        {"median_position_error", s.median_position_error},
                        {"median_angle_error", s.median_angle_error},
                        {"false_claims", s.false_claims},
                        {"rejected", s.rejected}};
    for (const auto& [name, count] : s.statuses) j["statuses"][name] = count;
    if (result.trajectory) {
      j["mean_joint_step"] = s.mean_joint_step;
      j["max_joint_step"] = s.max_joint_step;
    }
    json.push_back(j);
  }
  out->AddTable(
      "Per solver over " + std::to_string(study.trials) + " trials" +
          (result.trajectory ? " × " + std::to_string(result.frames) + " frames"
                             : std::string()) +
          ": verified success rate, time per " + unit +
          " (µs, failures included), mean iterations, median of the largest "
          "position / angle error, claims the independent check refuted, "
          "final statuses",
      {"solver", "success", "mean µs", "median µs", "p95 µs", "p99 µs",
       "iterations", "position error", "angle error (rad)", "false claims",
       "statuses"},
      rows, "solvers.csv");
  return json;
}

void WriteStudyJson(const Study& study, const StudyResult& result,
                    const nlohmann::json& solvers, ExperimentOutput* out) {
  const std::filesystem::path path = out->dir() / "study.json";
  std::ofstream file(path);
  file << nlohmann::json{{"name", study.name},
                         {"title", study.title},
                         {"goals", result.goal_labels},
                         {"solvers", solvers}}
              .dump(2)
       << "\n";
  if (!file) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

void WriteStudyOutputs(const Study& study, const StudyResult& result,
                       ExperimentOutput* out) {
  SetStudyParameters(study, result, out);
  WriteTrialsCsv(study, result, out->dir() / "trials.csv");
  const nlohmann::json solvers = AddSolverTable(study, result, out);
  WriteStudyJson(study, result, solvers, out);
  DrawPictures(study, result, out);
  internal::WriteStudyScene(study, result, out);
  if (study.claims) study.claims(result, out);
}

}  // namespace iklab
