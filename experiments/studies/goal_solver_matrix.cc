// The goal-solver matrix: every goal "solved by bounded L-BFGS-B, Ceres
// least squares, or differential methods for direct comparison" at
// a glance. Every goal kind — position, orientation, pose, axis (partial
// orientation), aiming, plane, weighted sum, disjunctive, the inequality
// goals cone, position box, gaze, orientation box, distance to a point and
// site distance (in their smooth penalty form, inequality_goal.h), the
// relative pose of one site in another's frame, and a position goal with a
// joint range (inequality) or a joint posture (equality) — against every
// iklab solver (EverySolver(): optimization, differential, analytic) and
// the two constrained NLP solvers once more with every goal as a hard
// constraint ("slsqp-hard", "ipopt-hard": Problem::WithGoalsAsConstraints,
// minimal forms; n/a for goals with no hard form: weighted sums keep
// dependent rows, a disjunction is not smooth, an aiming goal has no minimal
// form here), on three figures:
//  * a 7-DOF robot arm (the Franka Panda URDF, hand site), one goal at a time
//    (two-site goals: the hand in panda_link1's frame, 6 joints between);
//  * the 53-DOF human figure (HumanFigure) with the goal on both hands and
//    both feet at once (four simultaneous goals; two-site goals: the left
//    hand held relative to the right hand, the left foot to the right foot);
//  * Tolani's 7-DOF limb, where the analytic solver applies (two-site goals:
//    the hand relative to the upper arm's shoulder site — 4 joints between,
//    so a relative pose's 6 rows have rank 4: reachable by construction, but
//    redundant for an NLP's equality constraints).
// The first ten rows also run with Tikhonov regularization and with the
// joint-centre bias; the newer rows without (the variants test the
// regularizers, and the run stays within its time).
// Each cell is a study (lab/study.h) over random reachable targets: success
// rate (verified independently from FK and the limits) and median time per
// solve. A solver that refuses a goal kind or figure shows "n/a". A last
// table counts each solver's solves over the whole matrix by final status:
// every target is reachable, so a solver that stops short reports a local
// minimum, the limits or one of its caps, never "unreachable" (which needs
// evidence, solvers/solver.h).
//
// Parameters we chose: 40 trials per cell on the arms and 12 on the human
// figure (4 and 2 in quick mode), random start poses within the limits,
// tolerance 1e-5 (m, rad), budget 5 ms per solve (20 ms on the human
// figure), rotation weight 0.4 m/rad for pose and relative pose goals, aim
// and gaze distance 0.5 m along the site's z axis, weighted sum = the site's
// position (w 1) + its orientation (w 0.1), disjunction = any of three poses
// of the site, gaze and cone half-angle 0.1 rad, orientation box ±0.05 rad,
// position box ±1 cm, distance to a point 0.3 ± 0.01 m, site distance
// ±1 cm around the generated one, joint range ±0.3 rad around the generating
// pose on every coordinate, joint posture on coordinate 0.
// Regularizer weights 1e-9 (Tikhonov α towards the start, joint-centre gain
// towards the middle of the limits): small enough that the regularized
// optimum stays within the 1e-5 tolerance of the goals — its bias on a goal
// residual is about weight × ‖q − q_ref‖ / σ_min², with ‖q − q_ref‖ ≈ 3 rad
// and σ_min of a weighted pose Jacobian down to ≈ 0.05, so ≈ 1e-6 — and a
// cell measures whether a solver handles the extra residual rows and the
// null-space pull, not a deliberate trade-off (with 1e-6 the pose rows
// already failed the 1e-5 tolerance for every solver).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiments_list.h"
#include "framework/builders.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "lab/plot.h"
#include "lab/study.h"
#include "lab/study_scene.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/registry.h"

namespace iklab {

namespace {

constexpr double kRegularizerWeight = 1e-9;
// Solvers' answers drawn per goal kind in the 3D scene (the table lists all).
constexpr int kSceneSolvers = 5;

struct Figure3 {
  std::string name;
  std::string title;
  std::shared_ptr<const Model> model;
  std::vector<std::string> sites;  // the goal is put on each of them
  // Two-site goals (site distance, relative pose): the first site held
  // relative to the second.
  std::vector<std::pair<std::string, std::string>> pairs;
  double budget_seconds = 0.005;
  int trials = 40;
};

// One row of the matrix: a goal kind made for a site (or a pair of sites),
// with the figure's goals being that goal on each of its sites (pairs).
struct Row {
  std::string name;
  std::function<std::vector<GoalSpec>(const Figure3& figure)> make;
  // The row also runs with the regularizer variants.
  bool regularized = true;
  // The goal has a hard-constraint form (Problem::WithGoalsAsConstraints):
  // independent rows or an inequality. Weighted sums keep their parts'
  // dependent rows, a disjunction is not smooth and an aiming goal has no
  // minimal form here: their hard columns read n/a.
  bool hard_form = true;
};

// A row made site by site.
Row PerSite(std::string name, std::function<GoalSpec(const std::string&)> make,
            bool regularized = true, bool hard_form = true) {
  return {std::move(name),
          [make](const Figure3& figure) {
            std::vector<GoalSpec> goals;
            for (const std::string& site : figure.sites) goals.push_back(make(site));
            return goals;
          },
          regularized, hard_form};
}

// A row made pair by pair.
Row PerPair(std::string name,
            std::function<GoalSpec(const std::string&, const std::string&)> make) {
  return {std::move(name),
          [make](const Figure3& figure) {
            std::vector<GoalSpec> goals;
            for (const auto& [a, b] : figure.pairs) goals.push_back(make(a, b));
            return goals;
          },
          false, true};
}

// Each site's position plus one joint goal over the figure.
Row WithJointGoal(std::string name, GoalSpec joint_goal) {
  return {std::move(name),
          [joint_goal](const Figure3& figure) {
            std::vector<GoalSpec> goals;
            for (const std::string& site : figure.sites) {
              goals.push_back(GoalSpec::Position(site));
            }
            goals.push_back(joint_goal);
            return goals;
          },
          false, true};
}

std::vector<Row> GoalRows() {
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ();
  return {
      PerSite("position", [](const std::string& s) { return GoalSpec::Position(s); }),
      PerSite("orientation",
              [](const std::string& s) { return GoalSpec::Orientation(s); }),
      PerSite("pose", [](const std::string& s) { return GoalSpec::Pose(s, 0.4); }),
      PerSite("axis", [z](const std::string& s) { return GoalSpec::Axis(s, z); }),
      PerSite("aiming",
              [z](const std::string& s) { return GoalSpec::Aiming(s, z, 0.5); },
              true, false),
      PerSite("plane", [](const std::string& s) { return GoalSpec::Plane(s); }),
      PerSite("cone (axis within 0.1 rad)",
              [z](const std::string& s) { return GoalSpec::Cone(s, z, 0.1); }),
      PerSite("position box (+-1 cm)",
              [](const std::string& s) { return GoalSpec::PositionBox(s, 0.01); }),
      PerSite("weighted sum",
              [](const std::string& s) {
                return GoalSpec::WeightedSum(
                    {GoalSpec::Position(s), GoalSpec::Orientation(s, 0.1)});
              },
              true, false),
      PerSite("any of 3 poses",
              [](const std::string& s) {
                return GoalSpec::AnyOf({GoalSpec::Pose(s, 0.4),
                                        GoalSpec::Pose(s, 0.4),
                                        GoalSpec::Pose(s, 0.4)});
              },
              true, false),
      // The newer goals, without the regularizer variants (to keep the run's
      // length; the variants test the regularizer rows, not the goal).
      PerSite("gaze (within 0.1 rad of a point)",
              [z](const std::string& s) { return GoalSpec::Gaze(s, z, 0.1, 0.5); },
              false),
      PerSite("orientation box (+-0.05 rad)",
              [](const std::string& s) { return GoalSpec::OrientationBox(s, 0.05); },
              false),
      PerSite("distance to a point (0.3 +- 0.01)",
              [](const std::string& s) {
                return GoalSpec::PointDistance(s, 0.3, 0.01);
              },
              false),
      PerPair("site distance (+-1 cm)",
              [](const std::string& a, const std::string& b) {
                return GoalSpec::SiteDistance(a, b, 0.01);
              }),
      PerPair("relative pose",
              [](const std::string& a, const std::string& b) {
                return GoalSpec::RelativePose(a, b, 0.4);
              }),
      WithJointGoal("position + joint range (+-0.3 rad)",
                    GoalSpec::JointRange({}, 0.3)),
      WithJointGoal("position + joint posture (coordinate 0)",
                    GoalSpec::JointPosture({0})),
  };
}

// The constrained NLP solvers with every goal as a hard constraint
// (goals_as_constraints), beside their penalty-form columns.
std::vector<StudySolver> HardSolvers() {
  SlsqpOptions slsqp;
  slsqp.goals_as_constraints = true;
  IpoptOptions ipopt;
  ipopt.goals_as_constraints = true;
  return {Use("slsqp-hard", slsqp), Use("ipopt-hard", ipopt)};
}

// The three figures of the matrix.
std::vector<Figure3> MatrixFigures() {
  std::vector<Figure3> figures;
  const UrdfFigure panda = LoadUrdfChain(DataFile("robots/panda.urdf"),
                                         "panda_link0", "panda_hand");
  figures.push_back({"panda", "Franka Panda (7 DOF), hand",
                     std::make_shared<const Model>(panda.figure.Compile()),
                     {"panda_hand"},
                     {{"panda_hand", "panda_link1"}}});
  figures.push_back(
      {"human", "Human figure (53 DOF), hands and feet at once",
       std::make_shared<const Model>(HumanFigure().Compile()),
       {"left_hand", "right_hand", "left_foot", "right_foot"},
       {{"left_hand", "right_hand"}, {"left_foot", "right_foot"}},
       0.02,
       12});
  figures.push_back({"tolani-arm", "Tolani's 7-DOF limb, hand",
                     std::make_shared<const Model>(TolaniArm().Compile()),
                     {"hand"},
                     {{"hand", "shoulder"}}});
  return figures;
}

// The regularizer variants: (row-name suffix, regularization).
using Variant = std::pair<std::string, Regularization>;

void SetMatrixParameters(const ExperimentContext& context,
                         ExperimentOutput* out) {
  out->SetParameter("trials_per_cell",
                    context.quick ? "4 (arms), 2 (human)" : "40 (arms), 12 (human)");
  out->SetParameter("start_pose", "random within the limits");
  out->SetParameter("tolerance", "1e-5 m, 1e-5 rad");
  out->SetParameter("time_budget_ms", "5 (arms), 20 (human figure)");
  out->SetParameter("regularizer_weight", kRegularizerWeight);
  out->SetParameter("goals", "pose, relative pose: rotation weight 0.4 m/rad; "
                             "aiming, gaze: site z axis at 0.5 m; weighted "
                             "sum: position (w 1) + orientation (w 0.1); any "
                             "of 3 poses; cone, gaze 0.1 rad; boxes +-1 cm, "
                             "+-0.05 rad; distances 0.3 +- 0.01 m, +-1 cm; "
                             "joint range +-0.3 rad");
  out->SetParameter("hard_columns", "slsqp-hard, ipopt-hard: every goal a "
                                    "hard constraint in minimal form");
}

// For the claims: per figure and row, which families accept the goal and
// the best optimizer's success rate.
struct RowCheck {
  std::string figure, row;
  bool lbfgsb = false, ceres = false, differential = false;
  double best_optimizer = 0.0;
};

// What the matrix gathers over all figures: the long-format CSV rows, the
// claims' checks and, per solver, its solves by final status.
struct MatrixCells {
  std::vector<std::vector<std::string>> csv_rows;
  std::vector<RowCheck> checks;
  std::map<std::string, std::map<std::string, int>> statuses;
};

// One figure's heatmap and table under construction.
struct FigureGrid {
  Heatmap map;
  std::vector<std::vector<std::string>> table;
};

StudyResult RunCell(const Figure3& figure, const Row& row,
                    const Regularization& regularization,
                    const std::vector<StudySolver>& solvers,
                    const std::vector<StudySolver>& soft_solvers,
                    const ExperimentContext& context, Study* made = nullptr) {
  Study study;
  study.name = "goal-solver-matrix";
  study.model = figure.model;
  study.goals = row.make(figure);
  study.regularization = regularization;
  study.solvers = row.hard_form ? solvers : soft_solvers;
  study.trials = context.quick ? (figure.trials > 20 ? 4 : 2) : figure.trials;
  study.seed = context.seed;
  study.threads = context.threads;
  study.time_budget_seconds = figure.budget_seconds;
  study.traced_trials = 0;
  StudyResult result = RunStudy(study);
  if (made != nullptr) *made = std::move(study);
  return result;
}

// One cell's summaries into the figure's heatmap and table row and the
// long-format CSV, and the row's check for the claims.
void RecordCell(const Figure3& figure, const std::string& row_name,
                const StudyResult& result,
                const std::vector<StudySolver>& solvers, FigureGrid* grid,
                MatrixCells* cells) {
  Heatmap& map = grid->map;
  map.row_names.push_back(row_name);
  map.values.emplace_back();
  map.labels.emplace_back();
  std::vector<std::string> table_row = {row_name};
  RowCheck check{figure.name, row_name};
  for (const SolverSummary& s : result.summaries) {
    const bool rejected = !s.rejected.empty();
    std::string statuses;
    for (const auto& [name, count] : s.statuses) {
      statuses += (statuses.empty() ? "" : "; ") + name + ": " +
                  std::to_string(count);
      if (!rejected) cells->statuses[s.label][name] += count;
    }
    if (!rejected) {
      check.lbfgsb |= s.label == "lbfgsb";
      check.ceres |= s.label.rfind("ceres", 0) == 0;
      const SolverEntry* entry = FindSolver(s.label);
      check.differential |=
          entry != nullptr && entry->family == SolverFamily::kDifferential;
      if (s.label == "lbfgsb" || s.label.rfind("ceres", 0) == 0 ||
          s.label == "bounded-lm") {
        check.best_optimizer = std::max(check.best_optimizer, s.success_rate);
      }
    }
    map.values.back().push_back(rejected ? std::nan("") : s.success_rate);
    char label[64];
    std::snprintf(label, sizeof(label), "%.0f%%\n%.*f µs",
                  100.0 * s.success_rate, s.median_us < 10.0 ? 1 : 0,
                  s.median_us);
    std::string text = rejected ? "n/a" : label;
    map.labels.back().push_back(text);
    std::replace(text.begin(), text.end(), '\n', ' ');
    table_row.push_back(text);
    cells->csv_rows.push_back({figure.name, row_name, s.label,
                               rejected ? "" : FormatNumber(s.success_rate, 6),
                               rejected ? "" : FormatNumber(s.median_us, 6),
                               rejected ? "" : FormatNumber(s.mean_us, 6),
                               rejected ? "" : FormatNumber(s.p99_us, 6),
                               std::to_string(s.false_claims), s.rejected,
                               rejected ? "" : statuses});
  }
  // Goals without a hard form: the hard columns did not run.
  for (std::size_t k = result.summaries.size(); k < solvers.size(); ++k) {
    map.values.back().push_back(std::nan(""));
    map.labels.back().push_back("n/a");
    table_row.push_back("n/a");
    cells->csv_rows.push_back({figure.name, row_name, solvers[k].label, "", "",
                               "", "", "0",
                               "no hard-constraint form (dependent rows, not "
                               "smooth, or no minimal form)",
                               ""});
  }
  grid->table.push_back(table_row);
  cells->checks.push_back(check);
}

// Every row and variant on one figure: its heatmap and table. `done` of
// `total` cells for the progress report.
void RunFigure(const Figure3& figure, const std::vector<Row>& rows,
               const std::vector<Variant>& variants,
               const std::vector<StudySolver>& solvers,
               const std::vector<StudySolver>& soft_solvers, double total,
               const ExperimentContext& context, int* done,
               MatrixCells* cells, ExperimentOutput* out) {
  FigureGrid grid;
  Heatmap& map = grid.map;
  map.title = "Goal-solver matrix: " + figure.title +
              " (colour: success rate; label: success / median µs)";
  map.value_label = "verified success rate";
  for (const StudySolver& s : solvers) map.column_names.push_back(s.label);
  // 3D: per goal kind (unregularized), trial 0 with the solvers' answers.
  iklab::Scene scene("Goal-solver matrix: " + figure.title, "m",
              Eigen::Vector3d::UnitZ());
  const int scene_figure = scene.AddFigure(*figure.model, figure.name, 0.02);
  for (const auto& [suffix, regularization] : variants) {
    for (const Row& row : rows) {
      if (!suffix.empty() && !row.regularized) continue;
      context.Progress((*done)++ / total, figure.name + ": " + row.name + suffix);
      Study study;
      const StudyResult result = RunCell(figure, row, regularization, solvers,
                                         soft_solvers, context, &study);
      RecordCell(figure, row.name + suffix, result, solvers, &grid, cells);
      if (suffix.empty()) {
        AddStudyTrialView(study, result, 0, scene_figure, row.name, &scene,
                          kSceneSolvers);
      }
    }
  }
  const std::string scene_file = "scene_" + figure.name + ".json";
  scene.Write(out->dir() / scene_file);
  out->AddScene(scene_file,
                figure.title + " in 3D: per goal kind, trial 0 with the goals "
                               "and up to " + std::to_string(kSceneSolvers) +
                               " solvers' answers (verified ones first; the "
                               "table lists every solver)");
  map.height_px = 160 + 40 * static_cast<int>(map.row_names.size());
  map.width_px = 260 + 80 * static_cast<int>(map.column_names.size());
  DrawHeatmap(map, out->dir(), "matrix_" + figure.name);
  out->AddFigure("matrix_" + figure.name + ".png",
                 figure.title + ": verified success rate (colour) and median "
                                "µs per solve; grey = the solver does not "
                                "apply (it rejected the goal or figure)");
  std::vector<std::string> header = {"goal"};
  for (const StudySolver& s : solvers) header.push_back(s.label);
  out->AddTable(figure.title + ": success rate and median µs per solve "
                               "(n/a: the solver rejects this goal or figure)",
                header, grid.table);
}

// The mission's claim, checked cell by cell.
void AddMatrixClaims(const std::vector<RowCheck>& checks,
                     ExperimentOutput* out) {
  int posable = 0, solved = 0;
  std::string not_posable, not_solved;
  for (const RowCheck& c : checks) {
    if (c.lbfgsb && c.ceres && c.differential) {
      ++posable;
    } else {
      not_posable += (not_posable.empty() ? "" : "; ") + c.figure + ": " + c.row;
    }
    if (c.best_optimizer >= 0.95) {
      ++solved;
    } else {
      not_solved += (not_solved.empty() ? "" : "; ") + c.figure + ": " + c.row +
                    " (best " + FormatNumber(100.0 * c.best_optimizer, 3) + " %)";
    }
  }
  const int rows_total = static_cast<int>(checks.size());
  out->AddClaim(
      {"Every goal kind, with or without regularizers, is accepted by "
       "bounded L-BFGS-B, Ceres least squares and a differential method",
       "iklab's design: every goal is \"solved by bounded L-BFGS-B, Ceres "
       "least squares, or differential methods for direct comparison\"",
       std::to_string(posable) + " of " + std::to_string(rows_total) +
           " goal rows accepted by L-BFGS-B, Ceres and at least one "
           "differential method",
       posable == rows_total ? Verdict::kReproduced : Verdict::kDiffers,
       posable == rows_total ? "no goal kind is refused by either optimizer, "
                               "and each has a differential method"
                             : "refused: " + not_posable});
  out->AddClaim(
      {"Every goal kind is solved on every figure by an optimizer (L-BFGS-B, "
       "Ceres or bounded LM) on at least 95 % of random reachable targets",
       "iklab's design (our acceptance rule: 95 %)",
       std::to_string(solved) + " of " + std::to_string(rows_total) +
           " rows at >= 95 %",
       solved == rows_total ? Verdict::kReproduced : Verdict::kDiffers,
       solved == rows_total ? "the best optimizer reaches 95 % on every row"
                            : "below 95 %: " + not_solved});
}

// Per solver, its solves over every cell it accepted (all figures, rows
// and variants) by final status (solvers/solver.h): how each one that did
// not converge says it stopped, local minima and goals shown out of reach
// counted apart.
void AddStatusTable(
    const std::vector<StudySolver>& solvers,
    const std::map<std::string, std::map<std::string, int>>& statuses,
    ExperimentOutput* out) {
  std::set<std::string> names;
  for (const auto& [solver, counts] : statuses) {
    for (const auto& [name, count] : counts) names.insert(name);
  }
  std::vector<std::string> header = {"solver"};
  header.insert(header.end(), names.begin(), names.end());
  std::vector<std::vector<std::string>> rows;
  for (const StudySolver& s : solvers) {
    const auto found = statuses.find(s.label);
    if (found == statuses.end()) continue;
    std::vector<std::string> row = {s.label};
    for (const std::string& name : names) {
      const auto count = found->second.find(name);
      row.push_back(std::to_string(
          count == found->second.end() ? 0 : count->second));
    }
    rows.push_back(std::move(row));
  }
  out->AddTable("Solves by final status, per solver over every cell it "
                "accepted (all targets are reachable, so none is shown out "
                "of reach: a stop short of the goals is a local minimum, the "
                "limits or a cap)",
                header, rows, "statuses.csv");
}

// Long-format data for the reader's own analysis.
void WriteMatrixCsv(const std::vector<std::vector<std::string>>& csv_rows,
                    ExperimentOutput* out) {
  out->AddText("Every cell with its mean and p99 time, false claims, the "
               "solver's rejection reason and its solves by final status: "
               "`matrix.csv`.");
  std::ofstream csv(out->dir() / "matrix.csv");
  csv << "figure,goal,solver,success_rate,median_us,mean_us,p99_us,"
         "false_claims,rejected,statuses\n";
  for (const auto& r : csv_rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      csv << (i ? "," : "") << '"' << r[i] << '"';
    }
    csv << "\n";
  }
}

void RunMatrix(const ExperimentContext& context, ExperimentOutput* out) {
  const std::vector<Figure3> figures = MatrixFigures();
  const std::vector<Row> rows = GoalRows();
  const std::vector<Variant> variants = {
      {"", {}},
      {" + Tikhonov", {kRegularizerWeight, 0.0}},
      {" + centre bias", {0.0, kRegularizerWeight}}};
  const std::vector<StudySolver> soft_solvers = EverySolver();
  std::vector<StudySolver> solvers = soft_solvers;
  for (StudySolver& s : HardSolvers()) solvers.push_back(std::move(s));
  int cells_per_figure = 0;
  for (const auto& variant : variants) {
    for (const Row& row : rows) {
      cells_per_figure += variant.first.empty() || row.regularized;
    }
  }
  SetMatrixParameters(context, out);

  MatrixCells cells;
  const double total = figures.size() * cells_per_figure;
  int done = 0;
  for (const Figure3& figure : figures) {
    RunFigure(figure, rows, variants, solvers, soft_solvers, total, context,
              &done, &cells, out);
  }
  AddMatrixClaims(cells.checks, out);
  AddStatusTable(solvers, cells.statuses, out);
  WriteMatrixCsv(cells.csv_rows, out);
}

}  // namespace

void AddGoalSolverMatrix(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"goal-solver-matrix",
       "Every goal kind against every solver: success rate and median time",
       "iklab's design (direct comparison of goal formulations and solvers)",
       RunMatrix});
}

}  // namespace iklab
