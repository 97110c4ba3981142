#include "experiments/tolani/arm_trials.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "constraints/aiming_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "solvers/ceres_solver.h"
#include "solvers/damped_least_squares_solver.h"
#include "solvers/ipopt_solver.h"
#include "solvers/lbfgsb_solver.h"
#include "solvers/pseudo_inverse_solver.h"
#include "solvers/restarts.h"
#include "solvers/slsqp_solver.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/trajectory.h"

namespace iklab {
namespace tolani {

namespace {

// Angle between unit vectors, accurate near 0 (acos is not).
double AngleBetween(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

Problem MakeProblem(const ArmSetup& arm, Task task, const Trial& trial) {
  const Model& model = *arm.model;
  const std::string& site = arm.geometry.tip_site_name;
  Problem problem(arm.model);
  switch (task) {
    case Task::kPosition:
      problem.AddGoal(std::make_shared<PositionGoal>(model, site,
                                                     trial.goal.translation()));
      break;
    case Task::kPose:
      problem.AddGoal(
          std::make_shared<PositionOrientationGoal>(model, site, trial.goal));
      break;
    case Task::kPartial:
      problem.AddGoal(std::make_shared<PositionGoal>(model, site,
                                                     trial.goal.translation()));
      problem.AddGoal(std::make_shared<AxisGoal>(
          model, site, Eigen::Vector3d::UnitZ(), trial.goal.linear().col(2)));
      break;
    case Task::kAiming:
      problem.AddGoal(std::make_shared<AimingGoal>(
          model, site, Eigen::Vector3d::UnitX(), trial.aim_target));
      break;
  }
  return problem;
}

}  // namespace

ArmSetup::ArmSetup()
    : geometry(TolaniArmGeometry()),
      model(std::make_shared<const Model>(LimbFigure(geometry).Compile())),
      hand(model->SiteIndex(geometry.tip_site_name)),
      shoulder(model->SiteIndex(geometry.s1_name)),
      reach(geometry.upper_length + geometry.lower_length +
            geometry.p_S2_tip.norm()) {}

Eigen::VectorXd ArmSetup::RandomPose(std::mt19937_64* rng) const {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd q(7);
  for (int i = 0; i < 7; ++i) {
    q[i] = geometry.lower[i] + (geometry.upper[i] - geometry.lower[i]) * u(*rng);
  }
  return q;
}

Eigen::Isometry3d ArmSetup::HandPose(const Eigen::VectorXd& q) const {
  Data data(*model);
  ForwardKinematics(*model, q, &data);
  return SitePose(*model, data, hand);
}

Trial ArmSetup::RandomTrial(std::mt19937_64* rng) const {
  Trial trial;
  trial.q_goal = RandomPose(rng);
  trial.q_start = RandomPose(rng);
  trial.goal = HandPose(trial.q_goal);
  trial.aim_target = trial.goal.translation() +
                     kAimDistance * trial.goal.linear().col(0);
  return trial;
}

Trial ArmSetup::UnreachableTrial(std::mt19937_64* rng) const {
  Trial trial = RandomTrial(rng);
  Data data(*model);
  ForwardKinematics(*model, trial.q_goal, &data);
  const Eigen::Vector3d s = SitePosition(*model, data, shoulder);
  const Eigen::Vector3d d = (trial.goal.translation() - s).normalized();
  std::uniform_real_distribution<double> factor(1.1, 1.4);
  trial.goal.translation() = s + factor(*rng) * reach * d;
  return trial;
}

Outcome Evaluate(const ArmSetup& arm, Task task, const Trial& trial,
                 const Eigen::VectorXd& q, bool limits) {
  Outcome outcome;
  const Eigen::Isometry3d X = arm.HandPose(q);
  if (task != Task::kAiming) {
    outcome.position_error =
        (X.translation() - trial.goal.translation()).norm();
  }
  switch (task) {
    case Task::kPosition:
      break;
    case Task::kPose: {
      const Eigen::Quaterniond a(trial.goal.linear()), b(X.linear());
      // Clamped: rounding can make |q_goal . q| exceed 1 by an ulp.
      outcome.orientation_error =
          std::max(0.0, 1.0 - std::abs(a.normalized().dot(b.normalized())));
      outcome.angle =
          Eigen::AngleAxisd(trial.goal.linear().transpose() * X.linear())
              .angle();
      break;
    }
    case Task::kPartial: {
      const Eigen::Vector3d a = X.linear().col(2);
      const Eigen::Vector3d g = trial.goal.linear().col(2);
      outcome.orientation_error = std::pow(1.0 - a.dot(g), 2);
      outcome.angle = AngleBetween(a, g);
      break;
    }
    case Task::kAiming: {
      const Eigen::Vector3d v = X.linear().col(0);
      const Eigen::Vector3d u =
          (trial.aim_target - X.translation()).normalized();
      outcome.orientation_error = std::pow(1.0 - u.dot(v), 2);
      outcome.angle = AngleBetween(u, v);
      break;
    }
  }
  outcome.within_limits = !limits || arm.model->WithinLimits(q, 1e-9);
  outcome.success = outcome.position_error <= kSuccessPosition &&
                    outcome.angle <= kSuccessAngle && outcome.within_limits;
  return outcome;
}

std::vector<Method> Methods(Task task, bool limits,
                            bool inverse_jacobian) {
  std::vector<Method> methods;
  TolaniLimbOptions analytic;
  const bool held_wrist = task == Task::kPosition || task == Task::kAiming;
  methods.push_back(
      {{"analytic (ours, IKAN)",
        [analytic, held_wrist](const SolveOptions& common,
                               const iklab::Trial& trial) {
          TolaniLimbOptions options = analytic;
          options.common = common;
          if (held_wrist) {
            options.wrist = TolaniLimbOptions::WristAngles::kGiven;
            options.wrist_angles = trial.q_generator.tail<3>();
          }
          return MakeSolver(options);
        },
        1},
       Family::kAnalytic});
  methods.push_back({Use("L-BFGS-B", LbfgsbOptions{}, kOptimizerAttempts),
                     Family::kOptimization});
  methods.push_back({Use("Ceres LM", CeresOptions{}, kOptimizerAttempts),
                     Family::kOptimization});
  // The goal as hard constraints in minimal form (the paper's CFSQP
  // formulation; Problem::WithGoalsAsConstraints).
  SlsqpOptions slsqp;
  slsqp.goals_as_constraints = true;
  IpoptOptions ipopt;
  ipopt.goals_as_constraints = true;
  methods.push_back({Use("SQP (NLopt SLSQP)", slsqp, kOptimizerAttempts),
                     Family::kConstrainedOptimization});
  methods.push_back({Use("IPOPT", ipopt, kOptimizerAttempts),
                     Family::kConstrainedOptimization});
  if (!inverse_jacobian) return methods;
  // Each Hermite frame gets kIterationsPerFrame iterations at most.
  auto along_path = [](auto options, bool respect_limits) {
    return [options, respect_limits](const SolveOptions& common,
                                     const iklab::Trial&) {
      auto o = options;
      o.common = common;
      o.common.max_iterations = kIterationsPerFrame;
      o.common.respect_limits = respect_limits;
      return std::make_unique<HermitePathSolver>(MakeSolver(o), kHermiteFrames);
    };
  };
  // No limit mechanism: run free, judge the final pose against the limits.
  methods.push_back({{"pseudo-inverse, Hermite path",
                      along_path(PseudoInverseOptions{}, false), 1},
                     Family::kInverseJacobian});
  if (limits) {
    // DLS with the limits as bounds on the step (NLP paper §7).
    BoundedDampedLeastSquaresOptions dls;
    dls.damping = kDamping;
    methods.push_back({{"DLS, Hermite path", along_path(dls, true), 1},
                       Family::kInverseJacobian});
  } else {
    DampedLeastSquaresOptions dls;
    dls.damping = kDamping;
    dls.compute_condition_number = false;
    methods.push_back({{"DLS, Hermite path", along_path(dls, false), 1},
                       Family::kInverseJacobian});
  }
  return methods;
}

Study TableStudy(const ArmSetup& arm, Task task, std::vector<Trial> trials,
                 const std::vector<Method>& methods, bool limits) {
  Study study;
  study.name = "tolani-table";
  study.model = arm.model;
  study.trials = static_cast<int>(trials.size());
  study.time_budget_seconds = 0.0;
  study.position_tolerance = kSuccessPosition;
  study.angle_tolerance = kSuccessAngle;
  study.stop_tolerance_factor = 0.1;  // the solvers' default 1e-6
  study.respect_limits = limits;
  study.traced_trials = 0;
  for (const Method& m : methods) study.solvers.push_back(m.solver);
  // By value: the study may outlive the caller's ArmSetup.
  study.scenario = [arm, task, trials = std::move(trials)](
                       const TrialContext& context) {
    const tolani::Trial& t = trials[context.index];
    iklab::Trial trial(arm.model);
    trial.problem = MakeProblem(arm, task, t);
    trial.q0 = t.q_start;
    trial.q_generator = t.q_goal;
    return trial;
  };
  return study;
}

std::vector<Outcome> Outcomes(const ArmSetup& arm, Task task,
                              const std::vector<Trial>& trials,
                              const StudyResult& result, int method,
                              bool limits) {
  std::vector<Outcome> outcomes;
  for (const StudyRecord* r : result.Of(method)) {
    Outcome o = Evaluate(arm, task, trials[r->trial], r->q, limits);
    o.seconds = 1e-6 * r->microseconds;
    o.status = r->status;
    outcomes.push_back(o);
  }
  return outcomes;
}

Summary Summarize(const std::vector<Outcome>& outcomes) {
  Summary s;
  s.trials = static_cast<int>(outcomes.size());
  if (outcomes.empty()) return s;
  std::vector<double> times;
  int successes = 0;
  for (const Outcome& o : outcomes) {
    times.push_back(o.seconds);
    s.mean_seconds += o.seconds;
    if (o.success) {
      ++successes;
      s.mean_position_error += o.position_error;
      s.mean_orientation_error += o.orientation_error;
    }
  }
  s.mean_seconds /= s.trials;
  if (successes > 0) {
    s.mean_position_error /= successes;
    s.mean_orientation_error /= successes;
  } else {
    s.mean_position_error = std::numeric_limits<double>::quiet_NaN();
    s.mean_orientation_error = std::numeric_limits<double>::quiet_NaN();
  }
  s.failure_percent = 100.0 * (s.trials - successes) / s.trials;
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  s.median_seconds = times[times.size() / 2];
  return s;
}

}  // namespace tolani
}  // namespace iklab
