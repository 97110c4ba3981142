#include "solvers/trajectory.h"

#include <stdexcept>
#include <string>
#include <utility>

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

}  // namespace iklab
