#include "lab/study.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/internal/read_file.h"
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

// A CSV field in double quotes, inner quotes doubled (RFC 4180).
std::string CsvQuoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

std::string Number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

// Entry i of `values`, or an empty cell where the record has none (no usable
// pose, or a trial whose goal differs from trial 0's).
std::string NumberAt(const std::vector<double>& values, std::size_t i) {
  return i < values.size() ? Number(values[i]) : std::string();
}

// One column of trials.csv: its header name, its meaning and unit (written
// to study.json), and its cell for a record.
struct TrialColumn {
  std::string name;
  std::string meaning;
  std::function<std::string(const StudyRecord&)> cell;
};

// The error columns of one goal or constraint: only the parts it has
// (TermLayout::error_parts; a position goal has no angle column).
void AddErrorColumns(const std::string& prefix, const std::string& what,
                     const std::string& suffix, const GoalErrorParts& parts,
                     std::function<const GoalError*(const StudyRecord&)> error,
                     std::vector<TrialColumn>* columns) {
  struct Part {
    bool has;
    const char* name;
    const char* unit;
    double GoalError::*field;
  };
  for (const Part& part :
       {Part{parts.position, "position", "model length units",
             &GoalError::position},
        Part{parts.angle, "angle", "radians", &GoalError::angle},
        Part{parts.aim, "aim", "1 - cos of the aim angle", &GoalError::aim}}) {
    if (!part.has) continue;
    const auto field = part.field;
    columns->push_back({prefix + part.name + suffix,
                        what + ": " + part.name + " " + suffix.substr(1) +
                            " (" + part.unit + "), recomputed from FK at q",
                        [error, field](const StudyRecord& r) {
                          const GoalError* e = error(r);
                          return e ? Number(e->*field) : std::string();
                        }});
  }
}

// A goal's columns: its errors, then what it asked (its targets).
void AddGoalColumns(const TermLayout& goal, std::size_t g,
                    std::vector<TrialColumn>* columns) {
  const std::string prefix = "goal" + std::to_string(g) + "_";
  const std::string what = "goal " + std::to_string(g) + ", " + goal.label;
  AddErrorColumns(
      prefix, what, "_error", goal.error_parts,
      [g](const StudyRecord& r) {
        return g < r.errors.size() ? &r.errors[g] : nullptr;
      },
      columns);
  for (std::size_t i = 0; i < goal.parameter_names.size(); ++i) {
    columns->push_back({prefix + goal.parameter_names[i],
                        what + ": its target parameter " +
                            goal.parameter_names[i] + " (Goal::Parameters)",
                        [g, i](const StudyRecord& r) {
                          return g < r.targets.size()
                                     ? NumberAt(r.targets[g], i)
                                     : std::string();
                        }});
  }
}

// A hard constraint's columns: what it asked, its bounded quantities at q
// (inequalities), its violation, and whether it was active (inequalities).
void AddConstraintColumns(const TermLayout& constraint, std::size_t k,
                          std::vector<TrialColumn>* columns) {
  const std::string prefix = "constraint" + std::to_string(k) + "_";
  const std::string what =
      "hard constraint " + std::to_string(k) + ", " + constraint.label +
      (constraint.inequality ? " (inequality)" : " (equality)");
  auto check = [k](const StudyRecord& r) {
    return k < r.constraints.size() ? &r.constraints[k] : nullptr;
  };
  for (std::size_t i = 0; i < constraint.parameter_names.size(); ++i) {
    columns->push_back({prefix + constraint.parameter_names[i],
                        what + ": its parameter " +
                            constraint.parameter_names[i] +
                            " (Goal::Parameters)",
                        [check, i](const StudyRecord& r) {
                          const ConstraintCheck* c = check(r);
                          return c ? NumberAt(c->parameters, i) : std::string();
                        }});
  }
  for (std::size_t i = 0; i < constraint.quantity_names.size(); ++i) {
    columns->push_back(
        {prefix + constraint.quantity_names[i],
         what + ": the bounded quantity " + constraint.quantity_names[i] +
             " at q (" +
             (constraint.quantity_angular[i] ? "radians"
                                             : "model length units") +
             "), recomputed from FK; its bounds are among the parameters",
         [check, i](const StudyRecord& r) {
           const ConstraintCheck* c = check(r);
           return c ? NumberAt(c->values, i) : std::string();
         }});
  }
  AddErrorColumns(
      prefix, what, "_violation", constraint.error_parts,
      [check](const StudyRecord& r) {
        const ConstraintCheck* c = check(r);
        return c ? &c->violation : nullptr;
      },
      columns);
  if (constraint.inequality) {
    columns->push_back(
        {prefix + "active",
         what + ": 1 if some bounded quantity lies within the study's "
                "tolerance of a finite bound at q (empty: no usable pose)",
         [check](const StudyRecord& r) {
           const ConstraintCheck* c = check(r);
           return c && !c->values.empty() ? std::to_string(c->active)
                                          : std::string();
         }});
  }
}

// Every column of trials.csv, in order.
std::vector<TrialColumn> TrialColumns(const Study& study,
                                      const StudyResult& result) {
  std::vector<TrialColumn> columns = {
      {"solver", "the solver's label",
       [&study](const StudyRecord& r) {
         return CsvQuoted(study.solvers[r.solver].label);
       }},
      {"trial", "trial number, from 0",
       [](const StudyRecord& r) { return std::to_string(r.trial); }},
      {"frame",
       "frame 1 … N of the trial's path in trajectory mode; 0 otherwise",
       [](const StudyRecord& r) { return std::to_string(r.frame); }},
      {"status", "the solver's final status",
       [](const StudyRecord& r) {
         return std::string(SolveStatusName(r.status));
       }},
      {"claimed", "1 if the solver said converged",
       [](const StudyRecord& r) { return std::to_string(r.claimed); }},
      {"success",
       "1 if verified: claimed, every goal error and constraint violation "
       "recomputed from FK within tolerance, and (limits on) the pose within "
       "the bounds (or Study::accept)",
       [](const StudyRecord& r) { return std::to_string(r.verified); }},
      {"within_bounds", "1 if q lies within the problem's bounds (1e-9 slack)",
       [](const StudyRecord& r) { return std::to_string(r.within_bounds); }},
      {"iterations", "the solver's iterations (restarts included)",
       [](const StudyRecord& r) { return std::to_string(r.iterations); }},
      {"evaluations", "the solver's function evaluations",
       [](const StudyRecord& r) { return std::to_string(r.evaluations); }},
      {"attempts", "solves made (random restarts)",
       [](const StudyRecord& r) { return std::to_string(r.attempts); }},
  };
  for (std::size_t g = 0; g < result.goals.size(); ++g) {
    AddGoalColumns(result.goals[g], g, &columns);
  }
  for (std::size_t k = 0; k < result.constraints.size(); ++k) {
    AddConstraintColumns(result.constraints[k], k, &columns);
  }
  for (int i = 0; i < study.model->nq(); ++i) {
    columns.push_back({"q_" + study.model->dof_name(i),
                       "the answer's coordinate " + study.model->dof_name(i) +
                           " (empty: the solver returned no usable pose)",
                       [i](const StudyRecord& r) {
                         return i < r.q.size() ? Number(r.q(i)) : std::string();
                       }});
  }
  columns.push_back(
      {"microseconds", "wall time of the solve call",
       [](const StudyRecord& r) { return Number(r.microseconds); }});
  columns.push_back(
      {"message", "the solver's message",
       [](const StudyRecord& r) { return CsvQuoted(r.message); }});
  return columns;
}

void WriteTrialsCsv(const std::vector<TrialColumn>& columns,
                    const StudyResult& result,
                    const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(internal::CannotWrite(path.string()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out << (c ? "," : "") << columns[c].name;
  }
  out << '\n';
  for (const StudyRecord& r : result.records) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out << (c ? "," : "") << columns[c].cell(r);
    }
    out << '\n';
  }
  if (!out) throw std::runtime_error(internal::CannotWrite(path.string()));
}

// "a, b, c".
std::string JoinLabels(const std::vector<std::string>& labels) {
  std::string out;
  for (const std::string& label : labels) {
    out += (out.empty() ? "" : ", ") + label;
  }
  return out;
}

// A reason shortened to fit on a bar.
std::string Shortened(const std::string& text, std::size_t length) {
  if (text.size() <= length) return text;
  std::size_t cut = text.rfind(' ', length);
  if (cut == std::string::npos || cut < length / 2) cut = length;
  return text.substr(0, cut) + " …";
}

// The solvers that refused every solve (SolverSummary::rejected): shown as
// refused, never as results.
bool Refused(const StudyResult& result, int solver) {
  return !result.summaries[solver].rejected.empty();
}

// A line plot with one curve per solver, legible with twenty: each solver's
// own colour and dash (SetDistinctStyle, by its index in the study, so a
// solver looks the same in every picture), the key outside on the right and
// the canvas wide and tall enough for it (about 8 px per character of the
// longest label, 20 px per entry).
void PrepareSolverPlot(LinePlot* plot) {
  std::size_t longest = 0;
  for (const Series& s : plot->series) {
    longest = std::max(longest, s.title.size());
  }
  plot->key = "outside right top vertical";
  plot->width_px = 820 + 8 * static_cast<int>(longest);
  plot->height_px =
      std::max(600, 180 + 20 * static_cast<int>(plot->series.size()));
}

// The note and caption words for the solvers a picture leaves out.
std::string LeftOut(const std::vector<std::string>& refused,
                    const std::vector<std::string>& others,
                    const std::string& others_why) {
  std::string note;
  if (!refused.empty()) {
    note = "Not drawn, refused every solve: " + JoinLabels(refused) + ".";
  }
  if (!others.empty()) {
    note += (note.empty() ? "" : " ") + others_why + JoinLabels(others) + ".";
  }
  return note;
}

// Success rates: horizontal bars, a hatched "refused" bar for a solver that
// refused every trial.
void DrawSuccess(const Study& study, const StudyResult& result,
                 ExperimentOutput* out) {
  const std::string what = result.trajectory ? "frames" : "trials";
  BarChart success;
  success.title = study.title.empty() ? study.name : study.title;
  success.title += ": success rate";
  success.y_label = "verified successes (% of " + what + ")";
  success.y_range = "[0:115]";
  success.horizontal = true;
  success.value_unit = " %";
  success.series_names = {"success"};
  success.values.resize(1);
  bool any_refused = false;
  for (int s = 0; s < static_cast<int>(result.summaries.size()); ++s) {
    const SolverSummary& summary = result.summaries[s];
    success.categories.push_back(summary.label);
    success.values[0].push_back(100.0 * summary.success_rate);
    success.category_notes.push_back(
        Refused(result, s)
            ? "refused every " +
                  std::string(result.trajectory ? "frame" : "trial") + ": " +
                  Shortened(summary.rejected, 70)
            : "");
    any_refused |= Refused(result, s);
  }
  DrawBarChart(success, out->dir(), "success");
  out->AddFigure(
      "success.png",
      "Verified successes per solver (goal errors recomputed from "
      "FK within tolerance, pose within the bounds)" +
          std::string(any_refused ? "; hatched: the solver refused every "
                                    "problem (its reason on the bar)"
                                  : ""));
}

// The distribution of the time per solve. Refused solves are no results:
// a solver that refused every solve is not drawn, one that refused some has
// a curve that ends below 1 (the fraction it attempted); both are named.
void DrawTimes(const Study& study, const StudyResult& result,
               ExperimentOutput* out) {
  const int num_solvers = static_cast<int>(study.solvers.size());
  LinePlot cdf;
  cdf.title = "Time per solve: cumulative distribution";
  cdf.x_label = "microseconds per solve (log scale)";
  cdf.y_label = "fraction of solves done";
  cdf.log_x = true;
  std::vector<std::string> refused, partly;
  for (int s = 0; s < num_solvers; ++s) {
    if (Refused(result, s)) {
      refused.push_back(study.solvers[s].label);
      continue;
    }
    const std::vector<const StudyRecord*> records = result.Of(s);
    std::vector<double> us;
    for (const StudyRecord* r : records) {
      if (r->status != SolveStatus::kInvalidInput) {
        us.push_back(std::max(r->microseconds, 1e-3));
      }
    }
    if (us.size() < records.size()) {
      partly.push_back(study.solvers[s].label + " (" +
                       std::to_string(records.size() - us.size()) + " of " +
                       std::to_string(records.size()) + ")");
    }
    std::sort(us.begin(), us.end());
    Series series;
    series.title = study.solvers[s].label;
    SetDistinctStyle(s, &series);
    for (std::size_t i = 0; i < us.size(); ++i) {
      series.x.push_back(us[i]);
      series.y.push_back(static_cast<double>(i + 1) / records.size());
    }
    cdf.series.push_back(series);
  }
  PrepareSolverPlot(&cdf);
  cdf.note = LeftOut(refused, partly,
                     "Refused some solves, left out (the curve ends at the "
                     "fraction attempted): ");
  DrawLinePlot(cdf, out->dir(), "time_cdf");
  out->AddFigure("time_cdf.png",
                 "Cumulative distribution of the time per solve, failures "
                 "included (log axis): further left is faster, higher "
                 "earlier is more predictable" +
                     std::string(cdf.note.empty() ? "" : ". " + cdf.note));
}

// Convergence curves of trial 0 from the solvers' traces; the solvers
// without one are named in the picture and the caption.
void DrawConvergence(const Study& study, const StudyResult& result,
                     ExperimentOutput* out) {
  const int num_solvers = static_cast<int>(study.solvers.size());
  LinePlot convergence;
  convergence.title = "Convergence on trial 0";
  convergence.x_label = "iteration";
  convergence.y_label = "largest goal error, length or rad (log scale)";
  convergence.log_y = true;
  std::vector<std::string> refused, untraced;
  for (int s = 0; s < num_solvers; ++s) {
    if (Refused(result, s)) {
      refused.push_back(study.solvers[s].label);
      continue;
    }
    if (result.traces[s].empty() || result.traces[s][0].empty()) {
      untraced.push_back(study.solvers[s].label);
      continue;
    }
    Series series;
    series.title = study.solvers[s].label;
    SetDistinctStyle(s, &series);
    series.style = "linespoints";
    for (const IterationRecord& it : result.traces[s][0]) {
      series.x.push_back(it.iteration);
      series.y.push_back(std::max({it.max_position_error,
                                   it.max_angle_error, 1e-16}));
    }
    convergence.series.push_back(series);
  }
  if (convergence.series.empty()) return;
  PrepareSolverPlot(&convergence);
  convergence.note =
      LeftOut(refused, untraced,
              "Not drawn, no iteration trace (closed-form, or a solver that "
              "records none): ");
  DrawLinePlot(convergence, out->dir(), "convergence");
  out->AddFigure(
      "convergence.png",
      "Largest goal error (position or angle) per iteration on "
      "trial 0, from each solver's trace" +
          std::string(convergence.note.empty() ? "" : ". " + convergence.note));
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
  std::vector<std::string> refused;
  for (int s = 0; s < num_solvers; ++s) {
    if (Refused(result, s)) {
      refused.push_back(study.solvers[s].label);
      continue;
    }
    Series e, j;
    e.title = j.title = study.solvers[s].label;
    SetDistinctStyle(s, &e);
    SetDistinctStyle(s, &j);
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
  if (error.series.empty()) return;
  for (LinePlot* plot : {&error, &steps}) {
    PrepareSolverPlot(plot);
    plot->note = LeftOut(refused, {}, "");
  }
  DrawLinePlot(error, out->dir(), "frame_errors");
  out->AddFigure("frame_errors.png",
                 "Largest goal error at each frame of trial 0's path" +
                     std::string(error.note.empty() ? "" : ". " + error.note));
  DrawLinePlot(steps, out->dir(), "joint_steps");
  out->AddFigure("joint_steps.png",
                 "Joint-space step between consecutive frames of trial 0 "
                 "(smoothness: spikes are jumps between solution branches)" +
                     std::string(steps.note.empty() ? "" : ". " + steps.note));
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
  DrawSuccess(study, result, out);
  DrawTimes(study, result, out);
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
  if (!result.constraints.empty()) {
    std::vector<std::string> labels;
    for (const TermLayout& c : result.constraints) labels.push_back(c.label);
    out->SetParameter("hard_constraints", labels);
  }
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
                    "claimed converged, and every goal error (and hard "
                    "constraint violation) recomputed from FK within "
                    "tolerance, and (limits on) the pose within the bounds");
}

// Which error parts any of `terms` has.
GoalErrorParts AnyParts(const std::vector<TermLayout>& terms) {
  GoalErrorParts any;
  for (const TermLayout& t : terms) {
    any.position |= t.error_parts.position;
    any.angle |= t.error_parts.angle;
    any.aim |= t.error_parts.aim;
  }
  return any;
}

// The report's table with a row per solver (also solvers.csv); returns the
// same numbers as study.json's "solvers". Error columns only for the parts
// the study's goals have, constraint columns only with hard constraints.
nlohmann::json AddSolverTable(const Study& study, const StudyResult& result,
                              ExperimentOutput* out) {
  const std::string unit = result.trajectory ? "frame" : "solve";
  const GoalErrorParts goal_parts = AnyParts(result.goals);
  const GoalErrorParts constraint_parts = AnyParts(result.constraints);
  const bool constrained = !result.constraints.empty();
  std::vector<std::string> header = {"solver",    "success", "mean µs",
                                     "median µs", "p95 µs",  "p99 µs",
                                     "iterations"};
  if (goal_parts.position) header.push_back("position error");
  if (goal_parts.angle) header.push_back("angle error (rad)");
  if (constrained && constraint_parts.position) {
    header.push_back("constraint violation median");
    header.push_back("constraint violation max");
  }
  if (constrained && constraint_parts.angle) {
    header.push_back("constraint angle violation median (rad)");
    header.push_back("constraint angle violation max (rad)");
  }
  header.push_back("false claims");
  header.push_back("statuses");
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
    std::vector<std::string> row = {label};
    if (!s.rejected.empty()) {
      row.push_back("rejected: " + s.rejected);
      row.resize(header.size());
    } else {
      row.insert(row.end(),
                 {Percent(s.success_rate), Micro(s.mean_us), Micro(s.median_us),
                  Micro(s.p95_us), Micro(s.p99_us),
                  FormatNumber(s.mean_iterations, 3)});
      if (goal_parts.position) {
        row.push_back(FormatNumber(s.median_position_error, 3));
      }
      if (goal_parts.angle) {
        row.push_back(FormatNumber(s.median_angle_error, 3));
      }
      if (constrained && constraint_parts.position) {
        row.push_back(FormatNumber(s.median_constraint_violation, 3));
        row.push_back(FormatNumber(s.max_constraint_violation, 3));
      }
      if (constrained && constraint_parts.angle) {
        row.push_back(FormatNumber(s.median_constraint_angle_violation, 3));
        row.push_back(FormatNumber(s.max_constraint_angle_violation, 3));
      }
      row.push_back(std::to_string(s.false_claims));
      row.push_back(statuses);
      if (result.trajectory) {
        row.back() += "; joint step mean " +
                      FormatNumber(s.mean_joint_step, 3) + ", max " +
                      FormatNumber(s.max_joint_step, 3) + " rad";
      }
    }
    rows.push_back(row);
    // JSON: a part no goal (constraint) has is null, not 0.
    auto number_if = [](bool has, double v) {
      return has ? nlohmann::json(v) : nlohmann::json();
    };
    nlohmann::json j = {
        {"solver", s.label},
        {"solves", s.solves},
        {"successes", s.successes},
        {"success_rate", s.success_rate},
        {"mean_us", s.mean_us},
        {"median_us", s.median_us},
        {"p95_us", s.p95_us},
        {"p99_us", s.p99_us},
        {"mean_iterations", s.mean_iterations},
        {"median_position_error",
         number_if(goal_parts.position, s.median_position_error)},
        {"median_angle_error",
         number_if(goal_parts.angle, s.median_angle_error)},
        {"false_claims", s.false_claims},
        {"rejected", s.rejected},
        {"method", s.method}};
    if (constrained) {
      j["median_constraint_violation"] =
          number_if(constraint_parts.position, s.median_constraint_violation);
      j["max_constraint_violation"] =
          number_if(constraint_parts.position, s.max_constraint_violation);
      j["median_constraint_angle_violation"] = number_if(
          constraint_parts.angle, s.median_constraint_angle_violation);
      j["max_constraint_angle_violation"] =
          number_if(constraint_parts.angle, s.max_constraint_angle_violation);
    }
    for (const auto& [name, count] : s.statuses) j["statuses"][name] = count;
    if (result.trajectory) {
      j["mean_joint_step"] = s.mean_joint_step;
      j["max_joint_step"] = s.max_joint_step;
    }
    json.push_back(j);
  }
  std::string errors;
  if (goal_parts.position || goal_parts.angle) {
    errors = std::string(", median of the largest ") +
             (goal_parts.position && goal_parts.angle ? "position / angle"
              : goal_parts.position                   ? "position"
                                                      : "angle") +
             " error";
  }
  if (constrained) {
    errors +=
        ", median and largest hard-constraint violation (recomputed "
        "from FK; 0 = satisfied)";
  }
  out->AddTable(
      "Per solver over " + std::to_string(study.trials) + " trials" +
          (result.trajectory ? " × " + std::to_string(result.frames) + " frames"
                             : std::string()) +
          ": verified success rate, time per " + unit +
          " (µs, failures included), mean iterations" + errors +
          ", claims the independent check refuted, final statuses",
      header, rows, "solvers.csv");
  // Which bounded-lm solvers ran on the SIMD batch solver, and why the
  // others fell back to the scalar one (SolverSummary::method).
  std::string methods;
  for (const SolverSummary& s : result.summaries) {
    if (s.method.rfind("simd", 0) == 0) {
      methods += (methods.empty() ? "" : " ") + s.label + " ran on the SIMD " +
                 "batch solver, " + s.method +
                 " (its µs per solve are shares of a batch's wall time).";
    } else if (!s.method.empty() && s.method.find(", not bounded-lm") ==
                                        std::string::npos) {
      methods += (methods.empty() ? "" : " ") + s.label +
                 " solved trial by trial on the scalar solver (" +
                 s.method.substr(s.method.find(": ") + 2) + ").";
    }
  }
  if (!methods.empty()) out->AddText(methods);
  return json;
}

nlohmann::json TermsJson(const std::vector<TermLayout>& terms) {
  nlohmann::json out = nlohmann::json::array();
  for (const TermLayout& t : terms) {
    std::vector<std::string> errors;
    if (t.error_parts.position) errors.push_back("position");
    if (t.error_parts.angle) errors.push_back("angle");
    if (t.error_parts.aim) errors.push_back("aim");
    nlohmann::json j = {{"label", t.label},
                        {"errors", errors},
                        {"parameters", t.parameter_names}};
    if (t.inequality) j["quantities"] = t.quantity_names;
    out.push_back(j);
  }
  return out;
}

void WriteStudyJson(const Study& study, const StudyResult& result,
                    const nlohmann::json& solvers,
                    const std::vector<TrialColumn>& columns,
                    ExperimentOutput* out) {
  const std::filesystem::path path = out->dir() / "study.json";
  nlohmann::json trial_columns = nlohmann::json::array();
  for (const TrialColumn& c : columns) {
    trial_columns.push_back({{"name", c.name}, {"meaning", c.meaning}});
  }
  std::ofstream file(path);
  file << nlohmann::json{{"name", study.name},
                         {"title", study.title},
                         {"goals", TermsJson(result.goals)},
                         {"hard_constraints", TermsJson(result.constraints)},
                         {"solvers", solvers},
                         {"trials_csv_columns", trial_columns}}
              .dump(2)
       << "\n";
  if (!file) throw std::runtime_error(internal::CannotWrite(path.string()));
}

}  // namespace

void WriteStudyOutputs(const Study& study, const StudyResult& result,
                       ExperimentOutput* out) {
  SetStudyParameters(study, result, out);
  const std::vector<TrialColumn> columns = TrialColumns(study, result);
  WriteTrialsCsv(columns, result, out->dir() / "trials.csv");
  const nlohmann::json solvers = AddSolverTable(study, result, out);
  WriteStudyJson(study, result, solvers, columns, out);
  DrawPictures(study, result, out);
  internal::WriteStudyScene(study, result, out);
  if (study.claims) study.claims(result, out);
}

}  // namespace iklab
