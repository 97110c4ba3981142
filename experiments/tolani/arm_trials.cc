#include "experiments/tolani/arm_trials.h"

#include <algorithm>
#include <chrono>
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
#include "solvers/lbfgsb_solver.h"
#include "solvers/pseudo_inverse_solver.h"
#include "solvers/restarts.h"
#include "solvers/tolani_limb_solver.h"
#include "solvers/trajectory.h"

namespace iklab {
namespace tolani {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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

// The inverse-Jacobian methods: the hand follows a Hermite curve from its
// start pose to the goal (position and position + orientation goals only).
Outcome RunInverseJacobian(const ArmSetup& arm, Task task, Method method,
                           const Trial& trial, bool limits) {
  if (task != Task::kPosition && task != Task::kPose) {
    throw std::invalid_argument(
        "tolani::RunMethod: the inverse-Jacobian path is defined for position "
        "and position + orientation goals only");
  }
  const Model& model = *arm.model;
  const std::string& site = arm.geometry.tip_site_name;
  const Eigen::Isometry3d start = arm.HandPose(trial.q_start);
  Problem problem(arm.model);
  std::shared_ptr<PositionGoal> position;
  std::shared_ptr<PositionOrientationGoal> pose;
  if (task == Task::kPosition) {
    position = std::make_shared<PositionGoal>(model, site, start.translation());
    problem.AddGoal(position);
  } else {
    pose = std::make_shared<PositionOrientationGoal>(model, site, start);
    problem.AddGoal(pose);
  }
  const PointPath curve =
      HermitePath(start.translation(), trial.goal.translation());
  const Eigen::Quaterniond r0(start.linear());
  const Eigen::Quaterniond r1(trial.goal.linear());
  const GoalPath path = [&](int, double s, Problem*) {
    if (position) {
      position->set_target(curve(s));
      return;
    }
    // Zero-tangent Hermite easing h01(s) = 3s² − 2s³ for the rotation too.
    const double h = s * s * (3.0 - 2.0 * s);
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.linear() = r0.slerp(h, r1).normalized().toRotationMatrix();
    X.translation() = curve(s);
    pose->set_target(X);
  };
  std::unique_ptr<Solver> solver;
  if (method == Method::kPseudoInverse) {
    // No limit mechanism: run free, judge the final pose against the limits.
    PseudoInverseOptions options;
    options.common.max_iterations = kIterationsPerFrame;
    options.common.respect_limits = false;
    solver = MakeSolver(options);
  } else if (limits) {
    // DLS with the limits as bounds on the step (NLP paper §7).
    BoundedDampedLeastSquaresOptions options;
    options.common.max_iterations = kIterationsPerFrame;
    options.damping = kDamping;
    solver = MakeSolver(options);
  } else {
    DampedLeastSquaresOptions options;
    options.common.max_iterations = kIterationsPerFrame;
    options.common.respect_limits = false;
    options.damping = kDamping;
    options.compute_condition_number = false;
    solver = MakeSolver(options);
  }
  const Clock::time_point t0 = Clock::now();
  const std::vector<Result> results =
      SolveTrajectory(*solver, &problem, trial.q_start, kHermiteFrames, path);
  const double seconds = SecondsSince(t0);
  Outcome outcome = Evaluate(arm, task, trial, results.back().q, limits);
  outcome.seconds = seconds;
  outcome.status = results.back().status;
  return outcome;
}

}  // namespace

const char* MethodName(Method method) {
  switch (method) {
    case Method::kAnalytic:
      return "analytic (ours, IKAN)";
    case Method::kLbfgsb:
      return "L-BFGS-B";
    case Method::kCeres:
      return "Ceres LM";
    case Method::kPseudoInverse:
      return "pseudo-inverse, Hermite path";
    case Method::kDls:
      return "DLS, Hermite path";
  }
  return "?";
}

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

Outcome RunMethod(const ArmSetup& arm, Task task, Method method,
                  const Trial& trial, bool limits) {
  if (method == Method::kPseudoInverse || method == Method::kDls) {
    return RunInverseJacobian(arm, task, method, trial, limits);
  }
  const Problem problem = MakeProblem(arm, task, trial);
  std::unique_ptr<Solver> solver;
  if (method == Method::kAnalytic) {
    TolaniLimbOptions options;
    options.geometry = arm.geometry;
    options.common.respect_limits = limits;
    if (task == Task::kPosition || task == Task::kAiming) {
      options.wrist = TolaniLimbOptions::WristAngles::kGiven;
      options.wrist_angles = trial.q_goal.tail<3>();
    }
    solver = MakeSolver(options);
  } else {
    // The optimizers restart from random poses within the limits when an
    // attempt ends away from the goal (at most kOptimizerAttempts solves),
    // as a user of a local optimizer would; the time includes every attempt.
    std::shared_ptr<const Solver> inner;
    if (method == Method::kLbfgsb) {
      LbfgsbOptions options;
      options.common.respect_limits = limits;
      inner = std::make_shared<LbfgsbSolver>(options);
    } else {
      CeresOptions options;
      options.common.respect_limits = limits;
      inner = std::make_shared<CeresSolver>(options);
    }
    RestartOptions restarts;
    restarts.max_attempts = kOptimizerAttempts;
    solver = std::make_unique<RestartSolver>(std::move(inner), restarts);
  }
  const Clock::time_point t0 = Clock::now();
  const Result result = solver->Solve(problem, trial.q_start);
  const double seconds = SecondsSince(t0);
  Outcome outcome = Evaluate(arm, task, trial, result.q, limits);
  outcome.seconds = seconds;
  outcome.status = result.status;
  return outcome;
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
