#include "solvers/trajectory.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include <Eigen/Geometry>

#include "framework/kinematics.h"

namespace iklab {

PointPath LinearPath(const Eigen::Vector3d& start, const Eigen::Vector3d& end) {
  return [start, end](double s) -> Eigen::Vector3d {
    return (1.0 - s) * start + s * end;
  };
}

PointPath HermitePath(const Eigen::Vector3d& start, const Eigen::Vector3d& end,
                      const Eigen::Vector3d& start_tangent,
                      const Eigen::Vector3d& end_tangent) {
  return [start, end, start_tangent, end_tangent](double s) -> Eigen::Vector3d {
    const double s2 = s * s;
    const double s3 = s2 * s;
    const double h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    const double h10 = s3 - 2.0 * s2 + s;
    const double h01 = -2.0 * s3 + 3.0 * s2;
    const double h11 = s3 - s2;
    return h00 * start + h10 * start_tangent + h01 * end + h11 * end_tangent;
  };
}

GoalPath MovePositionGoal(std::shared_ptr<PositionGoal> goal, PointPath path) {
  if (goal == nullptr) {
    throw std::invalid_argument("MovePositionGoal: goal is null");
  }
  if (!path) throw std::invalid_argument("MovePositionGoal: path is empty");
  return [goal = std::move(goal), path = std::move(path)](int, double s,
                                                          Problem*) {
    goal->set_target(path(s));
  };
}

std::vector<Result> SolveTrajectory(const Solver& solver, Problem* problem,
                                    const Eigen::VectorXd& q0, int num_frames,
                                    const GoalPath& path) {
  if (problem == nullptr) {
    throw std::invalid_argument("SolveTrajectory: problem is null");
  }
  if (num_frames < 1) {
    throw std::invalid_argument("SolveTrajectory: num_frames must be >= 1, got " +
                                std::to_string(num_frames));
  }
  if (!path) throw std::invalid_argument("SolveTrajectory: path is empty");
  std::vector<Result> frames;
  frames.reserve(num_frames);
  Eigen::VectorXd q = q0;
  for (int k = 1; k <= num_frames; ++k) {
    const double s = static_cast<double>(k) / num_frames;
    path(k, s, problem);
    frames.push_back(solver.Solve(*problem, q));
    const Result& frame = frames.back();
    if (frame.status != SolveStatus::kInvalidInput &&
        frame.q.size() == q.size()) {
      q = frame.q;
    }
  }
  return frames;
}

HermitePathSolver::HermitePathSolver(std::shared_ptr<const Solver> inner,
                                     int frames)
    : inner_(std::move(inner)), frames_(frames) {
  if (!inner_) throw std::invalid_argument("HermitePathSolver: inner is null");
  if (frames_ < 1) {
    throw std::invalid_argument("HermitePathSolver: frames must be >= 1, got " +
                                std::to_string(frames_));
  }
}

std::string HermitePathSolver::name() const { return inner_->name() + "+path"; }

Result HermitePathSolver::Solve(const Problem& problem,
                                const Eigen::VectorXd& q0) const {
  const auto invalid = [&](const std::string& why) {
    Result r;
    r.status = SolveStatus::kInvalidInput;
    r.message = name() + ": " + why;
    r.solver = name();
    r.q = q0;
    return r;
  };
  if (problem.goals().size() != 1) {
    return invalid("needs exactly one goal (a position or pose goal), got " +
                   std::to_string(problem.goals().size()));
  }
  const Model& model = problem.model();
  if (q0.size() != model.nq() || !q0.allFinite()) {
    return invalid("q0 must have " + std::to_string(model.nq()) +
                   " finite entries");
  }
  const auto* position =
      dynamic_cast<const PositionGoal*>(problem.goals()[0].get());
  const auto* pose =
      dynamic_cast<const PositionOrientationGoal*>(problem.goals()[0].get());
  if (!position && !pose) {
    return invalid("the goal must be a PositionGoal or a "
                   "PositionOrientationGoal");
  }
  const int site = position ? position->site() : pose->site();
  const std::string& site_name = position ? position->site_name()
                                          : pose->site_name();
  Data data(model);
  ForwardKinematics(model, q0, &data);
  const Eigen::Isometry3d start = SitePose(model, data, site);
  const Eigen::Isometry3d goal =
      position ? Eigen::Isometry3d(Eigen::Translation3d(position->target()))
               : pose->target();

  Problem path_problem(problem.shared_model());
  path_problem.set_bounds(problem.bounds());
  for (const auto& regularizer : problem.regularizers()) {
    path_problem.AddRegularizer(regularizer);
  }
  const PointPath curve = HermitePath(start.translation(), goal.translation());
  GoalPath path;
  if (position) {
    auto moving = std::make_shared<PositionGoal>(model, site_name,
                                                 start.translation(),
                                                 position->weight());
    path_problem.AddGoal(moving);
    path = MovePositionGoal(moving, curve);
  } else {
    auto moving = std::make_shared<PositionOrientationGoal>(
        model, site_name, start, pose->weight(), pose->scales());
    path_problem.AddGoal(moving);
    const Eigen::Quaterniond r0(start.linear()), r1(goal.linear());
    path = [moving, curve, r0, r1, goal](int, double s, Problem*) {
      if (s >= 1.0) {
        moving->set_target(goal);  // the last frame is the goal exactly
        return;
      }
      const double h = s * s * (3.0 - 2.0 * s);
      Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
      X.linear() = r0.slerp(h, r1).normalized().toRotationMatrix();
      X.translation() = curve(s);
      moving->set_target(X);
    };
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Result> frames =
      SolveTrajectory(*inner_, &path_problem, q0, frames_, path);
  Result result = frames.back();
  result.solver = name();
  result.iterations = result.function_evaluations = result.jacobian_evaluations = 0;
  for (const Result& f : frames) {
    result.iterations += f.iterations;
    result.function_evaluations += f.function_evaluations;
    result.jacobian_evaluations += f.jacobian_evaluations;
  }
  {
    // The potential of the original problem at q0, not of frame 1's target.
    ProblemWorkspace workspace(problem);
    result.initial_potential = problem.EvaluatePotential(q0, &workspace, nullptr);
  }
  result.wall_time_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (result.q.size() == model.nq() && result.q.allFinite()) {
    ProblemWorkspace workspace(problem);
    result.goal_errors = problem.GoalErrors(result.q, &workspace);
  }
  return result;
}

}  // namespace iklab
