#ifndef IKLAB_LAB_STUDY_H_
#define IKLAB_LAB_STUDY_H_

/// @file
/// Studies: a researcher's comparison experiment stated as plain data — a
/// model, how each trial's goals are made, where each solve starts, the
/// solvers to compare — and run with no per-study code:
///
///     Study study;
///     study.name = "my-arm";
///     study.model = std::make_shared<const Model>(PlanarChain({1, 1, 1}).Compile());
///     study.goals = {GoalSpec::Position("tip")};
///     study.solvers = {Use("lbfgsb", LbfgsbOptions{}), Use("dls", DampedLeastSquaresOptions{})};
///     StudyResult result = RunStudy(study);           // every solver, every trial
///     WriteStudyOutputs(study, result, &output);      // CSV, JSON, tables, pictures
///
/// or registered as an experiment (StudyExperiment) and run by the command
/// line (cli/command_line.h) with progress and a report.
///
/// A bounded-lm solver runs on the SIMD batch solver (SolveBatch,
/// solvers/batch/simd_lm.h: several trials at once across vector lanes)
/// when the study's trials are its own random targets of one pose or
/// position goal on a serial chain of ≤ 8 coordinates, with no time budget,
/// no regularizer, no chaining and no restart wrapper; every other solver
/// and case solves trial by trial, and SolverSummary::method says which and
/// why.
///
/// Every solver solves the same problems: trial k's problem is made from a
/// random generator seeded by (seed, k) alone, so the results are
/// bit-identical for the same seed at any thread count (as long as no time
/// budget binds: a solve stopped by its budget depends on the machine's
/// speed). Every answer is re-verified independently of the solver: the goal
/// errors are recomputed from FK at the returned pose in natural units and
/// the pose is checked against the bounds; a solver's claim of convergence
/// counts as a success only if that check passes.
///
/// The goal specifications and scenarios (what each trial asks for) are
/// declared in lab/study_scenarios.h, which this header includes.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "lab/experiment.h"
#include "lab/study_scenarios.h"
#include "solvers/registry.h"
#include "solvers/restarts.h"
#include "solvers/solver.h"

namespace iklab {

/// Regularizers added to every trial's problem (0 = off).
struct Regularization {
  /// Tikhonov α ‖q − q0‖² towards the trial's start pose (NLP paper,
  /// Example 3.1). ≥ 0.
  double tikhonov = 0.0;
  /// Joint-centre bias Σ a (q_i − q_ci)² towards the middle of the limits
  /// with the same gain a for every coordinate (Parent Eq. 5.27). ≥ 0.
  double joint_centre_bias = 0.0;
};

/// Where each solve starts.
enum class StartPose {
  kMidLimits,     ///< The middle of the bounds (0 for unbounded coordinates).
  kRandom,        ///< Uniform within the bounds (unbounded: (−π, π]), drawn
                  ///< from the trial's generator.
  kGiven,         ///< Study::given_start.
  kPreviousTrial, ///< The previous trial's answer of the same solver (the
                  ///< first trial starts at the middle of the limits): trials
                  ///< are then solved in order, one solver per thread.
};
const char* StartPoseName(StartPose start);

/// A solver of a study: a label and how to make it for a trial.
struct StudySolver {
  std::string label;
  /// Makes the solver from the study's common settings (time budget,
  /// tolerances, limits, trace) for one trial, outside the timed call; may be
  /// called from several threads at once. Most solvers ignore the trial; one
  /// may read it, e.g. an analytic solver told the wrist angles the trial's
  /// goal was generated with (Trial::q_generator).
  std::function<std::unique_ptr<Solver>(const SolveOptions& common,
                                        const Trial& trial)>
      make;
  /// > 1: random restarts within the bounds (RestartSolver) until an attempt
  /// converges, at most this many solves, all within the study's budget.
  int attempts = 1;
  /// > 0: this solver solves only the first `max_trials` trials (an
  /// expensive solver on a subset of the same problems); 0: all.
  int max_trials = 0;
};

/// A StudySolver from any solver's Options (ccd_solver.h, lbfgsb_solver.h,
/// …): the study's common settings (time budget, tolerances, limits, trace)
/// replace options.common, except max_iterations, which stays the solver's
/// own. For a solver that must differ from the study in another common
/// setting (e.g. run with the limits off inside a limits-on study), write the
/// StudySolver's factory by hand.
template <typename Options>
StudySolver Use(std::string label, Options options = {}, int attempts = 1) {
  return {std::move(label),
          [options](const SolveOptions& common, const Trial&) {
            Options o = options;
            const int max_iterations = o.common.max_iterations;
            o.common = common;
            o.common.max_iterations = max_iterations;
            return MakeSolver(o);
          },
          attempts};
}

/// A StudySolver from a registered solver (solvers/registry.h): its
/// Options' defaults, the study's common settings except max_iterations,
/// which stays the entry's own (500 for differential methods).
StudySolver Use(const SolverEntry& entry, int attempts = 1);

/// Every registered solver (SolverRegistry(): optimization, constrained,
/// differential and analytic, in that order), labelled by its name. A study
/// reports a solver that does not apply to its goals or model as "rejected"
/// with the solver's reason, so this is the list for "every applicable
/// solver".
std::vector<StudySolver> EverySolver();

/// The registered solvers called `labels`, in that order.
/// @throws std::invalid_argument naming an unknown label and the known ones.
std::vector<StudySolver> Solvers(const std::vector<std::string>& labels);

struct StudyRecord;
struct StudyResult;

/// The comparison experiment, as data.
struct Study {
  /// Name (folder and command-line name), title, and the question it answers
  /// (the report's first line).
  std::string name;
  std::string title;
  std::string question;
  /// The figure: from a builder, a DH table or a URDF (framework/).
  std::shared_ptr<const Model> model;
  /// What each trial asks for: `goals` at random reachable poses
  /// (RandomTargets), or any Scenario in `scenario` (which then wins).
  std::vector<GoalSpec> goals;
  Scenario scenario;
  Regularization regularization;
  /// Where each solve starts (a trial's own q0 wins).
  StartPose start = StartPose::kRandom;
  Eigen::VectorXd given_start;
  std::vector<StudySolver> solvers;

  int trials = 100;
  std::uint64_t seed = 1;
  /// Per solve (per frame in trajectory mode), seconds; ≤ 0: none.
  double time_budget_seconds = 0.005;
  /// Success: every goal's position error ≤ position_tolerance (model units)
  /// and angle error ≤ angle_tolerance (radians; aim errors 1 − cos likewise).
  /// The solvers stop at these tolerances too.
  double position_tolerance = 1e-5;
  double angle_tolerance = 1e-5;
  /// The solvers stop at the tolerances above times this factor, in (0, 1]:
  /// e.g. 0.1 stops an order of magnitude inside the success threshold.
  double stop_tolerance_factor = 1.0;
  /// Solve within the joint limits (success then also needs the pose within
  /// the bounds).
  bool respect_limits = true;
  /// Worker threads (results do not depend on it), ≥ 1; more than
  /// MaxWorkerThreads() or than work items are not started
  /// (framework/validate.h).
  int threads = 1;
  /// Convergence curves: the first `traced_trials` trials are solved once
  /// more with a per-iteration trace, untimed and without the time budget
  /// (StudyResult::traces; the pictures draw trial 0's).
  int traced_trials = 1;
  /// Trajectory mode: frames at which the figure is drawn (empty: start,
  /// middle and end).
  std::vector<int> drawn_frames;
  /// Optional: replaces the built-in success test of a solve (the claim
  /// checked against the recomputed goal errors and the bounds), e.g. with a
  /// benchmark protocol's own check. Called with the record filled in
  /// (status, claim, q, time, recomputed errors); must be thread-safe.
  std::function<bool(const StudyRecord&)> accept;
  /// Optional: claims computed from the result (paper vs ours), added to the
  /// report exactly as the reproductions do.
  std::function<void(const StudyResult&, ExperimentOutput*)> claims;

  /// @throws std::invalid_argument naming the field and what to fix: no
  ///   model, no solvers, an unnamed solver or duplicate label, trials < 1
  ///   or trials × solvers beyond INT_MAX, threads < 1, a NaN/Inf or
  ///   non-positive tolerance, a NaN budget, a NaN/Inf or negative regularizer,
  ///   no goals and no scenario, an unknown site or a bad GoalSpec, a given
  ///   start pose of the wrong size or with a NaN.
  void Validate() const;
};

/// A hard constraint of a solve's problem at the answer, recomputed from FK
/// at q like the goal errors (not the solver's own numbers).
struct ConstraintCheck {
  /// What the constraint asked (Goal::Parameters() values, e.g. a cone's
  /// axis, direction and half-angle).
  std::vector<double> parameters;
  /// Inequalities: the bounded quantities at q (InequalityGoal::Quantities()
  /// values, e.g. a cone's angle); empty for an equality, whose value is its
  /// error (`violation`).
  std::vector<double> values;
  /// Natural-unit violation (Problem::ConstraintErrors): an equality's goal
  /// error, an inequality's distance outside its bounds (0 when it holds).
  GoalError violation;
  /// Inequalities: some quantity lies within the study's tolerance (position
  /// or angle, by the quantity's unit) of one of its finite bounds.
  bool active = false;
};

/// One solve (one frame in trajectory mode).
struct StudyRecord {
  int solver = 0;  ///< index into Study::solvers
  int trial = 0;
  int frame = 0;   ///< 1 … frames in trajectory mode; 0 otherwise
  SolveStatus status = SolveStatus::kNotSolved;
  std::string message;
  /// The solver said converged; the independent check agrees (or, with
  /// Study::accept, that test passed).
  bool claimed = false;
  bool verified = false;
  /// q lies within the problem's bounds (1e-9 slack), whether or not the
  /// study respects the limits.
  bool within_bounds = false;
  double microseconds = 0.0;
  int iterations = 0;
  int evaluations = 0;
  int attempts = 1;
  Eigen::VectorXd q0;
  Eigen::VectorXd q;
  /// Per goal, recomputed from FK at q (not the solver's own numbers).
  std::vector<GoalError> errors;
  /// Per goal, what it asked in this solve (Goal::Parameters() values; in
  /// trajectory mode this frame's target).
  std::vector<std::vector<double>> targets;
  /// Per hard constraint of the problem (equalities, then inequalities).
  std::vector<ConstraintCheck> constraints;
};

/// What the numbers of one goal or hard constraint in the records are: read
/// from trial 0's problem (every trial of a study has the same goal kinds).
struct TermLayout {
  /// Goal::name(), e.g. "position(effector)".
  std::string label;
  /// The GoalError fields that mean something for it (Goal::error_parts()).
  GoalErrorParts error_parts;
  /// Names of StudyRecord::targets (goals) or ConstraintCheck::parameters.
  std::vector<std::string> parameter_names;
  /// Hard constraints: an inequality (else an equality), and the names and
  /// units of its ConstraintCheck::values (BoundedQuantity::name, angular).
  bool inequality = false;
  std::vector<std::string> quantity_names;
  std::vector<bool> quantity_angular;
};

/// Per-solver aggregates.
struct SolverSummary {
  std::string label;
  int solves = 0;
  int successes = 0;
  double success_rate = 0.0;
  /// Time per solve over all solves, failures included (TRAC-IK's
  /// definition), µs.
  double mean_us = 0.0, median_us = 0.0, p95_us = 0.0, p99_us = 0.0;
  double mean_iterations = 0.0;
  /// Medians over all solves of the largest position / angle error (0 when
  /// no goal has that part: TermLayout::error_parts).
  double median_position_error = 0.0;
  double median_angle_error = 0.0;
  /// With hard constraints: median and largest over all solves of the
  /// largest constraint violation recomputed from FK, position-like (model
  /// length units) and angle-like (radians); +∞ for a solve without a usable
  /// pose; 0 without constraints.
  double median_constraint_violation = 0.0, max_constraint_violation = 0.0;
  double median_constraint_angle_violation = 0.0,
         max_constraint_angle_violation = 0.0;
  /// Claimed converged but the independent check disagreed.
  int false_claims = 0;
  /// Solves per final status, by name in alphabetical order, e.g.
  /// {"converged", 97}, {"local minimum", 2}, {"unreachable", 1}: every status
  /// counted apart (a local minimum is not a goal shown out of reach).
  std::vector<std::pair<std::string, int>> statuses;
  /// Non-empty when the solver refused every trial (kInvalidInput): its
  /// message, e.g. "the problem must have exactly one PositionGoal".
  std::string rejected;
  /// Trajectory mode: mean and largest joint step ‖q_k − q_{k−1}‖ between
  /// frames (joint smoothness); 0 otherwise.
  double mean_joint_step = 0.0, max_joint_step = 0.0;
  /// How its trials were solved: "simd-bounded-lm (<instruction set>,
  /// <lanes> lanes)" when the study ran it on the SIMD batch solver through
  /// SolveBatch (its µs per solve are then each trial's share of a chunk's
  /// wall time), else "scalar: " and why the batch solver does not apply.
  std::string method;
};

/// Everything a study run produced.
struct StudyResult {
  std::vector<std::string> goal_labels;
  /// The goals and the hard constraints of trial 0's problem, in the order
  /// of StudyRecord::errors / targets and StudyRecord::constraints.
  std::vector<TermLayout> goals;
  std::vector<TermLayout> constraints;
  std::vector<StudyRecord> records;  ///< solver-major, then trial, then frame
  std::vector<SolverSummary> summaries;
  /// Per solver, the traces of the first Study::traced_trials trials.
  std::vector<std::vector<std::vector<IterationRecord>>> traces;
  /// Per solver, trial 0's poses per frame (frame 0 = start) in trajectory
  /// mode; the start and the answer otherwise.
  std::vector<std::vector<Eigen::VectorXd>> first_trial_poses;
  bool trajectory = false;
  int frames = 0;
  double wall_seconds = 0.0;

  /// The records of solver `s` (in trial, frame order).
  std::vector<const StudyRecord*> Of(int solver) const;
  /// The summary with this label. @throws std::invalid_argument if none.
  const SolverSummary& Summary(const std::string& label) const;
};

/// Runs every solver on every trial (see the file comment). `progress`
/// receives the fraction done and the solver being run.
/// @throws std::invalid_argument from Study::Validate, or naming the trial
///   whose scenario failed.
StudyResult RunStudy(const Study& study,
                     const std::function<void(double, const std::string&)>&
                         progress = {});

/// The standard outputs in out->dir(): trials.csv (per solve: solver, trial,
/// frame, status, success, iterations, evaluations, each goal's errors —
/// only the parts it has — and its targets, each hard constraint's
/// parameters, values, violation and whether it was active, q, µs, and the
/// solver's message), the report's table with a row per solver (also
/// solvers.csv; constraint violations when the study has hard constraints),
/// study.json (the same numbers, and the meaning and unit of every trials.csv
/// column), and pictures: success rates (refused solvers marked), time
/// distributions (CDF, log axis; refused solves left out and named),
/// convergence curves (solvers without a trace named), and in trajectory mode
/// per-frame errors, joint steps and the figure at Study::drawn_frames
/// (planar figures in their plane, 3D ones in two projections). Then the
/// study's claims, if any.
/// @throws std::runtime_error if a file cannot be written or gnuplot fails
///   (the message names the file, or says how to install gnuplot).
void WriteStudyOutputs(const Study& study, const StudyResult& result,
                       ExperimentOutput* out);

/// A registered experiment that builds the study for the run's context
/// (seed, --quick, --threads: `make` decides what quick means, typically
/// fewer trials; the context's seed and threads are applied), runs it and
/// writes its outputs.
Experiment StudyExperiment(std::string name, std::string title,
                           std::string source,
                           std::function<Study(const ExperimentContext&)> make);

}  // namespace iklab

#endif  // IKLAB_LAB_STUDY_H_
