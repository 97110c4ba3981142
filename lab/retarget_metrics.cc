#include "lab/retarget_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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

}  // namespace

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
  std::vector<std::vector<Eigen::Vector3d>> foot_positions;
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
    for (std::size_t k = 0; k < sites.size(); ++k) {
      const double e =
          (SitePosition(model, data, site_index[k]) - targets[t][k]).norm();
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
  double jerk_sum = 0.0;
  int jerk_samples = 0;
  const double dt3 = frame_time * frame_time * frame_time;
  for (int t = 1; t + 2 < frames; ++t) {
    for (int i = 0; i < model.nq(); ++i) {
      if (model.kind(model.dof_step(i)) != StepKind::kRevolute) continue;
      const double j =
          (q[t + 2][i] - 3.0 * q[t + 1][i] + 3.0 * q[t][i] - q[t - 1][i]) / dt3;
      jerk_sum += j * j;
      ++jerk_samples;
    }
  }
  if (jerk_samples > 0) m.jerk_rms = std::sqrt(jerk_sum / jerk_samples);
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
