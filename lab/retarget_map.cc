#include "lab/retarget_map.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include <Eigen/Geometry>

#include "framework/internal/read_file.h"
#include "framework/kinematics.h"

namespace iklab {

namespace {

std::string MapLine(const std::string& origin, int line) {
  return origin + ":" + std::to_string(line) + ": ";
}

Eigen::Vector3d MapAxis(const std::string& word, const std::string& where) {
  const std::string names[6] = {"+x", "-x", "+y", "-y", "+z", "-z"};
  for (int i = 0; i < 6; ++i) {
    if (word == names[i]) {
      return (i % 2 == 0 ? 1.0 : -1.0) * Eigen::Vector3d::Unit(i / 2);
    }
  }
  throw std::invalid_argument(where + "axis '" + word +
                              "' is not one of +x -x +y -y +z -z");
}

// `word` as a number; NaN where it is not one (or only begins with one).
double MapNumber(const std::string& word) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  return used == word.size() ? value : std::nan("");
}

double MapWeight(const std::string& word, const std::string& what,
                 const std::string& where) {
  const double value = MapNumber(word);
  if (!std::isfinite(value) || value < 0.0) {
    throw std::invalid_argument(where + what + " '" + word +
                                "' is not a finite number >= 0");
  }
  return value;
}

// Where a map line's message starts: "origin:line: " (or "origin: ").
std::string MapWhere(const RetargetMap& map, int line) {
  return line > 0 ? MapLine(map.origin, line) : map.origin + ": ";
}

std::string MapSiteList(const Model& model) {
  std::string names;
  for (int s = 0; s < model.num_sites(); ++s) {
    names += (s ? ", " : "") + model.site_name(s);
  }
  return names;
}

bool MapHasSite(const Model& model, const std::string& name) {
  for (int s = 0; s < model.num_sites(); ++s) {
    if (model.site_name(s) == name) return true;
  }
  return false;
}

}  // namespace

Eigen::Matrix3d RetargetMap::R_TS() const {
  // Columns: the source basis (up, forward, up × forward) and the target's.
  Eigen::Matrix3d S, T;
  S << source_up, source_forward, source_up.cross(source_forward);
  T << target_up, target_forward, target_up.cross(target_forward);
  return T * S.transpose();
}

RetargetMap ParseRetargetMap(const std::string& text,
                             const std::string& origin) {
  RetargetMap map;
  map.origin = origin;
  std::set<std::string> sources;
  std::istringstream lines(text);
  std::string raw;
  int line = 0;
  while (std::getline(lines, raw)) {
    ++line;
    const std::size_t hash = raw.find('#');
    if (hash != std::string::npos) raw.resize(hash);
    std::istringstream words(raw);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;
    const std::string where = MapLine(origin, line);
    if (w[0] == "source_axes" || w[0] == "target_axes") {
      if (w.size() != 3) {
        throw std::invalid_argument(where + "'" + w[0] +
                                    "' takes two axes (up, forward), e.g. " +
                                    w[0] + " +y +z");
      }
      const Eigen::Vector3d up = MapAxis(w[1], where);
      const Eigen::Vector3d forward = MapAxis(w[2], where);
      if (std::abs(up.dot(forward)) > 0.5) {
        throw std::invalid_argument(where + "up " + w[1] + " and forward " +
                                    w[2] + " must be perpendicular");
      }
      if (w[0] == "source_axes") {
        map.source_up = up;
        map.source_forward = forward;
      } else {
        map.target_up = up;
        map.target_forward = forward;
      }
    } else if (w[0] == "pair") {
      if (w.size() < 3 || w.size() > 5) {
        throw std::invalid_argument(
            where +
            "'pair' takes a source site, a target site and up to two "
            "weights (position, orientation); got " +
            std::to_string(w.size() - 1) + " fields");
      }
      RetargetPair pair;
      pair.source = w[1];
      pair.target = w[2];
      pair.line = line;
      if (w.size() > 3) {
        pair.position_weight = MapWeight(w[3], "position weight", where);
      }
      if (w.size() > 4) {
        pair.orientation_weight = MapWeight(w[4], "orientation weight", where);
      }
      if (!sources.insert(pair.source).second) {
        throw std::invalid_argument(where + "source site '" + pair.source +
                                    "' is paired twice");
      }
      map.pairs.push_back(pair);
    } else if (w[0] == "foot") {
      if (w.size() != 2) {
        throw std::invalid_argument(where + "'foot' takes one source site");
      }
      map.feet.push_back(w[1]);
      map.foot_lines.push_back(line);
    } else if (w[0] == "target_rest") {
      if (w.size() != 3) {
        throw std::invalid_argument(
            where +
            "'target_rest' takes a target coordinate and its value "
            "(radians, or metres if prismatic), e.g. target_rest "
            "left_elbow_joint 1.46");
      }
      const double value = MapNumber(w[2]);
      if (!std::isfinite(value)) {
        throw std::invalid_argument(where + "target_rest value '" + w[2] +
                                    "' is not a finite number");
      }
      for (const RetargetRestCoordinate& c : map.target_rest) {
        if (c.coordinate == w[1]) {
          throw std::invalid_argument(
              where + "target_rest: coordinate '" + w[1] +
              "' is already given on line " + std::to_string(c.line));
        }
      }
      map.target_rest.push_back({w[1], value, line});
    } else {
      throw std::invalid_argument(
          where + "unknown directive '" + w[0] +
          "'; expected source_axes, target_axes, pair, foot or target_rest");
    }
  }
  if (map.pairs.empty()) {
    throw std::invalid_argument(origin +
                                ": the map pairs no sites; add lines "
                                "'pair SOURCE TARGET'");
  }
  for (std::size_t f = 0; f < map.feet.size(); ++f) {
    if (sources.count(map.feet[f]) == 0) {
      throw std::invalid_argument(MapLine(origin, map.foot_lines[f]) +
                                  "foot '" + map.feet[f] +
                                  "' is not the source of a pair");
    }
  }
  return map;
}

RetargetMap LoadRetargetMap(const std::string& path) {
  return ParseRetargetMap(internal::ReadFile(path, "a retarget map file"),
                          path);
}

void CheckRetargetMap(const RetargetMap& map, const Model& source,
                      const Model& target) {
  for (const RetargetPair& pair : map.pairs) {
    const std::string where = MapWhere(map, pair.line);
    if (!MapHasSite(source, pair.source)) {
      throw std::invalid_argument(where + "source site '" + pair.source +
                                  "' is not a site of the source skeleton; "
                                  "its sites are: " +
                                  MapSiteList(source));
    }
    if (!MapHasSite(target, pair.target)) {
      throw std::invalid_argument(where + "target site '" + pair.target +
                                  "' is not a site of the target; its sites "
                                  "are: " +
                                  MapSiteList(target));
    }
  }
  TargetRestPose(map, target);
}

Eigen::VectorXd TargetRestPose(const RetargetMap& map, const Model& target) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(target.nq());
  for (const RetargetRestCoordinate& c : map.target_rest) {
    const std::string where = MapWhere(map, c.line) + "target_rest: ";
    int index = -1;
    for (int i = 0; i < target.nq(); ++i) {
      if (target.dof_name(i) == c.coordinate) index = i;
    }
    if (index < 0) {
      std::string names;
      for (int i = 0; i < target.nq(); ++i) {
        names += (i ? ", " : "") + target.dof_name(i);
      }
      throw std::invalid_argument(where + "'" + c.coordinate +
                                  "' is not a coordinate of the target; its "
                                  "coordinates are: " +
                                  names);
    }
    const double lo = target.lower()[index], hi = target.upper()[index];
    if (!(c.value >= lo && c.value <= hi)) {
      std::ostringstream message;
      message << where << c.coordinate << " = " << c.value
              << " is outside its limits [" << lo << ", " << hi << "]";
      throw std::invalid_argument(message.str());
    }
    q[index] = c.value;
  }
  return q;
}

RetargetMap MapByName(const Model& source, const Model& target) {
  RetargetMap map;
  map.origin = "the joint names the skeletons share";
  for (int s = 0; s < source.num_sites(); ++s) {
    const std::string& name = source.site_name(s);
    if (!MapHasSite(target, name)) continue;
    RetargetPair pair;
    pair.source = pair.target = name;
    const bool at_origin =
        source.X_FS(s).translation().norm() == 0.0 &&
        target.X_FS(target.SiteIndex(name)).translation().norm() == 0.0;
    pair.orientation_weight = at_origin ? 1.0 : 0.0;
    map.pairs.push_back(pair);
  }
  if (map.pairs.empty()) {
    throw std::invalid_argument(
        "the source and target skeletons share no joint or site name; give a "
        "map file (--map) that pairs them");
  }
  // Feet: the shared sites within 5% of the rest pose's height of the
  // lowest one (toes, heels, ankles of a standing skeleton).
  Data rest(source);
  ForwardKinematics(source, Eigen::VectorXd::Zero(source.nq()), &rest);
  std::vector<double> height;
  for (const RetargetPair& pair : map.pairs) {
    height.push_back(
        map.source_up.dot(SitePosition(source, rest, source.SiteIndex(pair.source))));
  }
  const double lowest = *std::min_element(height.begin(), height.end());
  const double highest = *std::max_element(height.begin(), height.end());
  for (std::size_t k = 0; k < map.pairs.size(); ++k) {
    if (height[k] <= lowest + 0.05 * (highest - lowest)) {
      map.feet.push_back(map.pairs[k].source);
      map.foot_lines.push_back(0);
    }
  }
  return map;
}

RetargetMap HumanoidMap() {
  RetargetMap map;
  map.origin = "built-in map onto the human figure";
  map.source_up = Eigen::Vector3d::UnitY();
  map.source_forward = Eigen::Vector3d::UnitZ();
  map.target_up = Eigen::Vector3d::UnitZ();
  map.target_forward = Eigen::Vector3d::UnitX();
  map.pairs.push_back({"Hips", "pelvis", 1.0, 1.0, 0});
  map.pairs.push_back({"Neck", "neck", 1.0, 1.0, 0});
  map.pairs.push_back({"Head_End", "head", 1.0, 0.0, 0});
  for (const char* side : {"Left", "Right"}) {
    const std::string s = side, t = s == "Left" ? "left_" : "right_";
    map.pairs.push_back({s + "Hip", t + "hip", 1.0, 1.0, 0});
    map.pairs.push_back({s + "Knee", t + "knee", 1.0, 1.0, 0});
    map.pairs.push_back({s + "Ankle", t + "ankle", 1.0, 1.0, 0});
    map.pairs.push_back({s + "Toe_End", t + "foot", 1.0, 0.0, 0});
    map.pairs.push_back({s + "Shoulder", t + "shoulder", 1.0, 1.0, 0});
    map.pairs.push_back({s + "Elbow", t + "elbow", 1.0, 1.0, 0});
    map.pairs.push_back({s + "Wrist", t + "wrist", 1.0, 1.0, 0});
    map.pairs.push_back({s + "Wrist_End", t + "hand", 1.0, 0.0, 0});
    map.feet.push_back(s + "Ankle");
    map.feet.push_back(s + "Toe_End");
    map.foot_lines.push_back(0);
    map.foot_lines.push_back(0);
  }
  return map;
}

}  // namespace iklab
