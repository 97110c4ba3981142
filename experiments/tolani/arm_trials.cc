#include "experiments/tolani/arm_trials.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "constraints/aiming_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "lab/statistics.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "solvers/restarts.h"
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
  const std::string& site = arm.site_name;
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
          model, site, arm.partial_axis,
          trial.goal.linear() * arm.partial_axis));
      break;
    case Task::kAiming:
      problem.AddGoal(std::make_shared<AimingGoal>(model, site, arm.aim_axis,
                                                   trial.aim_target));
      break;
  }
  return problem;
}

// The limb figure of the paper's geometry, its tip site, axes as documented
// in ArmSetup::HumanArm.
ArmSetup HumanLimb(const LimbGeometry& geometry, const std::string& what) {
  ArmSetup arm("human " + geometry.kind, what,
               std::make_shared<const Model>(LimbFigure(geometry).Compile()),
               geometry.tip_site_name, Eigen::Vector3d::UnitZ(),
               Eigen::Vector3d::UnitX());
  // The anthropometric lengths themselves: the SRS reading of the compiled
  // figure agrees to 1 ulp, and with the exact sum the human arm's
  // unreachable goals stay exactly what they were before arms were generic.
  arm.reach = geometry.upper_length + geometry.lower_length +
              geometry.p_S2_tip.norm();
  return arm;
}

}  // namespace

ArmSetup ArmSetup::HumanArm() {
  return HumanLimb(TolaniArmGeometry(),
                   "TolaniArmGeometry(): left arm, 1.75 m body (Winter), "
                   "AAOS joint limits; effector = hand (fingertip)");
}

ArmSetup ArmSetup::HumanLeg() {
  return HumanLimb(TolaniLegGeometry(),
                   "TolaniLegGeometry(): left leg, 1.75 m body (Winter), "
                   "AAOS joint limits; effector = foot (toe tip)");
}

ArmSetup ArmSetup::Iiwa14() {
  const UrdfFigure urdf = LoadUrdfChain(
      DataFile("robots/iiwa14.urdf").string(), "base", "iiwa_link_ee");
  return ArmSetup("iiwa14",
                  "KUKA LBR iiwa 14 R820 (shipped URDF, its joint limits), "
                  "chain base -> iiwa_link_ee; effector = iiwa_link_ee",
                  std::make_shared<const Model>(urdf.figure.Compile()),
                  "iiwa_link_ee", Eigen::Vector3d::UnitX(),
                  Eigen::Vector3d::UnitX());
}

ArmSetup::ArmSetup(std::string name_in, std::string description_in,
                   std::shared_ptr<const Model> model_in,
                   const std::string& site_name_in,
                   const Eigen::Vector3d& partial_axis_in,
                   const Eigen::Vector3d& aim_axis_in)
    : name(std::move(name_in)),
      description(std::move(description_in)),
      model(std::move(model_in)),
      site_name(site_name_in),
      partial_axis(partial_axis_in),
      aim_axis(aim_axis_in) {
  if (model == nullptr) {
    throw std::invalid_argument("ArmSetup: model is null");
  }
  site = model->SiteIndex(site_name);  // throws naming the site
  std::string why;
  srs = SrsArm::Create(*model, site, &why);
  if (srs == nullptr) {
    throw std::invalid_argument("ArmSetup: model '" + name +
                                "' is not an SRS arm at site '" + site_name +
                                "': " + why);
  }
  if (model->nq() != 7) {
    throw std::invalid_argument(
        "ArmSetup: model '" + name + "' must have exactly the arm's 7 "
        "coordinates, got " + std::to_string(model->nq()));
  }
  for (int i = 0; i < 7; ++i) {
    if (!std::isfinite(model->lower()[i]) ||
        !std::isfinite(model->upper()[i])) {
      throw std::invalid_argument(
          "ArmSetup: model '" + name + "' coordinate " + std::to_string(i) +
          " has no finite limits (poses are drawn within the limits)");
    }
  }
  for (const auto& [axis, field] :
       {std::make_pair(partial_axis, "partial_axis"),
        std::make_pair(aim_axis, "aim_axis")}) {
    if (!(std::abs(axis.norm() - 1.0) <= 1e-12)) {
      throw std::invalid_argument(std::string("ArmSetup: ") + field +
                                  " must be a unit vector, got norm " +
                                  std::to_string(axis.norm()));
    }
  }
  const LimbGeometry& g = srs->geometry();
  reach = g.upper_length + g.lower_length + g.p_S2_tip.norm();
}

Eigen::VectorXd ArmSetup::RandomPose(std::mt19937_64* rng) const {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Eigen::VectorXd& lower = model->lower();
  const Eigen::VectorXd& upper = model->upper();
  Eigen::VectorXd q(7);
  for (int i = 0; i < 7; ++i) {
    q[i] = lower[i] + (upper[i] - lower[i]) * u(*rng);
  }
  return q;
}

Eigen::Isometry3d ArmSetup::HandPose(const Eigen::VectorXd& q) const {
  Data data(*model);
  ForwardKinematics(*model, q, &data);
  return SitePose(*model, data, site);
}

Eigen::Vector3d ArmSetup::Shoulder() const {
  // Every coordinate is the arm's (the constructor checks): a fixed base.
  return srs->X_WB() * srs->X_BL().translation();
}

Eigen::Vector3d ArmSetup::WristAngles(const Eigen::VectorXd& q) const {
  return Eigen::Vector3d(q[srs->coordinate(4)], q[srs->coordinate(5)],
                         q[srs->coordinate(6)]);
}

std::array<Eigen::Vector3d, 4> ArmSetup::ChainPoints(
    const Eigen::VectorXd& q) const {
  Vector7d theta;
  for (int k = 0; k < 7; ++k) theta[k] = q[srs->coordinate(k)];
  const Eigen::Isometry3d X_WL = srs->X_WB() * srs->X_BL();
  return {X_WL.translation(), X_WL * srs->ik().Elbow(theta),
          X_WL * srs->ik().Forward(theta).translation(),
          HandPose(q).translation()};
}

Trial ArmSetup::RandomTrial(std::mt19937_64* rng) const {
  Trial trial;
  trial.q_goal = RandomPose(rng);
  trial.q_start = RandomPose(rng);
  trial.goal = HandPose(trial.q_goal);
  trial.aim_target = trial.goal.translation() +
                     kAimDistance * (trial.goal.linear() * aim_axis);
  return trial;
}

Trial ArmSetup::UnreachableTrial(std::mt19937_64* rng) const {
  Trial trial = RandomTrial(rng);
  const Eigen::Vector3d s = Shoulder();
  const Eigen::Vector3d d = (trial.goal.translation() - s).normalized();
  std::uniform_real_distribution<double> factor(1.1, 1.4);
  trial.goal.translation() = s + factor(*rng) * reach * d;
  return trial;
}

Claim OnAnotherArm(const ArmSetup& arm, Claim claim) {
  claim.text = arm.name + ": " + claim.text;
  claim.paper =
      "paper, human limb (no " + arm.name + " numbers): " + claim.paper;
  return claim;
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
      const Eigen::Vector3d a = X.linear() * arm.partial_axis;
      const Eigen::Vector3d g = trial.goal.linear() * arm.partial_axis;
      outcome.orientation_error = std::pow(1.0 - a.dot(g), 2);
      outcome.angle = AngleBetween(a, g);
      break;
    }
    case Task::kAiming: {
      const Eigen::Vector3d v = X.linear() * arm.aim_axis;
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

std::vector<Method> Methods(const ArmSetup& arm, Task task, bool limits,
                            bool inverse_jacobian) {
  std::vector<Method> methods;
  TolaniLimbOptions analytic;
  const bool held_wrist = task == Task::kPosition || task == Task::kAiming;
  methods.push_back(
      {{"analytic (ours, IKAN)",
        [analytic, held_wrist, arm](const SolveOptions& common,
                                    const iklab::Trial& trial) {
          TolaniLimbOptions options = analytic;
          options.common = common;
          if (held_wrist) {
            options.wrist = TolaniLimbOptions::WristAngles::kGiven;
            options.wrist_angles = arm.WristAngles(trial.q_generator);
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
  s.median_seconds = Median(times);
  return s;
}

}  // namespace tolani
}  // namespace iklab
