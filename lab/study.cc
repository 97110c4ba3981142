#include "lab/study.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/regularizers.h"
#include "framework/kinematics.h"
#include "framework/validate.h"
#include "framework/worker_threads.h"
#include "lab/internal/study_helpers.h"
#include "solvers/batch/simd_lm.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/registry.h"

// The study runner (declared in lab/study.h): trials made from their own
// generators, every solver on every trial across the worker threads, each
// answer verified independently of its solver, then the summaries
// (study_statistics.cc) and the convergence traces. The goal specifications
// and scenarios are in study_scenarios.cc.

namespace iklab {

namespace {

using internal::RandomModelPose;

constexpr double kBoundsSlack = 1e-9;

// Independent streams per trial: the scenario's, the start pose's and the
// restarts' generators depend on (seed, trial, stream) only (splitmix64
// finalizer over the combination), never on thread scheduling.
std::uint64_t Mix(std::uint64_t seed, std::uint64_t trial,
                  std::uint64_t stream) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + trial * 0xBF58476D1CE4E5B9ull +
                    stream * 0x94D049BB133111EBull + 0x2545F4914F6CDD1Dull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

enum Stream : std::uint64_t { kScenario = 0, kStart = 1, kRestarts = 2 };

bool WithinTolerance(const Study& study, const std::vector<GoalError>& errors) {
  for (const GoalError& e : errors) {
    // Written so that a NaN is never within tolerance.
    if (!(e.position <= study.position_tolerance) ||
        !(e.angle <= study.angle_tolerance) ||
        !(e.aim <= study.angle_tolerance) || e.degenerate) {
      return false;
    }
  }
  return true;
}

SolveOptions CommonOptions(const Study& study, bool trace) {
  SolveOptions common;
  // Traced re-runs record every iterate (allocating): no budget, so the
  // curve is not cut short where the timed solve was not.
  common.time_budget_seconds = trace ? 0.0 : study.time_budget_seconds;
  common.position_tolerance =
      study.position_tolerance * study.stop_tolerance_factor;
  common.angle_tolerance = study.angle_tolerance * study.stop_tolerance_factor;
  common.respect_limits = study.respect_limits;
  common.record_trace = trace;
  return common;
}

std::unique_ptr<Solver> MakeStudySolver(const Study& study,
                                        const StudySolver& entry,
                                        const Trial& trial, int index,
                                        bool trace) {
  std::unique_ptr<Solver> solver = entry.make(CommonOptions(study, trace), trial);
  if (!solver) {
    throw std::invalid_argument("study '" + study.name + "': solver '" +
                                entry.label + "' made no solver");
  }
  if (entry.attempts <= 1) return solver;
  RestartOptions restarts;
  restarts.max_attempts = entry.attempts;
  restarts.time_budget_seconds = study.time_budget_seconds;
  restarts.seed = Mix(study.seed, index, kRestarts);
  return std::make_unique<RestartSolver>(std::move(solver), restarts);
}

// The start pose a study gives trial `index` (empty for kPreviousTrial).
Eigen::VectorXd StudyStart(const Study& study, int index) {
  switch (study.start) {
    case StartPose::kMidLimits:
      return study.model->MidLimits();
    case StartPose::kRandom: {
      std::mt19937_64 rng(Mix(study.seed, index, kStart));
      return RandomModelPose(*study.model, &rng);
    }
    case StartPose::kGiven:
      return study.given_start;
    case StartPose::kPreviousTrial:
      return {};
  }
  return {};
}

Trial MakeTrial(const Study& study, const Scenario& scenario, int index,
                const Eigen::VectorXd& previous) {
  std::mt19937_64 rng(Mix(study.seed, index, kScenario));
  TrialContext context;
  context.model = study.model;
  context.index = index;
  context.rng = &rng;
  context.start = StudyStart(study, index);
  Trial trial = [&] {
    try {
      return scenario(context);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("study '" + study.name + "', trial " +
                                  std::to_string(index) + ": " + e.what());
    }
  }();
  trial.index = index;
  if (trial.q0.size() == 0) {
    trial.q0 = context.start.size() ? context.start
               : previous.size()    ? previous
                                    : study.model->MidLimits();
  }
  if (trial.q0.size() != study.model->nq() || !trial.q0.allFinite()) {
    throw std::invalid_argument(
        "study '" + study.name + "', trial " + std::to_string(index) +
        ": the start pose must have " + std::to_string(study.model->nq()) +
        " finite entries");
  }
  if (trial.problem.goals().empty() && !study.accept) {
    throw std::invalid_argument(
        "study '" + study.name + "', trial " + std::to_string(index) +
        ": the scenario made a problem without goals (nothing to verify; add "
        "goals, or give Study::accept)");
  }
  if (trial.frames > 0 && !trial.path) {
    throw std::invalid_argument("study '" + study.name + "', trial " +
                                std::to_string(index) +
                                ": trajectory frames without a path");
  }
  const Regularization& reg = study.regularization;
  if (reg.tikhonov > 0.0) {
    trial.problem.AddRegularizer(std::make_shared<TikhonovRegularizer>(
        *study.model, reg.tikhonov, trial.q0));
  }
  if (reg.joint_centre_bias > 0.0) {
    trial.problem.AddRegularizer(std::make_shared<JointCenterBias>(
        *study.model, study.model->MidLimits(),
        Eigen::VectorXd::Constant(study.model->nq(), reg.joint_centre_bias)));
  }
  return trial;
}

std::vector<double> Values(const std::vector<GoalParameter>& parameters) {
  std::vector<double> out;
  out.reserve(parameters.size());
  for (const GoalParameter& p : parameters) out.push_back(p.value);
  return out;
}

// What each goal of `problem` asks for (Goal::Parameters()).
std::vector<std::vector<double>> GoalTargets(const Problem& problem) {
  std::vector<std::vector<double>> out;
  for (const auto& goal : problem.goals()) {
    out.push_back(Values(goal->Parameters()));
  }
  return out;
}

// Some quantity within the study's tolerance (by its unit) of a finite bound.
bool AtABound(const Study& study,
              const std::vector<BoundedQuantity>& quantities) {
  for (const BoundedQuantity& b : quantities) {
    const double tolerance =
        b.angular ? study.angle_tolerance : study.position_tolerance;
    for (const double bound : {b.lower, b.upper}) {
      if (std::isfinite(bound) && std::abs(b.value - bound) <= tolerance) {
        return true;
      }
    }
  }
  return false;
}

// The hard constraints of `problem` at q, recomputed from FK (q usable); with
// no usable pose, their parameters only and NaN violations.
std::vector<ConstraintCheck> CheckConstraints(const Study& study,
                                              const Problem& problem,
                                              const Eigen::VectorXd& q,
                                              bool usable,
                                              ProblemWorkspace* workspace) {
  std::vector<ConstraintCheck> out(problem.equality_constraints().size() +
                                   problem.inequality_constraints().size());
  std::size_t k = 0;
  for (const auto& h : problem.equality_constraints()) {
    out[k++].parameters = Values(h->Parameters());
  }
  for (const auto& c : problem.inequality_constraints()) {
    out[k++].parameters = Values(c->Parameters());
  }
  if (!usable) {
    for (ConstraintCheck& check : out) {
      check.violation.position = check.violation.angle = check.violation.aim =
          std::numeric_limits<double>::quiet_NaN();
    }
    return out;
  }
  std::vector<GoalError> violations;
  problem.ConstraintErrors(q, workspace, &violations);  // runs FK at q
  for (std::size_t i = 0; i < out.size(); ++i) out[i].violation = violations[i];
  k = problem.equality_constraints().size();
  for (const auto& c : problem.inequality_constraints()) {
    const std::vector<BoundedQuantity> quantities =
        c->Quantities(problem.model(), workspace->data(), q);
    for (const BoundedQuantity& b : quantities) {
      out[k].values.push_back(b.value);
    }
    out[k++].active = AtABound(study, quantities);
  }
  return out;
}

// Checks one answer independently of the solver and fills the record.
void Verify(const Study& study, const Problem& problem, const Result& result,
            StudyRecord* record) {
  record->status = result.status;
  record->message = result.message;
  record->iterations = result.iterations;
  record->evaluations = result.function_evaluations;
  record->attempts = result.attempts;
  record->q = result.q;
  record->claimed = result.status == SolveStatus::kConverged;
  record->targets = GoalTargets(problem);
  const Model& model = problem.model();
  ProblemWorkspace workspace(problem);
  if (result.q.size() != model.nq() || !result.q.allFinite()) {
    record->errors.assign(problem.goals().size(), GoalError{});
    for (GoalError& e : record->errors) {
      e.position = e.angle = e.aim = std::numeric_limits<double>::quiet_NaN();
    }
    record->constraints =
        CheckConstraints(study, problem, result.q, false, &workspace);
    record->verified = study.accept && study.accept(*record);
    return;
  }
  record->errors = problem.GoalErrors(result.q, &workspace);
  record->within_bounds = problem.bounds().Contains(result.q, kBoundsSlack);
  // Hard constraints (if any) must hold too, checked the same way.
  record->constraints =
      CheckConstraints(study, problem, result.q, true, &workspace);
  bool constraints_hold = true;
  for (const ConstraintCheck& c : record->constraints) {
    constraints_hold =
        constraints_hold && WithinTolerance(study, {c.violation});
  }
  // Collision goals: the clearance checked again with FCL for every pair
  // (MinDistanceFcl), independently of the goal's own closed forms.
  if (!study.scenario) {
    for (const GoalSpec& spec : study.goals) {
      if (spec.kind != GoalKind::kCollisionFree) continue;
      constraints_hold =
          constraints_hold &&
          MinDistanceFcl(model, *spec.collisions, result.q) >=
              spec.clearance - study.position_tolerance;
    }
  }
  record->verified =
      study.accept ? study.accept(*record)
                   : record->claimed &&
                         (record->within_bounds || !study.respect_limits) &&
                         constraints_hold && WithinTolerance(study, record->errors);
}

// Solves one trial with one solver; appends its records (one per frame).
void SolveTrial(const Study& study, const Scenario& scenario, int solver_index,
                int index, Eigen::VectorXd* previous,
                std::vector<StudyRecord>* records,
                std::vector<Eigen::VectorXd>* poses) {
  const StudySolver& entry = study.solvers[solver_index];
  Trial trial = MakeTrial(study, scenario, index, *previous);
  const std::unique_ptr<Solver> solver =
      MakeStudySolver(study, entry, trial, index, false);
  solver->Prepare(trial.problem);  // set-up outside the timed calls
  using Clock = std::chrono::steady_clock;
  if (poses) poses->push_back(trial.q0);
  if (trial.frames <= 0) {
    StudyRecord record;
    record.solver = solver_index;
    record.trial = index;
    record.q0 = trial.q0;
    const Clock::time_point t0 = Clock::now();
    const Result result = solver->Solve(trial.problem, trial.q0);
    record.microseconds =
        std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    Verify(study, trial.problem, result, &record);
    if (poses) poses->push_back(record.q);
    // The next trial (StartPose::kPreviousTrial) starts from this answer,
    // or from this trial's start if the answer is unusable.
    *previous = record.q.size() == trial.q0.size() && record.q.allFinite()
                    ? record.q
                    : trial.q0;
    records->push_back(std::move(record));
    return;
  }
  // Trajectory mode (as SolveTrajectory, verifying every frame at its own
  // targets): frame k starts from frame k − 1's answer; a frame that was
  // refused (kInvalidInput) hands on the pose it was given.
  Eigen::VectorXd q = trial.q0;
  for (int k = 1; k <= trial.frames; ++k) {
    trial.path(k, static_cast<double>(k) / trial.frames, &trial.problem);
    StudyRecord record;
    record.solver = solver_index;
    record.trial = index;
    record.frame = k;
    record.q0 = q;
    const Clock::time_point t0 = Clock::now();
    const Result result = solver->Solve(trial.problem, q);
    record.microseconds =
        std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    Verify(study, trial.problem, result, &record);
    if (result.status != SolveStatus::kInvalidInput &&
        record.q.size() == q.size() && record.q.allFinite()) {
      q = record.q;
    }
    if (poses) poses->push_back(q);
    records->push_back(std::move(record));
  }
  *previous = q;
}

// Whether solver `s` of the study runs on the SIMD batch solver through
// SolveBatch (solvers/batch_solve.h): "" when it does (then *made is the
// solver, made for trial 0), else why not. It does for the study's own
// random targets of one pose or position goal (every trial the same goal on
// the same site with the same weights, only the target differs), trials not
// chained, no regularizer, no restart wrapper, a BoundedLmSolver and what
// SimdLmApplies accepts (a serial chain of ≤ 8 coordinates, no time budget).
std::string BatchRoute(const Study& study, int s, const Trial& trial0,
                       std::unique_ptr<Solver>* made) {
  const StudySolver& entry = study.solvers[s];
  if (study.scenario) return "the study has a scenario of its own";
  if (study.goals.size() != 1 || (study.goals[0].kind != GoalKind::kPose &&
                                  study.goals[0].kind != GoalKind::kPosition)) {
    return "the trials' goals are not one pose or position goal";
  }
  if (study.start == StartPose::kPreviousTrial) return "trials are chained";
  if (study.regularization.tikhonov > 0.0 ||
      study.regularization.joint_centre_bias > 0.0) {
    return "the study adds regularizers";
  }
  if (entry.attempts > 1) return "the study wraps the solver in restarts";
  if (trial0.frames > 0) return "trajectory trials";
  std::unique_ptr<Solver> solver =
      MakeStudySolver(study, entry, trial0, 0, false);
  const auto* lm = dynamic_cast<const BoundedLmSolver*>(solver.get());
  if (lm == nullptr) return "the solver is " + solver->name() + ", not bounded-lm";
  std::string why;
  if (!SimdLmApplies(trial0.problem, lm->options(), &why)) return why;
  *made = std::move(solver);
  return "";
}

// Solves trials [0, last) of solver `s` as one SolveBatch (BatchRoute said
// it applies): the trials are made and verified on the study's threads, each
// record written to its own slot, as the scalar path does. Returns the
// batch's method (BatchResult::method).
std::string SolveTrialsAsBatch(const Study& study, const Scenario& scenario,
                               int s, int last, const Solver& solver,
                               std::vector<std::vector<StudyRecord>>* slots,
                               std::vector<Eigen::VectorXd>* first_poses) {
  const int nq = study.model->nq();
  const bool pose = study.goals[0].kind == GoalKind::kPose;
  std::vector<Trial> trials;
  trials.reserve(last);
  for (int t = 0; t < last; ++t) trials.emplace_back(study.model);
  // Runs body(t) for t in [0, last) on the study's threads.
  const auto parallel = [&](const std::function<void(int)>& body) {
    std::atomic<int> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    RunWorkerThreads(
        std::max(1, std::min(CheckThreadCount(study.threads, "threads"), last)),
        [&](int) {
          for (int t = next++; t < last; t = next++) {
            try {
              body(t);
            } catch (...) {
              std::lock_guard<std::mutex> lock(error_mutex);
              if (!error) error = std::current_exception();
              next = last;
            }
          }
        },
        [&] { next = last; }, "RunStudy");
    if (error) std::rethrow_exception(error);
  };
  RowMatrixXd targets(last, pose ? 7 : 3);
  RowMatrixXd starts(last, nq);
  parallel([&](int t) {
    trials[t] = MakeTrial(study, scenario, t, Eigen::VectorXd());
    const Goal& goal = *trials[t].problem.goals()[0];
    if (pose) {
      const Eigen::Isometry3d& X =
          static_cast<const PositionOrientationGoal&>(goal).target();
      const Eigen::Quaterniond r(X.linear());
      targets.row(t) << X.translation().transpose(), r.w(), r.x(), r.y(),
          r.z();
    } else {
      targets.row(t) =
          static_cast<const PositionGoal&>(goal).target().transpose();
    }
    starts.row(t) = trials[t].q0.transpose();
  });
  BatchOptions options;
  options.threads = study.threads;
  const BatchResult batch =
      SolveBatch(solver, trials[0].problem, targets, starts, options);
  parallel([&](int t) {
    StudyRecord record;
    record.solver = s;
    record.trial = t;
    record.q0 = trials[t].q0;
    record.microseconds = batch.microseconds[t];
    Result result;
    result.status = batch.status[t];
    result.q = batch.q.row(t).transpose();
    result.iterations = batch.iterations[t];
    Verify(study, trials[t].problem, result, &record);
    (*slots)[static_cast<std::size_t>(s) * study.trials + t].push_back(
        std::move(record));
  });
  first_poses->push_back(trials[0].q0);
  first_poses->push_back((*slots)[static_cast<std::size_t>(s) * study.trials]
                             .front()
                             .q);
  return batch.method;
}

TermLayout Layout(const Goal& goal) {
  TermLayout layout;
  layout.label = goal.name();
  layout.error_parts = goal.error_parts();
  for (const GoalParameter& p : goal.Parameters()) {
    layout.parameter_names.push_back(p.name);
  }
  return layout;
}

// The goals' and hard constraints' layouts from trial 0's problem (the
// quantities' names at its start pose: names do not depend on the pose).
void SetLayout(const Trial& trial0, StudyResult* result) {
  const Problem& problem = trial0.problem;
  for (const auto& goal : problem.goals()) {
    result->goals.push_back(Layout(*goal));
  }
  for (const auto& h : problem.equality_constraints()) {
    result->constraints.push_back(Layout(*h));
  }
  if (problem.inequality_constraints().empty()) return;
  Data data(problem.model());
  ForwardKinematics(problem.model(), trial0.q0, &data);
  for (const auto& c : problem.inequality_constraints()) {
    TermLayout layout = Layout(*c);
    layout.inequality = true;
    for (const BoundedQuantity& b :
         c->Quantities(problem.model(), data, trial0.q0)) {
      layout.quantity_names.push_back(b.name);
      layout.quantity_angular.push_back(b.angular);
    }
    result->constraints.push_back(std::move(layout));
  }
}

}  // namespace

namespace internal {

Scenario StudyScenario(const Study& study) {
  return study.scenario ? study.scenario : RandomTargets(study.goals);
}

Trial MakeStudyTrial(const Study& study, int index,
                     const Eigen::VectorXd& previous) {
  return MakeTrial(study, StudyScenario(study), index, previous);
}

}  // namespace internal

const char* StartPoseName(StartPose start) {
  switch (start) {
    case StartPose::kMidLimits: return "mid-limits";
    case StartPose::kRandom: return "random";
    case StartPose::kGiven: return "given";
    case StartPose::kPreviousTrial: return "previous trial";
  }
  return "unknown";
}

StudySolver Use(const SolverEntry& entry, int attempts) {
  // The entry's own iteration cap (500 for differential methods), the
  // study's other common settings.
  const int max_iterations = entry.defaults.max_iterations;
  return {entry.name,
          [make = entry.make, max_iterations](const SolveOptions& common,
                                              const Trial&) {
            SolveOptions o = common;
            o.max_iterations = max_iterations;
            return make(o);
          },
          attempts};
}

std::vector<StudySolver> EverySolver() {
  std::vector<StudySolver> out;
  for (const SolverEntry& entry : SolverRegistry()) out.push_back(Use(entry));
  return out;
}

std::vector<StudySolver> Solvers(const std::vector<std::string>& labels) {
  std::vector<StudySolver> out;
  for (const std::string& label : labels) out.push_back(Use(SolverNamed(label)));
  return out;
}

void Study::Validate() const {
  const std::string where = "study '" + name + "'";
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(where + ": " + what);
  };
  if (name.empty()) throw std::invalid_argument("study: give it a name");
  if (!model) fail("no model (set Study::model)");
  if (solvers.empty()) fail("no solvers (add entries to Study::solvers)");
  std::set<std::string> labels;
  for (std::size_t i = 0; i < solvers.size(); ++i) {
    const StudySolver& s = solvers[i];
    if (s.label.empty()) {
      fail("solvers[" + std::to_string(i) + "] has no label (give each one)");
    }
    if (!s.make) fail("solver '" + s.label + "' has no factory");
    if (!labels.insert(s.label).second) {
      fail("two solvers are labelled '" + s.label + "'");
    }
    if (s.max_trials < 0) {
      fail("solver '" + s.label + "': max_trials must be >= 0 (0: all), got " +
           std::to_string(s.max_trials));
    }
    if (s.attempts < 1) {
      fail("solver '" + s.label + "': attempts must be >= 1");
    }
  }
  // The library's one rule per input kind (framework/validate.h), with this
  // study's name in front.
  auto rule = [&](const auto& check) {
    try {
      check();
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  };
  if (trials < 1) fail("trials must be >= 1, got " + std::to_string(trials));
  rule([&] {
    CheckItemCount(static_cast<std::int64_t>(trials) *
                       static_cast<std::int64_t>(solvers.size()),
                   "trials x solvers (" + std::to_string(trials) + " x " +
                       std::to_string(solvers.size()) +
                       "); lower trials");
  });
  rule([&] { CheckThreadCount(threads, "threads"); });
  if (traced_trials < 0) {
    fail("traced_trials must be >= 0, got " + std::to_string(traced_trials));
  }
  auto check_number = [&](double v, const char* field, bool positive) {
    if (!std::isfinite(v) || v < 0.0 || (positive && v == 0.0)) {
      fail(std::string(field) + " must be finite and " +
           (positive ? "> 0" : ">= 0") + ", got " + std::to_string(v));
    }
  };
  rule([&] { CheckTolerance(position_tolerance, "position_tolerance"); });
  rule([&] { CheckTolerance(angle_tolerance, "angle_tolerance"); });
  if (!(stop_tolerance_factor > 0.0 && stop_tolerance_factor <= 1.0)) {
    fail("stop_tolerance_factor must be in (0, 1], got " +
         std::to_string(stop_tolerance_factor));
  }
  rule([&] { CheckTimeBudget(time_budget_seconds, "time_budget_seconds"); });
  check_number(regularization.tikhonov, "regularization.tikhonov", false);
  check_number(regularization.joint_centre_bias,
               "regularization.joint_centre_bias", false);
  if (!scenario && goals.empty()) {
    fail("no goals and no scenario: say what each trial asks for");
  }
  if (!scenario) {
    for (std::size_t i = 0; i < goals.size(); ++i) {
      internal::CheckGoalSpec(*model, goals[i], false,
                              where + ", goal " + std::to_string(i + 1));
    }
  }
  if (start == StartPose::kGiven) {
    if (given_start.size() != model->nq()) {
      fail("given_start must have " + std::to_string(model->nq()) +
           " entries (one per coordinate), got " +
           std::to_string(given_start.size()));
    }
    for (int i = 0; i < given_start.size(); ++i) {
      if (!std::isfinite(given_start(i))) {
        fail("given_start has a non-finite entry at coordinate " +
             std::to_string(i) + " (" + model->dof_name(i) + ")");
      }
    }
  }
}

StudyResult RunStudy(const Study& study,
                     const std::function<void(double, const std::string&)>&
                         progress) {
  study.Validate();
  const auto wall_start = std::chrono::steady_clock::now();
  const Scenario scenario = internal::StudyScenario(study);
  const int num_solvers = static_cast<int>(study.solvers.size());
  const bool chained = study.start == StartPose::kPreviousTrial;

  // Work items: (solver, trial) pairs, or whole solvers when each trial
  // starts from the previous answer. Each item writes only its own slot.
  const int items = chained ? num_solvers : num_solvers * study.trials;
  std::vector<std::vector<StudyRecord>> slots(items);
  std::vector<std::vector<Eigen::VectorXd>> first_poses(num_solvers);

  // The solvers that run on the SIMD batch solver (BatchRoute), each as
  // one batch; the others solve trial by trial below. `methods` says which
  // ran how (SolverSummary::method).
  std::vector<std::string> methods(num_solvers);
  std::vector<std::unique_ptr<Solver>> batched(num_solvers);
  {
    const Trial trial0 = MakeTrial(study, scenario, 0, Eigen::VectorXd());
    for (int s = 0; s < num_solvers; ++s) {
      const std::string why = BatchRoute(study, s, trial0, &batched[s]);
      if (!why.empty()) methods[s] = "scalar: " + why;
    }
  }
  for (int s = 0; s < num_solvers; ++s) {
    if (!batched[s]) continue;
    const int cap = study.solvers[s].max_trials > 0
                        ? std::min(study.solvers[s].max_trials, study.trials)
                        : study.trials;
    methods[s] = SolveTrialsAsBatch(study, scenario, s, cap, *batched[s],
                                    &slots, &first_poses[s]);
  }
  int batched_items = 0;
  for (int s = 0; s < num_solvers; ++s) {
    if (batched[s]) batched_items += study.trials;
  }
  std::atomic<int> next{0};
  int done = batched_items;  // guarded by progress_mutex
  std::mutex progress_mutex;
  std::exception_ptr error;
  std::mutex error_mutex;
  // The scenario, the solver factories, the solvers and `progress` are called
  // from these threads (study.h says so); every item writes only its slot.
  // Any exception (from a scenario, a factory or `progress`) stops the hand-
  // out and is rethrown on the calling thread once all threads have joined.
  auto worker = [&] {
    for (int item = next++; item < items; item = next++) {
      try {
        const int s = chained ? item : item / study.trials;
        if (batched[s]) continue;  // solved above
        const int first = chained ? 0 : item % study.trials;
        const int cap = study.solvers[s].max_trials > 0
                            ? study.solvers[s].max_trials
                            : study.trials;
        const int last = std::min(chained ? study.trials : first + 1, cap);
        Eigen::VectorXd previous;
        for (int t = first; t < last; ++t) {
          SolveTrial(study, scenario, s, t, &previous, &slots[item],
                     t == 0 ? &first_poses[s] : nullptr);
        }
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++done;  // under the lock, so reports never go backwards
        if (progress) {
          progress(static_cast<double>(done) / items, study.solvers[s].label);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = items;  // stop handing out work
      }
    }
  };
  // Capped at MaxWorkerThreads() and at the items; the worker never throws
  // (errors are stored), a thread the system refuses is an error.
  RunWorkerThreads(
      std::max(1, std::min(CheckThreadCount(study.threads, "threads"), items)),
      [&](int) { worker(); }, [&] { next = items; }, "RunStudy");
  if (error) std::rethrow_exception(error);

  StudyResult result;
  for (std::vector<StudyRecord>& slot : slots) {
    for (StudyRecord& r : slot) result.records.push_back(std::move(r));
  }
  result.first_trial_poses = std::move(first_poses);
  {
    // Trial 0 once more for its goal labels and trajectory mode.
    const Trial trial0 = MakeTrial(study, scenario, 0, Eigen::VectorXd());
    for (const auto& goal : trial0.problem.goals()) {
      result.goal_labels.push_back(goal->name());
    }
    SetLayout(trial0, &result);
    result.trajectory = trial0.frames > 0;
    result.frames = trial0.frames;
  }
  for (int s = 0; s < num_solvers; ++s) {
    result.summaries.push_back(internal::SummarizeSolver(study, result, s));
    result.summaries.back().method = methods[s];
  }
  // Convergence curves: the first traced trials once more, untimed, traced.
  result.traces.resize(num_solvers);
  if (!result.trajectory) {
    const int traced = std::min(study.traced_trials, study.trials);
    for (int s = 0; s < num_solvers; ++s) {
      const std::vector<const StudyRecord*> records = result.Of(s);
      for (int t = 0; t < std::min<int>(traced, records.size()); ++t) {
        // The same trial as timed: chained trials start where they did.
        Trial trial = MakeTrial(study, scenario, t,
                                chained ? records[t]->q0 : Eigen::VectorXd());
        const auto solver = MakeStudySolver(study, study.solvers[s], trial, t,
                                            /*trace=*/true);
        result.traces[s].push_back(solver->Solve(trial.problem, trial.q0).trace);
      }
    }
  }
  result.wall_seconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - wall_start)
                            .count();
  return result;
}

Experiment StudyExperiment(std::string name, std::string title,
                           std::string source,
                           std::function<Study(const ExperimentContext&)> make) {
  if (!make) throw std::invalid_argument("StudyExperiment: make is empty");
  Experiment experiment;
  experiment.name = name;
  experiment.title = title;
  experiment.source = std::move(source);
  experiment.run = [name, title, make = std::move(make)](
                       const ExperimentContext& context, ExperimentOutput* out) {
    Study study = make(context);
    if (study.name.empty()) study.name = name;
    if (study.title.empty()) study.title = title;
    study.seed = context.seed;
    study.threads = context.threads;
    const StudyResult result = RunStudy(study, context.progress);
    WriteStudyOutputs(study, result, out);
  };
  return experiment;
}

}  // namespace iklab
