#include "lab/retarget_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/Geometry>

#include "framework/kinematics.h"
#include "lab/statistics.h"

namespace iklab {

namespace {

void CheckFrameTime(double frame_time, const char* what) {
  if (!(frame_time > 0.0) || !std::isfinite(frame_time)) {
    throw std::invalid_argument(std::string(what) +
                                ": frame_time must be a positive number of "
                                "seconds; got " +
                                std::to_string(frame_time));
  }
}

// sqrt(mean(v²)) of per-frame RMS values; 0 for none.
double RootMeanSquare(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x * x;
  return v.empty() ? 0.0 : std::sqrt(sum / v.size());
}

// The parent link of every link: the link of the nearest ancestor step that
// is a link's frame (−1: the world).
std::vector<int> ParentLinks(const Model& model) {
  std::vector<int> link_of_step(model.num_steps(), -1);
  for (int l = 0; l < model.num_links(); ++l) {
    const int step = model.link_step(l);
    if (step >= 0 && link_of_step[step] < 0) link_of_step[step] = l;
  }
  std::vector<int> parent(model.num_links(), -1);
  for (int l = 0; l < model.num_links(); ++l) {
    int step = model.link_step(l);
    // Links that share a step (fixed joints) are one body: the first of
    // them is the parent of the others.
    if (step >= 0 && link_of_step[step] != l) {
      parent[l] = link_of_step[step];
      continue;
    }
    for (step = step >= 0 ? model.parent(step) : -1; step >= 0;
         step = model.parent(step)) {
      if (link_of_step[step] >= 0) {
        parent[l] = link_of_step[step];
        break;
      }
    }
  }
  return parent;
}

}  // namespace

std::vector<double> RotationJerk(const Model& model,
                                 const std::vector<Eigen::VectorXd>& q,
                                 double frame_time) {
  CheckFrameTime(frame_time, "RotationJerk");
  const int frames = static_cast<int>(q.size());
  const int links = model.num_links();
  const std::vector<int> parent = ParentLinks(model);
  // Body angular velocity of every link between consecutive frames.
  std::vector<std::vector<Eigen::Vector3d>> omega;
  Data data(model);
  std::vector<Eigen::Matrix3d> previous(links), now(links);
  for (int t = 0; t < frames; ++t) {
    model.CheckConfiguration(q[t], "RotationJerk: q");
    ForwardKinematics(model, q[t], &data);
    for (int l = 0; l < links; ++l) {
      const Eigen::Matrix3d R_W = LinkPose(model, data, l).linear();
      now[l] = parent[l] < 0
                   ? R_W
                   : LinkPose(model, data, parent[l]).linear().transpose() * R_W;
    }
    if (t > 0) {
      omega.emplace_back(links);
      for (int l = 0; l < links; ++l) {
        const Eigen::AngleAxisd d(previous[l].transpose() * now[l]);
        omega.back()[l] = d.angle() * d.axis() / frame_time;
      }
    }
    std::swap(previous, now);
  }
  // The links that turn relative to their parent: a revolute coordinate on
  // the steps between the parent link's step and their own.
  std::vector<int> turning;
  for (int l = 0; l < links; ++l) {
    const int stop = parent[l] < 0 ? -1 : model.link_step(parent[l]);
    for (int step = model.link_step(l); step >= 0 && step != stop;
         step = model.parent(step)) {
      if (model.dof(step) >= 0 && model.kind(step) == StepKind::kRevolute) {
        turning.push_back(l);
        break;
      }
    }
  }
  std::vector<double> jerk;
  const double dt2 = frame_time * frame_time;
  for (std::size_t t = 0; t + 2 < omega.size(); ++t) {
    double sum = 0.0;
    for (int l : turning) {
      sum += ((omega[t + 2][l] - 2.0 * omega[t + 1][l] + omega[t][l]) / dt2)
                 .squaredNorm();
    }
    jerk.push_back(turning.empty() ? 0.0 : std::sqrt(sum / turning.size()));
  }
  return jerk;
}

std::vector<double> PointJerk(
    const std::vector<std::vector<Eigen::Vector3d>>& p, double frame_time) {
  CheckFrameTime(frame_time, "PointJerk");
  const std::size_t points = p.empty() ? 0 : p[0].size();
  for (const auto& row : p) {
    if (row.size() != points) {
      throw std::invalid_argument(
          "PointJerk: every frame must hold the same number of points");
    }
  }
  std::vector<double> jerk;
  const double dt3 = frame_time * frame_time * frame_time;
  for (std::size_t t = 0; t + 3 < p.size(); ++t) {
    double sum = 0.0;
    for (std::size_t k = 0; k < points; ++k) {
      sum += ((p[t + 3][k] - 3.0 * p[t + 2][k] + 3.0 * p[t + 1][k] - p[t][k]) /
              dt3)
                 .squaredNorm();
    }
    jerk.push_back(points > 0 ? std::sqrt(sum / points) : 0.0);
  }
  return jerk;
}

SelfPenetration MeasureSelfPenetration(const Model& model,
                                       const std::vector<Eigen::VectorXd>& q,
                                       const ShapeCollisionGoal& shapes) {
  SelfPenetration s;
  s.measured = true;
  s.pairs = static_cast<int>(shapes.pairs().size());
  if (s.pairs == 0) return s;
  Data data(model);
  for (const Eigen::VectorXd& q_t : q) {
    model.CheckConfiguration(q_t, "MeasureSelfPenetration: q");
    ForwardKinematics(model, q_t, &data);
    const Eigen::VectorXd d = shapes.Distances(model, data);
    Eigen::Index k = 0;
    const double deepest = -d.minCoeff(&k);
    if (deepest <= 0.0) continue;
    ++s.frames;
    if (deepest > s.max) {
      s.max = deepest;
      s.worst_pair = shapes.PairName(static_cast<int>(k));
    }
  }
  return s;
}

bool ContactOptions::IsValid(std::string* why) const {
  const auto bad = [&](const char* field, double value) {
    if (why != nullptr) {
      *why = std::string("ContactOptions::") + field +
             " must be a finite number > 0; got " + std::to_string(value);
    }
    return false;
  };
  if (!(height_threshold > 0.0) || !std::isfinite(height_threshold)) {
    return bad("height_threshold", height_threshold);
  }
  if (!(speed_threshold > 0.0) || !std::isfinite(speed_threshold)) {
    return bad("speed_threshold", speed_threshold);
  }
  return true;
}

std::vector<std::vector<char>> DetectContacts(
    const std::vector<std::vector<Eigen::Vector3d>>& positions,
    const Eigen::Vector3d& up, double frame_time, double leg_length,
    const ContactOptions& options) {
  std::string why;
  if (!options.IsValid(&why)) throw std::invalid_argument(why);
  CheckFrameTime(frame_time, "DetectContacts");
  if (!(leg_length > 0.0) || !std::isfinite(leg_length)) {
    throw std::invalid_argument(
        "DetectContacts: leg_length must be a finite length > 0; got " +
        std::to_string(leg_length));
  }
  const int frames = static_cast<int>(positions.size());
  const int points = frames > 0 ? static_cast<int>(positions[0].size()) : 0;
  for (const auto& row : positions) {
    if (static_cast<int>(row.size()) != points) {
      throw std::invalid_argument(
          "DetectContacts: every frame must hold the same number of foot "
          "points");
    }
  }
  std::vector<std::vector<char>> contact(frames, std::vector<char>(points, 0));
  for (int k = 0; k < points; ++k) {
    double lowest = std::numeric_limits<double>::infinity();
    for (int t = 0; t < frames; ++t) {
      lowest = std::min(lowest, up.dot(positions[t][k]));
    }
    for (int t = 0; t < frames; ++t) {
      const int before = std::max(t - 1, 0), after = std::min(t + 1, frames - 1);
      const double speed =
          after > before ? (positions[after][k] - positions[before][k]).norm() /
                               ((after - before) * frame_time)
                         : 0.0;
      const double height = up.dot(positions[t][k]) - lowest;
      contact[t][k] = height <= options.height_threshold * leg_length &&
                      speed <= options.speed_threshold * leg_length;
    }
  }
  return contact;
}

Skating FootSkating(const std::vector<std::vector<Eigen::Vector3d>>& positions,
                    const std::vector<std::vector<char>>& contact,
                    const Eigen::Vector3d& up, double frame_time) {
  CheckFrameTime(frame_time, "FootSkating");
  if (positions.size() != contact.size()) {
    throw std::invalid_argument(
        "FootSkating: " + std::to_string(positions.size()) +
        " frames of positions, " + std::to_string(contact.size()) +
        " of contact flags");
  }
  Skating skating;
  double sum = 0.0;
  for (std::size_t t = 0; t + 1 < positions.size(); ++t) {
    if (positions[t].size() != contact[t].size() ||
        positions[t + 1].size() != contact[t].size()) {
      throw std::invalid_argument(
          "FootSkating: frame " + std::to_string(t) +
          " has a different number of positions and contact flags");
    }
    for (std::size_t k = 0; k < contact[t].size(); ++k) {
      if (!contact[t][k] || !contact[t + 1][k]) continue;
      const Eigen::Vector3d d = positions[t + 1][k] - positions[t][k];
      const double speed = (d - up.dot(d) * up).norm() / frame_time;
      sum += speed;
      skating.max = std::max(skating.max, speed);
      ++skating.samples;
    }
  }
  if (skating.samples > 0) skating.mean = sum / skating.samples;
  return skating;
}

RetargetMetrics MeasureRetargeting(
    const Model& model, const std::vector<Eigen::VectorXd>& q,
    const std::vector<std::string>& sites,
    const std::vector<std::vector<Eigen::Vector3d>>& targets,
    const std::vector<int>& feet,
    const std::vector<std::vector<char>>& contact, const Eigen::Vector3d& up,
    double frame_time, const std::vector<double>& microseconds,
    const std::vector<bool>& converged) {
  CheckFrameTime(frame_time, "MeasureRetargeting");
  const int frames = static_cast<int>(q.size());
  if (static_cast<int>(targets.size()) != frames ||
      (!contact.empty() && static_cast<int>(contact.size()) != frames)) {
    throw std::invalid_argument(
        "MeasureRetargeting: " + std::to_string(frames) + " poses, " +
        std::to_string(targets.size()) + " target frames, " +
        std::to_string(contact.size()) + " contact frames");
  }
  std::vector<int> site_index;
  for (const std::string& s : sites) site_index.push_back(model.SiteIndex(s));
  for (int f : feet) {
    if (f < 0 || f >= static_cast<int>(sites.size())) {
      throw std::invalid_argument("MeasureRetargeting: foot index " +
                                  std::to_string(f) + " is not a key point");
    }
  }
  RetargetMetrics m;
  m.frames = frames;
  Data data(model);
  std::vector<std::vector<Eigen::Vector3d>> foot_positions, key_points;
  double sum = 0.0;
  int samples = 0;
  std::vector<double> worst_per_site(sites.size(), 0.0);
  for (int t = 0; t < frames; ++t) {
    model.CheckConfiguration(q[t], "MeasureRetargeting: q");
    if (targets[t].size() != sites.size()) {
      throw std::invalid_argument("MeasureRetargeting: frame " +
                                  std::to_string(t) + " has " +
                                  std::to_string(targets[t].size()) +
                                  " targets for " +
                                  std::to_string(sites.size()) + " sites");
    }
    ForwardKinematics(model, q[t], &data);
    key_points.emplace_back();
    for (std::size_t k = 0; k < sites.size(); ++k) {
      key_points.back().push_back(SitePosition(model, data, site_index[k]));
      const double e = (key_points.back().back() - targets[t][k]).norm();
      sum += e;
      ++samples;
      worst_per_site[k] = std::max(worst_per_site[k], e);
    }
    std::vector<Eigen::Vector3d> feet_now;
    for (int f : feet) {
      const Eigen::Vector3d p = SitePosition(model, data, site_index[f]);
      feet_now.push_back(p);
      m.penetration_max = std::max(m.penetration_max, -up.dot(p));
    }
    foot_positions.push_back(feet_now);
    for (int i = 0; i < model.nq(); ++i) {
      const double excess = std::max(q[t][i] - model.upper()[i],
                                     model.lower()[i] - q[t][i]);
      if (excess > 1e-9) {
        ++m.limit_violations;
        m.limit_violation_max = std::max(m.limit_violation_max, excess);
      }
    }
  }
  if (samples > 0) m.tracking_mean = sum / samples;
  for (std::size_t k = 0; k < sites.size(); ++k) {
    if (worst_per_site[k] >= m.tracking_max) {
      m.tracking_max = worst_per_site[k];
      m.tracking_worst = sites[k];
    }
  }
  if (!contact.empty() && !feet.empty()) {
    m.skating = FootSkating(foot_positions, contact, up, frame_time);
  }
  m.jerk_rms = RootMeanSquare(RotationJerk(model, q, frame_time));
  m.keypoint_jerk_rms = RootMeanSquare(PointJerk(key_points, frame_time));
  if (!microseconds.empty()) {
    std::vector<double> ms;
    for (double us : microseconds) ms.push_back(us / 1000.0);
    m.ms_per_frame_median = Median(ms);
    m.ms_per_frame_mean = Mean(ms);
  }
  for (bool c : converged) m.converged += c;
  return m;
}

}  // namespace iklab
