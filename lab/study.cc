#include "lab/study.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
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
#include "constraints/distance_goals.h"
#include "constraints/joint_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/regularizers.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/kinematics.h"
#include "lab/internal/study_helpers.h"
#include "solvers/registry.h"

namespace iklab {

namespace {

using internal::MaxAngle;
using internal::MaxPosition;
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
  const GoalKind kind = spec.kind;
  const bool joint_goal =
      kind == GoalKind::kJointRange || kind == GoalKind::kJointPosture;
  const auto check_site = [&](const std::string& site, const char* field) {
    for (int s = 0; s < model.num_sites(); ++s) {
      if (model.site_name(s) == site) return;
    }
    std::string sites;
    for (int s = 0; s < model.num_sites(); ++s) {
      sites += (s ? ", " : "") + model.site_name(s);
    }
    fail(std::string("unknown ") + field + " '" + site +
         "'; the model's sites are: " + sites);
  };
  if (!joint_goal) check_site(spec.site, "site");
  if (kind == GoalKind::kSiteDistance || kind == GoalKind::kRelativePose) {
    check_site(spec.other_site, "other_site");
    if (spec.other_site == spec.site) {
      fail("site and other_site must differ; both are '" + spec.site + "'");
    }
  }
  const auto positive = [&](double value, const std::string& what) {
    if (!(value > 0.0) || !std::isfinite(value)) {
      fail(what + " must be finite and > 0, got " + std::to_string(value));
    }
  };
  if ((kind == GoalKind::kCone || kind == GoalKind::kGaze) &&
      (!(spec.angle >= 0.0 && spec.angle <= M_PI))) {
    fail("cone angle must be in [0, pi] radians, got " +
         std::to_string(spec.angle));
  }
  if (kind == GoalKind::kOrientationBox &&
      !(spec.angle > 0.0 && spec.angle < M_PI)) {
    fail("orientation box half-width (angle) must be in (0, pi) radians, "
         "got " +
         std::to_string(spec.angle));
  }
  if (kind == GoalKind::kJointRange) positive(spec.angle, "joint range half-width (angle)");
  if (kind == GoalKind::kPositionBox) positive(spec.tolerance, "box tolerance");
  if (kind == GoalKind::kPointDistance || kind == GoalKind::kSiteDistance) {
    positive(spec.tolerance, "distance tolerance");
  }
  if ((kind == GoalKind::kAxis || kind == GoalKind::kAiming ||
       kind == GoalKind::kCone || kind == GoalKind::kGaze) &&
      (!spec.axis.allFinite() || spec.axis.norm() < 1e-9)) {
    fail("axis must be a finite non-zero vector");
  }
  if (kind == GoalKind::kAiming || kind == GoalKind::kGaze) {
    positive(spec.distance, "aim distance");
  }
  if (kind == GoalKind::kPointDistance) positive(spec.distance, "distance");
  if (kind == GoalKind::kPose &&
      (!(spec.rotation_weight >= 0.0) || !std::isfinite(spec.rotation_weight))) {
    fail("rotation weight must be finite and >= 0, got " +
         std::to_string(spec.rotation_weight));
  }
  if (kind == GoalKind::kRelativePose) {
    positive(spec.rotation_weight, "rotation weight (length per radian)");
  }
  if (joint_goal) {
    std::set<int> seen;
    for (const int c : spec.coordinates) {
      if (c < 0 || c >= model.nq()) {
        fail("coordinate " + std::to_string(c) + " is outside [0, " +
             std::to_string(model.nq()) + ")");
      }
      if (!seen.insert(c).second) {
        fail("coordinate " + std::to_string(c) + " is listed twice");
      }
    }
  }
}

// The coordinates of a joint goal: the spec's, or every coordinate.
std::vector<int> JointCoordinates(const Model& model, const GoalSpec& spec) {
  if (!spec.coordinates.empty()) return spec.coordinates;
  std::vector<int> all(model.nq());
  for (int i = 0; i < model.nq(); ++i) all[i] = i;
  return all;
}

// A goal met at the pose q, whose FK is in `data`.
std::shared_ptr<const Goal> MakeSimpleGoal(const Model& model,
                                           const Eigen::VectorXd& q,
                                           const Data& data,
                                           const GoalSpec& spec,
                                           std::mt19937_64* rng) {
  if (spec.kind == GoalKind::kJointRange || spec.kind == GoalKind::kJointPosture) {
    const std::vector<int> coordinates = JointCoordinates(model, spec);
    Eigen::VectorXd at(coordinates.size());
    for (std::size_t i = 0; i < coordinates.size(); ++i) at[i] = q[coordinates[i]];
    if (spec.kind == GoalKind::kJointPosture) {
      return std::make_shared<JointPostureGoal>(model, coordinates, at,
                                                spec.weight);
    }
    return std::make_shared<JointRangeGoal>(
        model, coordinates, at.array() - spec.angle, at.array() + spec.angle,
        spec.weight);
  }
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
    case GoalKind::kGaze:
      return std::make_shared<GazeGoal>(
          model, spec.site, axis,
          X.translation() + spec.distance * (X.linear() * axis), spec.angle,
          spec.weight);
    case GoalKind::kOrientationBox:
      return std::make_shared<OrientationBoxGoal>(
          model, spec.site, X.linear(), Eigen::Vector3d::Constant(-spec.angle),
          Eigen::Vector3d::Constant(spec.angle), spec.weight);
    case GoalKind::kPointDistance:
      return std::make_shared<PointDistanceGoal>(
          model, spec.site,
          X.translation() + spec.distance * RandomUnitVector(rng),
          std::max(0.0, spec.distance - spec.tolerance),
          spec.distance + spec.tolerance, spec.weight);
    case GoalKind::kSiteDistance: {
      const double d =
          (X.translation() -
           SitePose(model, data, model.SiteIndex(spec.other_site)).translation())
              .norm();
      return std::make_shared<SiteDistanceGoal>(
          model, spec.site, spec.other_site, std::max(0.0, d - spec.tolerance),
          d + spec.tolerance, spec.weight);
    }
    case GoalKind::kRelativePose: {
      // B = site held in the frame of A = other_site.
      const Eigen::Isometry3d X_AB =
          SitePose(model, data, model.SiteIndex(spec.other_site)).inverse() * X;
      RelativePoseParts parts;
      parts.orientation = !spec.position_only;
      parts.length_per_radian = spec.rotation_weight;
      return std::make_shared<RelativePoseGoal>(model, spec.other_site,
                                                spec.site, X_AB, spec.weight,
                                                parts);
    }
    case GoalKind::kJointRange:
    case GoalKind::kJointPosture:
    case GoalKind::kWeightedSum:
    case GoalKind::kDisjunctive:
      break;
  }
  throw std::logic_error("MakeSimpleGoal: composite or joint goal kind");
}

std::shared_ptr<const Goal> MakeGoal(const Model& model,
                                     const Eigen::VectorXd& q, const Data& data,
                                     const GoalSpec& spec,
                                     std::mt19937_64* rng) {
  if (spec.kind == GoalKind::kWeightedSum) {
    std::vector<std::shared_ptr<const Goal>> parts;
    for (const GoalSpec& part : spec.parts) {
      parts.push_back(MakeSimpleGoal(model, q, data, part, rng));
    }
    return std::make_shared<WeightedSumGoal>(std::move(parts), spec.weight);
  }
  if (spec.kind == GoalKind::kDisjunctive) {
    // The first alternative is met at the generating pose; the others at
    // other random poses, so "any one of" has a real choice to make.
    std::vector<std::shared_ptr<const Goal>> parts;
    parts.push_back(MakeSimpleGoal(model, q, data, spec.parts[0], rng));
    Data other(model);
    for (std::size_t i = 1; i < spec.parts.size(); ++i) {
      const Eigen::VectorXd q_other = RandomModelPose(model, rng);
      ForwardKinematics(model, q_other, &other);
      parts.push_back(MakeSimpleGoal(model, q_other, other, spec.parts[i], rng));
    }
    return std::make_shared<DisjunctiveGoal>(std::move(parts), spec.weight);
  }
  return MakeSimpleGoal(model, q, data, spec, rng);
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
  record->within_bounds = problem.bounds().Contains(result.q, kBoundsSlack);
  // Hard constraints (if any) must hold too, checked the same way.
  bool constraints_hold = true;
  if (problem.has_constraints()) {
    std::vector<GoalError> constraint_errors;
    problem.ConstraintErrors(result.q, &workspace, &constraint_errors);
    constraints_hold = WithinTolerance(study, constraint_errors);
  }
  record->verified =
      study.accept ? study.accept(*record)
                   : record->claimed &&
                         (record->within_bounds || !study.respect_limits) &&
                         constraints_hold && WithinTolerance(study, record->errors);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double rank = p * (v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (rank - lo) * (v[hi] - v[lo]);
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
    if (result.trajectory && r->q.size() == r->q0.size() &&
        r->q.allFinite() && r->q0.allFinite()) {
      // The step this frame took from the pose it started at.
      const double step = (r->q - r->q0).norm();
      steps += step;
      s.max_joint_step = std::max(s.max_joint_step, step);
      ++step_count;
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
    case GoalKind::kGaze: return "gaze";
    case GoalKind::kOrientationBox: return "orientation-box";
    case GoalKind::kPointDistance: return "distance";
    case GoalKind::kSiteDistance: return "site-distance";
    case GoalKind::kRelativePose: return "relative-pose";
    case GoalKind::kJointRange: return "joint-range";
    case GoalKind::kJointPosture: return "joint-posture";
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
GoalSpec GoalSpec::Gaze(std::string site, Eigen::Vector3d axis, double angle,
                        double distance, double weight) {
  GoalSpec g = Cone(std::move(site), std::move(axis), angle, weight);
  g.kind = GoalKind::kGaze;
  g.distance = distance;
  return g;
}
GoalSpec GoalSpec::OrientationBox(std::string site, double angle,
                                  double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kOrientationBox;
  g.angle = angle;
  return g;
}
GoalSpec GoalSpec::PointDistance(std::string site, double distance,
                                 double tolerance, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kPointDistance;
  g.distance = distance;
  g.tolerance = tolerance;
  return g;
}
GoalSpec GoalSpec::SiteDistance(std::string site, std::string other_site,
                                double tolerance, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kSiteDistance;
  g.other_site = std::move(other_site);
  g.tolerance = tolerance;
  return g;
}
GoalSpec GoalSpec::RelativePose(std::string site, std::string other_site,
                                double rotation_weight, double weight) {
  GoalSpec g = Position(std::move(site), weight);
  g.kind = GoalKind::kRelativePose;
  g.other_site = std::move(other_site);
  g.rotation_weight = rotation_weight;
  return g;
}
GoalSpec GoalSpec::RelativePosition(std::string site, std::string other_site,
                                    double weight) {
  GoalSpec g = RelativePose(std::move(site), std::move(other_site), 1.0, weight);
  g.position_only = true;
  return g;
}
GoalSpec GoalSpec::JointRange(std::vector<int> coordinates, double angle,
                              double weight) {
  GoalSpec g;
  g.kind = GoalKind::kJointRange;
  g.coordinates = std::move(coordinates);
  g.angle = angle;
  g.weight = weight;
  return g;
}
GoalSpec GoalSpec::JointPosture(std::vector<int> coordinates, double weight) {
  GoalSpec g = JointRange(std::move(coordinates), 0.1, weight);
  g.kind = GoalKind::kJointPosture;
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
  if (kind == GoalKind::kJointRange || kind == GoalKind::kJointPosture) {
    if (coordinates.empty()) return label + "(all)";
    label += "(";
    for (std::size_t i = 0; i < coordinates.size(); ++i) {
      label += (i ? "," : "") + std::to_string(coordinates[i]);
    }
    return label + ")";
  }
  if (kind == GoalKind::kRelativePose) {
    return (position_only ? "relative-position(" : "relative-pose(") + site +
           " in " + other_site + ")";
  }
  if (kind == GoalKind::kSiteDistance) {
    return label + "(" + site + ", " + other_site + ")";
  }
  return label + "(" + site + ")";
}

Scenario RandomTargets(std::vector<GoalSpec> goals) {
  return [goals = std::move(goals)](const TrialContext& context) {
    const Model& model = *context.model;
    Trial trial(context.model);
    trial.q_generator = RandomModelPose(model, context.rng);
    Data data(model);
    ForwardKinematics(model, trial.q_generator, &data);
    for (const GoalSpec& spec : goals) {
      trial.problem.AddGoal(
          MakeGoal(model, trial.q_generator, data, spec, context.rng));
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
    trial.q_generator = RandomModelPose(model, context.rng);
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
  if (trials < 1) fail("trials must be >= 1, got " + std::to_string(trials));
  if (threads < 1) fail("threads must be >= 1, got " + std::to_string(threads));
  if (traced_trials < 0) {
    fail("traced_trials must be >= 0, got " + std::to_string(traced_trials));
  }
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
  int done = 0;  // guarded by progress_mutex
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
  {
    const int threads = std::min(study.threads, items);
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();  // never throws: errors are stored
    for (std::thread& t : pool) t.join();
  }
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
