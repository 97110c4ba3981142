#include "lab/retargeting.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/bvh_writer.h"
#include "framework/kinematics.h"

namespace iklab {

namespace {

int SiteOf(const Model& model, const std::string& site) {
  for (int s = 0; s < model.num_sites(); ++s) {
    if (model.site_name(s) == site) return s;
  }
  std::string names;
  for (int s = 0; s < model.num_sites(); ++s) {
    names += (s ? ", " : "") + model.site_name(s);
  }
  throw std::invalid_argument("effector '" + site +
                              "' is not a site of the skeleton; its sites "
                              "(joints and End Sites) are: " +
                              names);
}

}  // namespace

std::vector<std::vector<Eigen::Vector3d>> EffectorTargets(
    const Model& model, const Eigen::MatrixXd& poses,
    const std::vector<int>& frames, const std::vector<std::string>& sites) {
  if (poses.cols() != model.nq()) {
    throw std::invalid_argument(
        "EffectorTargets: poses has " + std::to_string(poses.cols()) +
        " columns; the model has nq = " + std::to_string(model.nq()));
  }
  std::vector<int> indices;
  for (const std::string& s : sites) indices.push_back(SiteOf(model, s));
  Data data(model);
  std::vector<std::vector<Eigen::Vector3d>> targets;
  for (int f : frames) {
    if (f < 0 || f >= poses.rows()) {
      throw std::invalid_argument("EffectorTargets: frame " +
                                  std::to_string(f) +
                                  " is not a row of "
                                  "poses (" +
                                  std::to_string(poses.rows()) + " frames)");
    }
    // (A model without coordinates, a clip without channels, has every
    // frame at its rest pose; its poses have no row to view.)
    if (model.nq() > 0) {
      ForwardKinematics(model, poses.row(f).transpose(), &data);
    } else {
      ForwardKinematics(model, Eigen::VectorXd(), &data);
    }
    std::vector<Eigen::Vector3d> frame;
    for (int s : indices) frame.push_back(SitePosition(model, data, s));
    targets.push_back(frame);
  }
  return targets;
}

RetargetRun Retarget(const std::shared_ptr<const Model>& model,
                     const std::vector<std::string>& sites,
                     const std::vector<int>& frames,
                     const std::vector<std::vector<Eigen::Vector3d>>& targets,
                     const Solver& solver, const Eigen::VectorXd& start) {
  if (targets.size() != frames.size()) {
    throw std::invalid_argument(
        "Retarget: " + std::to_string(targets.size()) + " target sets for " +
        std::to_string(frames.size()) + " frames; give one per frame");
  }
  if (model->nq() == 0) {
    throw std::invalid_argument(
        "Retarget: the skeleton has no coordinates to solve for (a BVH "
        "without CHANNELS)");
  }
  if (start.size() != model->nq()) {
    throw std::invalid_argument(
        "Retarget: start has " + std::to_string(start.size()) +
        " entries; the model has nq = " + std::to_string(model->nq()));
  }
  Problem problem(model);
  std::vector<std::shared_ptr<PositionGoal>> goals;
  std::vector<int> indices;
  for (const std::string& site : sites) {
    indices.push_back(SiteOf(*model, site));
    goals.push_back(
        std::make_shared<PositionGoal>(*model, site, Eigen::Vector3d::Zero()));
    problem.AddGoal(goals.back());
  }
  for (std::size_t f = 0; f < targets.size(); ++f) {
    if (targets[f].size() != sites.size()) {
      throw std::invalid_argument(
          "Retarget: frame " + std::to_string(frames[f]) + " has " +
          std::to_string(targets[f].size()) + " targets for " +
          std::to_string(sites.size()) + " effectors");
    }
  }

  RetargetRun run;
  run.solver = solver.name();
  Data data(*model);
  Eigen::VectorXd q = start;
  for (std::size_t f = 0; f < frames.size(); ++f) {
    for (std::size_t g = 0; g < goals.size(); ++g) {
      goals[g]->set_target(targets[f][g]);
    }
    const auto begin = std::chrono::steady_clock::now();
    const Result result = solver.Solve(problem, q);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    RetargetFrame r;
    r.frame = frames[f];
    r.microseconds = 1e6 * seconds;
    r.iterations = result.iterations;
    r.converged = result.converged();
    r.status = result.status;
    r.message = result.message;
    if (result.q.size() == model->nq()) q = result.q;
    ForwardKinematics(*model, q, &data);
    for (std::size_t g = 0; g < goals.size(); ++g) {
      const double e =
          (SitePosition(*model, data, indices[g]) - targets[f][g]).norm();
      r.max_error = std::max(r.max_error, e);
      r.mean_error += e / static_cast<double>(goals.size());
    }
    run.frames.push_back(r);
    run.q.push_back(q);
  }
  return run;
}

BvhFigure ScaledSkeleton(const BvhFigure& bvh,
                         const std::function<double(int)>& scale) {
  BvhFigure scaled;
  scaled.joints = bvh.joints;
  scaled.channels = bvh.channels;
  scaled.frame_time = bvh.frame_time;
  for (std::size_t j = 0; j < scaled.joints.size(); ++j) {
    const double s = scale(static_cast<int>(j));
    if (!std::isfinite(s)) {
      throw std::invalid_argument("ScaledSkeleton: the scale of joint '" +
                                  bvh.joints[j].name + "' is not finite");
    }
    scaled.joints[j].offset *= s;
    for (Eigen::Vector3d& end : scaled.joints[j].end_sites) end *= s;
  }
  scaled.poses = Eigen::MatrixXd::Zero(1, bvh.poses.cols());
  return LoadBvhFromString(WriteBvh(scaled), "scaled " + bvh.source);
}

std::vector<std::string> EndSiteNames(const BvhFigure& bvh) {
  std::vector<std::string> names;
  for (const BvhJoint& j : bvh.joints) {
    for (std::size_t e = 0; e < j.end_sites.size(); ++e) {
      names.push_back(j.name + "_End" +
                      (e == 0 ? std::string() : std::to_string(e + 1)));
    }
  }
  return names;
}

}  // namespace iklab
