#include "lab/study.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include <Eigen/Geometry>

#include "constraints/aiming_goal.h"
#include "constraints/composite_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/regularizers.h"
#include "constraints/tolerance_goals.h"
#include "solvers/bounded_lm_solver.h"
#include "solvers/ccd_solver.h"
#include "solvers/ceres_solver.h"
#include "solvers/damped_least_squares_solver.h"
#include "solvers/extended_jacobian_solver.h"
#include "solvers/ipopt_solver.h"
#include "solvers/jacobian_transpose_solver.h"
#include "solvers/lbfgsb_solver.h"
#include "solvers/multi_effector_solver.h"
#include "solvers/pseudo_inverse_solver.h"
#include "solvers/slsqp_solver.h"
#include "solvers/tolani_limb_solver.h"
#include "solvers/two_link_analytic.h"
#include "framework/kinematics.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"

namespace iklab {

namespace {

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

// Uniform within the model's limits; unbounded coordinates in (−π, π].
Eigen::VectorXd RandomPose(const Model& model, std::mt19937_64* rng) {
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    const bool bounded = model.bounded(i);
    const double lo = bounded ? model.lower()(i) : -M_PI;
    const double hi = bounded ? model.upper()(i) : M_PI;
    q(i) = std::uniform_real_distribution<double>(lo, hi)(*rng);
  }
  return q;
}

Eigen::VectorXd MidPose(const Model& model) {
  Eigen::VectorXd q = model.MidLimits();
  for (int i = 0; i < q.size(); ++i) {
    if (!std::isfinite(q(i))) q(i) = 0.0;
  }
  return q;
}

Eigen::Vector3d RandomUnitVector(std::mt19937_64* rng) {
  std::normal_distribution<double> normal;
  Eigen::Vector3d v;
  do {
    v = Eigen::Vector3d(normal(*rng), normal(*rng), normal(*rng));
  } while (v.norm() < 1e-6);
  return v.normalized();
}

void CheckSpec(const Model& model, const GoalSpec& spec, bool nested,
               const std::string& where) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(where + " (" + GoalKindName(spec.kind) +
                                "): " + what);
  };
  if (!(spec.weight >= 0.0) || !std::isfinite(spec.weight)) {
    fail("weight must be finite and >= 0, got " + std::to_string(spec.weight));
  }
  const bool composite = spec.kind == GoalKind::kWeightedSum ||
                         spec.kind == GoalKind::kDisjunctive;
  if (composite) {
    if (nested) fail("sums and disjunctions cannot be nested");
    if (spec.parts.empty()) fail("needs at least one part");
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
      CheckSpec(model, spec.parts[i], true,
                where + ", part " + std::to_string(i + 1));
    }
    return;
  }
  bool known = false;
  for (int s = 0; s < model.num_sites(); ++s) known |= model.site_name(s) == spec.site;
  if (!known) {
    std::string sites;
    for (int s = 0; s < model.num_sites(); ++s) {
      sites += (s ? ", " : "") + model.site_name(s);
    }
    fail("unknown site '" + spec.site + "'; the model's sites are: " + sites);
  }
  if (spec.kind == GoalKind::kCone &&
      (!(spec.angle >= 0.0 && spec.angle <= M_PI))) {
    fail("cone angle must be in [0, pi] radians, got " +
         std::to_string(spec.angle));
  }
  if (spec.kind == GoalKind::kPositionBox &&
      (!(spec.tolerance > 0.0) || !std::isfinite(spec.tolerance))) {
    fail("box tolerance must be finite and > 0, got " +
         std::to_string(spec.tolerance));
  }
  if ((spec.kind == GoalKind::kAxis || spec.kind == GoalKind::kAiming ||
       spec.kind == GoalKind::kCone) &&
      (!spec.axis.allFinite() || spec.axis.norm() < 1e-9)) {
    fail("axis must be a finite non-zero vector");
  }
  if (spec.kind == GoalKind::kAiming &&
      (!(spec.distance > 0.0) || !std::isfinite(spec.distance))) {
    fail("aim distance must be finite and > 0, got " +
         std::to_string(spec.distance));
  }
  if (spec.kind == GoalKind::kPose &&
      (!(spec.rotation_weight >= 0.0) || !std::isfinite(spec.rotation_weight))) {
    fail("rotation weight must be finite and >= 0");
  }
}

// A goal met at the pose in `data` (FK has run there).
std::shared_ptr<const Goal> MakeSimpleGoal(const Model& model, const Data& data,
                                           const GoalSpec& spec,
                                           std::mt19937_64* rng) {
  const int site = model.SiteIndex(spec.site);
  const Eigen::Isometry3d X = SitePose(model, data, site);
  const Eigen::Vector3d axis = spec.axis.normalized();
  switch (spec.kind) {
    case GoalKind::kPosition:
      return std::make_shared<PositionGoal>(model, spec.site, X.translation(),
                                            spec.weight);
    case GoalKind::kOrientation:
      return std::make_shared<OrientationGoal>(model, spec.site, X.linear(),
                                               spec.weight);
    case GoalKind::kPose: {
      PositionOrientationScales scales;
      scales.w_o = spec.rotation_weight * spec.rotation_weight;
      return std::make_shared<PositionOrientationGoal>(model, spec.site, X,
                                                       spec.weight, scales);
    }
    case GoalKind::kAxis:
      return std::make_shared<AxisGoal>(model, spec.site, axis,
                                        X.linear() * axis, spec.weight);
    case GoalKind::kAiming:
      return std::make_shared<AimingGoal>(
          model, spec.site, axis,
          X.translation() + spec.distance * (X.linear() * axis), spec.weight);
    case GoalKind::kPlane:
      return std::make_shared<PlaneGoal>(model, spec.site, X.translation(),
                                         RandomUnitVector(rng), spec.weight);
    case GoalKind::kCone:
      return std::make_shared<ConeGoal>(model, spec.site, axis,
                                        X.linear() * axis, spec.angle,
                                        spec.weight);
    case GoalKind::kPositionBox:
      return std::make_shared<PositionBoxGoal>(
          model, spec.site, X, Eigen::Vector3d::Constant(-spec.tolerance),
          Eigen::Vector3d::Constant(spec.tolerance), spec.weight);
    case GoalKind::kWeightedSum:
    case GoalKind::kDisjunctive:
      break;
  }
  throw std::logic_error("MakeSimpleGoal: composite goal kind");
}

std::shared_ptr<const Goal> MakeGoal(const Model& model, const Data& data,
                                     const GoalSpec& spec,
                                     std::mt19937_64* rng) {
  if (spec.kind == GoalKind::kWeightedSum) {
    std::vector<std::shared_ptr<const Goal>> parts;
    for (const GoalSpec& part : spec.parts) {
      parts.push_back(MakeSimpleGoal(model, data, part, rng));
    }
    return std::make_shared<WeightedSumGoal>(std::move(parts), spec.weight);
  }
  if (spec.kind == GoalKind::kDisjunctive) {
    // The first alternative is met at the generating pose; the others at
    // other random poses, so "any one of" has a real choice to make.
    std::vector<std::shared_ptr<const Goal>> parts;
    parts.push_back(MakeSimpleGoal(model, data, spec.parts[0], rng));
    Data other(model);
    for (std::size_t i = 1; i < spec.parts.size(); ++i) {
      ForwardKinematics(model, RandomPose(model, rng), &other);
      parts.push_back(MakeSimpleGoal(model, other, spec.parts[i], rng));
    }
    return std::make_shared<DisjunctiveGoal>(std::move(parts), spec.weight);
  }
  return MakeSimpleGoal(model, data, spec, rng);
}

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
  common.time_budget_seconds = study.time_budget_seconds;
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
      return MidPose(*study.model);
    case StartPose::kRandom: {
      std::mt19937_64 rng(Mix(study.seed, index, kStart));
      return RandomPose(*study.model, &rng);
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
                                    : MidPose(*study.model);
  }
  if (trial.q0.size() != study.model->nq() || !trial.q0.allFinite()) {
    throw std::invalid_argument(
        "study '" + study.name + "', trial " + std::to_string(index) +
        ": the start pose must have " + std::to_string(study.model->nq()) +
        " finite entries");
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
        *study.model, MidPose(*study.model),
        Eigen::VectorXd::Constant(study.model->nq(), reg.joint_centre_bias)));
  }
  return trial;
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
  const Model& model = problem.model();
  if (result.q.size() != model.nq() || !result.q.allFinite()) {
    record->errors.assign(problem.goals().size(), GoalError{});
    for (GoalError& e : record->errors) {
      e.position = e.angle = e.aim = std::numeric_limits<double>::quiet_NaN();
    }
    record->verified = study.accept && study.accept(*record);
    return;
  }
  ProblemWorkspace workspace(problem);
  record->errors = problem.GoalErrors(result.q, &workspace);
  record->within_bounds =
      !study.respect_limits || problem.bounds().Contains(result.q, kBoundsSlack);
  // Hard constraints (if any) must hold too, checked the same way.
  bool constraints_hold = true;
  if (problem.has_constraints()) {
    std::vector<GoalError> constraint_errors;
    problem.ConstraintErrors(result.q, &workspace, &constraint_errors);
    constraints_hold = WithinTolerance(study, constraint_errors);
  }
  record->verified = study.accept ? study.accept(*record)
                                  : record->claimed && record->within_bounds &&
                                        constraints_hold &&
                                        WithinTolerance(study, record->errors);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double rank = p * (v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (rank - lo) * (v[hi] - v[lo]);
}

double MaxPosition(const std::vector<GoalError>& errors) {
  double m = 0.0;
  for (const GoalError& e : errors) m = std::max(m, e.position);
  return m;
}
double MaxAngle(const std::vector<GoalError>& errors) {
  double m = 0.0;
  for (const GoalError& e : errors) m = std::max(m, e.angle);
  return m;
}

SolverSummary Summarize(const Study& study, const StudyResult& result,
                        int solver) {
  SolverSummary s;
  s.label = study.solvers[solver].label;
  std::vector<double> us, position, angle;
  std::map<std::string, int> statuses;
  double iterations = 0.0;
  int invalid = 0;
  std::string first_invalid;
  const Eigen::VectorXd* previous = nullptr;
  double steps = 0.0;
  int step_count = 0;
  for (const StudyRecord* r : result.Of(solver)) {
    ++s.solves;
    s.successes += r->verified;
    s.false_claims += r->claimed && !r->verified;
    us.push_back(r->microseconds);
    position.push_back(MaxPosition(r->errors));
    angle.push_back(MaxAngle(r->errors));
    iterations += r->iterations;
    ++statuses[SolveStatusName(r->status)];
    if (r->status == SolveStatus::kInvalidInput) {
      if (invalid++ == 0) first_invalid = r->message;
    }
    if (result.trajectory) {
      const Eigen::VectorXd& from = r->frame == 1 ? r->q0 : *previous;
      if (r->q.size() == from.size() && r->q.allFinite()) {
        const double step = (r->q - from).norm();
        steps += step;
        s.max_joint_step = std::max(s.max_joint_step, step);
        ++step_count;
      }
      previous = &r->q;
    }
  }
  if (s.solves == 0) return s;
  s.success_rate = static_cast<double>(s.successes) / s.solves;
  s.mean_us = 0.0;
  for (double u : us) s.mean_us += u / s.solves;
  s.median_us = Percentile(us, 0.5);
  s.p95_us = Percentile(us, 0.95);
  s.p99_us = Percentile(us, 0.99);
  s.mean_iterations = iterations / s.solves;
  s.median_position_error = Percentile(position, 0.5);
  s.median_angle_error = Percentile(angle, 0.5);
  for (const auto& [name, count] : statuses) s.statuses.emplace_back(name, count);
  if (invalid == s.solves) s.rejected = first_invalid;
  if (step_count > 0) s.mean_joint_step = steps / step_count;
  return s;
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
    *previous = record.q.size() ? record.q : trial.q0;
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

}  // namespace

const char* GoalKindName(GoalKind kind) {
  switch (kind) {
    case GoalKind::kPosition: return "position";
    case GoalKind::kOrientation: return "orientation";
    case GoalKind::kPose: return "pose";
    case GoalKind::kAxis: return "axis";
    case GoalKind::kAiming: return "aiming";
    case GoalKind::kPlane: return "plane";
    case GoalKind::kWeightedSum: return "weighted-sum";
    case GoalKind::kDisjunctive: return "any-of";
    case GoalKind::kCone: return "cone";
    case GoalKind::kPositionBox: return "position-box";
  }
  return "unknown";
}

const char* StartPoseName(StartPose start) {
  switch (start) {
    case StartPose::kMidLimits: return "mid-limits";
    case StartPose::kRandom: return "random";
    case StartPose::kGiven: return "given";
    case StartPose::kPreviousTrial: return "previous trial";
  }
  return "unknown";
}

GoalSpec GoalSpec::Position(std::string site, double weight) {
  GoalSpec g;
  g.kind = GoalKind::kPosition;
  g.site = std::move(site);
  g.weight = weight;
  return g;
}
GoalSpec GoalSpec::Orientation(std::string site, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kOrientation;
  return g;
}
GoalSpec GoalSpec::Pose(std::string site, double rotation_weight,
                        double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPose;
  g.rotation_weight = rotation_weight;
  return g;
}
GoalSpec GoalSpec::Axis(std::string site, Eigen::Vector3d axis, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kAxis;
  g.axis = axis;
  return g;
}
GoalSpec GoalSpec::Aiming(std::string site, Eigen::Vector3d axis,
                          double distance, double weight) {
  GoalSpec g = Axis(std::move(site), axis, weight);
  g.kind = GoalKind::kAiming;
  g.distance = distance;
  return g;
}
GoalSpec GoalSpec::Plane(std::string site, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPlane;
  return g;
}
GoalSpec GoalSpec::Cone(std::string site, Eigen::Vector3d axis, double angle,
                        double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kCone;
  g.axis = std::move(axis);
  g.angle = angle;
  return g;
}
GoalSpec GoalSpec::PositionBox(std::string site, double tolerance,
                               double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPositionBox;
  g.tolerance = tolerance;
  return g;
}
GoalSpec GoalSpec::WeightedSum(std::vector<GoalSpec> parts, double weight) {
  GoalSpec g;
  g.kind = GoalKind::kWeightedSum;
  g.parts = std::move(parts);
  g.weight = weight;
  return g;
}
GoalSpec GoalSpec::AnyOf(std::vector<GoalSpec> parts, double weight) {
  GoalSpec g = WeightedSum(std::move(parts), weight);
  g.kind = GoalKind::kDisjunctive;
  return g;
}

std::string GoalSpec::Label() const {
  std::string label = GoalKindName(kind);
  if (kind == GoalKind::kWeightedSum || kind == GoalKind::kDisjunctive) {
    label += "(";
    for (std::size_t i = 0; i < parts.size(); ++i) {
      label += (i ? ", " : "") + parts[i].Label();
    }
    return label + ")";
  }
  return label + "(" + site + ")";
}

Scenario RandomTargets(std::vector<GoalSpec> goals) {
  return [goals = std::move(goals)](const TrialContext& context) {
    const Model& model = *context.model;
    Trial trial(context.model);
    trial.q_generator = RandomPose(model, context.rng);
    Data data(model);
    ForwardKinematics(model, trial.q_generator, &data);
    for (const GoalSpec& spec : goals) {
      trial.problem.AddGoal(MakeGoal(model, data, spec, context.rng));
    }
    return trial;
  };
}

Scenario FixedGoals(std::function<void(Problem* problem)> add_goals) {
  if (!add_goals) throw std::invalid_argument("FixedGoals: add_goals is empty");
  return [add_goals = std::move(add_goals)](const TrialContext& context) {
    Trial trial(context.model);
    add_goals(&trial.problem);
    return trial;
  };
}

Scenario HermiteToRandomTarget(std::string site, int frames, bool position_only,
                               double rotation_weight) {
  if (frames < 1) {
    throw std::invalid_argument("HermiteToRandomTarget: frames must be >= 1, got " +
                                std::to_string(frames));
  }
  return [=](const TrialContext& context) {
    if (context.start.size() == 0) {
      throw std::invalid_argument(
          "HermiteToRandomTarget needs a start pose known before solving "
          "(not StartPose::kPreviousTrial)");
    }
    const Model& model = *context.model;
    const int index = model.SiteIndex(site);
    Trial trial(context.model);
    trial.q0 = context.start;
    trial.q_generator = RandomPose(model, context.rng);
    Data data(model);
    ForwardKinematics(model, trial.q0, &data);
    const Eigen::Isometry3d from = SitePose(model, data, index);
    ForwardKinematics(model, trial.q_generator, &data);
    const Eigen::Isometry3d to = SitePose(model, data, index);
    const PointPath curve = HermitePath(from.translation(), to.translation());
    trial.frames = frames;
    if (position_only) {
      auto goal = std::make_shared<PositionGoal>(model, site, from.translation());
      trial.problem.AddGoal(goal);
      trial.path = MovePositionGoal(goal, curve);
      return trial;
    }
    PositionOrientationScales scales;
    scales.w_o = rotation_weight * rotation_weight;
    auto goal = std::make_shared<PositionOrientationGoal>(model, site, from, 1.0,
                                                          scales);
    trial.problem.AddGoal(goal);
    const Eigen::Quaterniond r0(from.linear()), r1(to.linear());
    trial.path = [goal, curve, r0, r1](int, double s, Problem*) {
      // Zero-tangent Hermite easing h01(s) = 3s² − 2s³ for the rotation too.
      const double h = s * s * (3.0 - 2.0 * s);
      Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
      X.linear() = r0.slerp(h, r1).normalized().toRotationMatrix();
      X.translation() = curve(s);
      goal->set_target(X);
    };
    return trial;
  };
}

std::vector<StudySolver> EverySolver() {
  constexpr int kDifferentialIterations = 500;
  auto differential = [](auto options) {
    options.common.max_iterations = kDifferentialIterations;
    return options;
  };
  CeresOptions dogleg;
  dogleg.method = CeresOptions::Method::kDogleg;
  return {
      Use("lbfgsb", LbfgsbOptions{}),
      Use("ceres-lm", CeresOptions{}),
      Use("ceres-dogleg", dogleg),
      Use("bounded-lm", BoundedLmOptions{}),
      Use("slsqp", SlsqpOptions{}),
      Use("ipopt", IpoptOptions{}),
      Use("pseudo-inverse", differential(PseudoInverseOptions{})),
      Use("dls", differential(DampedLeastSquaresOptions{})),
      Use("sdls", differential(SelectivelyDampedOptions{})),
      Use("bounded-dls", differential(BoundedDampedLeastSquaresOptions{})),
      Use("transpose", differential(JacobianTransposeOptions{})),
      Use("ccd", differential(CcdOptions{})),
      Use("control-term", differential(ControlTermOptions{})),
      Use("multi-effector", differential(MultiEffectorOptions{})),
      Use("extended-jacobian", differential(ExtendedJacobianOptions{})),
      Use("two-link", TwoLinkOptions{}),
      Use("tolani", TolaniLimbOptions{}),
  };
}

std::vector<StudySolver> Solvers(const std::vector<std::string>& labels) {
  const std::vector<StudySolver> all = EverySolver();
  std::vector<StudySolver> out;
  for (const std::string& label : labels) {
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const StudySolver& s) { return s.label == label; });
    if (it == all.end()) {
      std::string known;
      for (const StudySolver& s : all) known += (known.empty() ? "" : ", ") + s.label;
      throw std::invalid_argument("Solvers: no solver labelled '" + label +
                                  "'; the known ones are " + known);
    }
    out.push_back(*it);
  }
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
  for (const StudySolver& s : solvers) {
    if (s.label.empty()) fail("a solver has no label");
    if (!s.make) fail("solver '" + s.label + "' has no factory");
    if (!labels.insert(s.label).second) {
      fail("two solvers are labelled '" + s.label + "'");
    }
    if (s.attempts < 1) {
      fail("solver '" + s.label + "': attempts must be >= 1");
    }
  }
  if (trials < 1) fail("trials must be >= 1, got " + std::to_string(trials));
  if (threads < 1) fail("threads must be >= 1, got " + std::to_string(threads));
  if (traced_trials < 0) fail("traced_trials must be >= 0");
  auto check_number = [&](double v, const char* field, bool positive) {
    if (!std::isfinite(v) || v < 0.0 || (positive && v == 0.0)) {
      fail(std::string(field) + " must be finite and " +
           (positive ? "> 0" : ">= 0") + ", got " + std::to_string(v));
    }
  };
  check_number(position_tolerance, "position_tolerance", true);
  check_number(angle_tolerance, "angle_tolerance", true);
  if (!(stop_tolerance_factor > 0.0 && stop_tolerance_factor <= 1.0)) {
    fail("stop_tolerance_factor must be in (0, 1], got " +
         std::to_string(stop_tolerance_factor));
  }
  if (std::isnan(time_budget_seconds) || std::isinf(time_budget_seconds)) {
    fail("time_budget_seconds must be finite (<= 0 for none)");
  }
  check_number(regularization.tikhonov, "regularization.tikhonov", false);
  check_number(regularization.joint_centre_bias,
               "regularization.joint_centre_bias", false);
  if (!scenario && goals.empty()) {
    fail("no goals and no scenario: say what each trial asks for");
  }
  if (!scenario) {
    for (std::size_t i = 0; i < goals.size(); ++i) {
      CheckSpec(*model, goals[i], false, where + ", goal " + std::to_string(i + 1));
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

std::vector<const StudyRecord*> StudyResult::Of(int solver) const {
  std::vector<const StudyRecord*> out;
  for (const StudyRecord& r : records) {
    if (r.solver == solver) out.push_back(&r);
  }
  return out;
}

const SolverSummary& StudyResult::Summary(const std::string& label) const {
  for (const SolverSummary& s : summaries) {
    if (s.label == label) return s;
  }
  throw std::invalid_argument("StudyResult: no solver labelled '" + label + "'");
}

StudyResult RunStudy(const Study& study,
                     const std::function<void(double, const std::string&)>&
                         progress) {
  study.Validate();
  const auto wall_start = std::chrono::steady_clock::now();
  const Scenario scenario =
      study.scenario ? study.scenario : RandomTargets(study.goals);
  const int num_solvers = static_cast<int>(study.solvers.size());
  const bool chained = study.start == StartPose::kPreviousTrial;

  // Work items: (solver, trial) pairs, or whole solvers when each trial
  // starts from the previous answer. Each item writes only its own slot.
  const int items = chained ? num_solvers : num_solvers * study.trials;
  std::vector<std::vector<StudyRecord>> slots(items);
  std::vector<std::vector<Eigen::VectorXd>> first_poses(num_solvers);
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::mutex progress_mutex;
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (int item = next++; item < items; item = next++) {
      try {
        const int s = chained ? item : item / study.trials;
        const int first = chained ? 0 : item % study.trials;
        const int last = chained ? study.trials : first + 1;
        Eigen::VectorXd previous;
        for (int t = first; t < last; ++t) {
          SolveTrial(study, scenario, s, t, &previous, &slots[item],
                     t == 0 ? &first_poses[s] : nullptr);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = items;  // stop handing out work
      }
      const int finished = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        const int s = chained ? item : item / study.trials;
        progress(static_cast<double>(finished) / items,
                 study.solvers[std::min(s, num_solvers - 1)].label);
      }
    }
  };
  const int threads = std::min(study.threads, items);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);

  StudyResult result;
  for (std::vector<StudyRecord>& slot : slots) {
    for (StudyRecord& r : slot) result.records.push_back(std::move(r));
  }
  result.first_trial_poses = std::move(first_poses);
  {
    // Trial 0 once more for its labels, generating pose and trajectory mode.
    const Trial trial0 = MakeTrial(study, scenario, 0, Eigen::VectorXd());
    for (const auto& goal : trial0.problem.goals()) {
      result.goal_labels.push_back(goal->name());
    }
    result.first_generator = trial0.q_generator;
    result.trajectory = trial0.frames > 0;
    result.frames = trial0.frames;
  }
  for (int s = 0; s < num_solvers; ++s) {
    result.summaries.push_back(Summarize(study, result, s));
  }
  // Convergence curves: the first traced trials once more, untimed, traced.
  result.traces.resize(num_solvers);
  if (!result.trajectory) {
    const int traced = std::min(study.traced_trials, study.trials);
    for (int s = 0; s < num_solvers; ++s) {
      Eigen::VectorXd previous;
      for (int t = 0; t < traced; ++t) {
        Trial trial = MakeTrial(study, scenario, t, previous);
        if (chained && t > 0) trial.q0 = result.Of(s)[t - 1]->q;
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
    ForwardKinematics(model, RandomPose(model, &rng), &data);
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

void DrawPictures(const Study& study, const StudyResult& result,
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

  if (!result.trajectory) {
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
    return;
  }

  // Trajectory mode: per-frame error and joint step of trial 0, and the
  // figure at chosen frames.
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

}  // namespace

void WriteStudyOutputs(const Study& study, const StudyResult& result,
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

  WriteTrialsCsv(study, result, out->dir() / "trials.csv");

  const std::string unit = result.trajectory ? "frame" : "solve";
  std::vector<std::vector<std::string>> rows;
  nlohmann::json json = nlohmann::json::array();
  for (const SolverSummary& s : result.summaries) {
    std::string statuses;
    for (const auto& [name, count] : s.statuses) {
      statuses += (statuses.empty() ? "" : "; ") + name + ": " +
                  std::to_string(count);
    }
    if (!s.rejected.empty()) {
      rows.push_back({s.label, "rejected: " + s.rejected, "", "", "", "", "",
                      "", "", "", ""});
    } else {
      rows.push_back({s.label, Percent(s.success_rate), Micro(s.mean_us),
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
  {
    const std::filesystem::path path = out->dir() / "study.json";
    std::ofstream file(path);
    file << nlohmann::json{{"name", study.name},
                           {"title", study.title},
                           {"goals", result.goal_labels},
                           {"solvers", json}}
                .dump(2)
         << "\n";
    if (!file) throw std::runtime_error("cannot write " + path.string());
  }
  DrawPictures(study, result, out);
  if (study.claims) study.claims(result, out);
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
