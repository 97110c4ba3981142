#include "constraints/self_collision_matrix.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "constraints/internal/link_tree.h"
#include "constraints/internal/validation.h"
#include "constraints/shape_distance.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "framework/random_configuration.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

constexpr const char* kReasonNames[] = {"enabled", "adjacent", "default",
                                        "always", "never"};

// The shapes of one link, prepared, with their poses in the link frame.
struct LinkShapes {
  int link = -1;
  int step = -1;
  std::vector<PreparedShape> shapes;
  std::vector<Eigen::Isometry3d> X_LG;
};

bool Collide(const LinkShapes& a, const LinkShapes& b, const Data& data,
             double contact_distance) {
  for (std::size_t i = 0; i < a.shapes.size(); ++i) {
    const Eigen::Isometry3d X_WA = data.X_W(a.step) * a.X_LG[i];
    for (std::size_t j = 0; j < b.shapes.size(); ++j) {
      const Eigen::Isometry3d X_WB = data.X_W(b.step) * b.X_LG[j];
      if (ComputeShapeDistance(a.shapes[i], X_WA, b.shapes[j], X_WB).distance <
          contact_distance) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

const char* CollisionPairReasonName(CollisionPairReason reason) {
  return kReasonNames[static_cast<int>(reason)];
}

CollisionPairReason CollisionPairReasonFromName(const std::string& name) {
  for (int k = 0; k < 5; ++k) {
    if (name == kReasonNames[k]) return static_cast<CollisionPairReason>(k);
  }
  ThrowInvalidArgument("unknown collision pair reason '", name,
                       "'; expected enabled, adjacent, default, always or "
                       "never");
}

bool SelfCollisionMatrixOptions::IsValid(std::string* why) const {
  if (samples < 1) {
    *why = "samples must be >= 1; got " + std::to_string(samples);
    return false;
  }
  if (!std::isfinite(contact_distance)) {
    *why = "contact_distance must be finite";
    return false;
  }
  if (!default_configuration.allFinite()) {
    *why = "default_configuration must be finite";
    return false;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>>
SelfCollisionMatrix::EnabledPairs() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const LinkPairEntry& e : pairs) {
    if (e.reason == CollisionPairReason::kEnabled) {
      out.emplace_back(e.first, e.second);
    }
  }
  return out;
}

const LinkPairEntry* SelfCollisionMatrix::Find(const std::string& a,
                                               const std::string& b) const {
  for (const LinkPairEntry& e : pairs) {
    if ((e.first == a && e.second == b) || (e.first == b && e.second == a)) {
      return &e;
    }
  }
  return nullptr;
}

int SelfCollisionMatrix::Count(CollisionPairReason reason) const {
  return static_cast<int>(
      std::count_if(pairs.begin(), pairs.end(),
                    [&](const LinkPairEntry& e) { return e.reason == reason; }));
}

SelfCollisionMatrix ComputeSelfCollisionMatrix(
    const Model& model, const std::vector<LinkShape>& shapes,
    const SelfCollisionMatrixOptions& options) {
  std::string why;
  if (!options.IsValid(&why)) {
    ThrowInvalidArgument("ComputeSelfCollisionMatrix: ", why);
  }
  Eigen::VectorXd q_default = options.default_configuration;
  if (q_default.size() == 0) {
    q_default = Eigen::VectorXd::Zero(model.nq())
                    .cwiseMax(model.lower())
                    .cwiseMin(model.upper());
  } else if (q_default.size() != model.nq()) {
    ThrowInvalidArgument("ComputeSelfCollisionMatrix: default_configuration "
                         "has ",
                         q_default.size(), " entries; the model has ",
                         model.nq(), " coordinates");
  }

  // Links with shapes, in model link order.
  std::vector<int> slot_of_link(model.num_links(), -1);
  std::vector<LinkShapes> links;
  for (const LinkShape& s : shapes) model.LinkIndex(s.link);  // unknown: throw
  for (int l = 0; l < model.num_links(); ++l) {
    LinkShapes entry;
    entry.link = l;
    entry.step = model.link_step(l);
    for (const LinkShape& s : shapes) {
      if (s.link != model.link_name(l)) continue;
      s.shape.Validate("ComputeSelfCollisionMatrix: shape '" + s.name + "'");
      entry.shapes.emplace_back(s.shape);
      entry.X_LG.push_back(s.X_LG);
    }
    if (!entry.shapes.empty()) {
      slot_of_link[l] = static_cast<int>(links.size());
      links.push_back(std::move(entry));
    }
  }

  // Rule 1: the parent in the tree of links with shapes.
  const std::vector<int> parent = internal::ParentLinks(model);
  std::vector<int> shaped_parent(links.size(), -1);
  for (std::size_t i = 0; i < links.size(); ++i) {
    for (int l = parent[links[i].link]; l >= 0; l = parent[l]) {
      if (slot_of_link[l] >= 0) {
        shaped_parent[i] = slot_of_link[l];
        break;
      }
    }
  }

  SelfCollisionMatrix matrix;
  matrix.samples = options.samples;
  matrix.seed = options.seed;
  matrix.contact_distance = options.contact_distance;
  std::vector<std::pair<int, int>> sampled;  // slots; index into matrix.pairs
  std::vector<int> sampled_entry;
  Data data(model);
  ForwardKinematics(model, q_default, &data);
  for (std::size_t i = 0; i < links.size(); ++i) {
    for (std::size_t j = i + 1; j < links.size(); ++j) {
      LinkPairEntry e{model.link_name(links[i].link),
                      model.link_name(links[j].link),
                      CollisionPairReason::kEnabled, 0};
      if (shaped_parent[i] == static_cast<int>(j) ||
          shaped_parent[j] == static_cast<int>(i)) {
        e.reason = CollisionPairReason::kAdjacent;
      } else if (Collide(links[i], links[j], data,
                         options.contact_distance)) {
        e.reason = CollisionPairReason::kDefault;
      } else {
        sampled.emplace_back(static_cast<int>(i), static_cast<int>(j));
        sampled_entry.push_back(static_cast<int>(matrix.pairs.size()));
      }
      matrix.pairs.push_back(e);
    }
  }

  // Rules 3–5 over the samples.
  std::mt19937_64 rng(options.seed);
  for (int s = 0; s < options.samples; ++s) {
    ForwardKinematics(model, RandomConfiguration(model, &rng), &data);
    for (std::size_t k = 0; k < sampled.size(); ++k) {
      if (Collide(links[sampled[k].first], links[sampled[k].second], data,
                  options.contact_distance)) {
        ++matrix.pairs[sampled_entry[k]].collisions;
      }
    }
  }
  for (const int k : sampled_entry) {
    LinkPairEntry& e = matrix.pairs[k];
    if (e.collisions == options.samples) {
      e.reason = CollisionPairReason::kAlways;
    } else if (e.collisions == 0) {
      e.reason = CollisionPairReason::kNever;
    }
  }
  return matrix;
}

void CheckSelfCollisionMatrix(const SelfCollisionMatrix& matrix,
                              const Model& model,
                              const std::vector<LinkShape>& shapes,
                              const std::string& source) {
  for (const LinkPairEntry& e : matrix.pairs) {
    for (const std::string* name : {&e.first, &e.second}) {
      bool known = false;
      for (int l = 0; l < model.num_links() && !known; ++l) {
        known = model.link_name(l) == *name;
      }
      if (!known) {
        ThrowInvalidArgument(source, ": link '", *name,
                             "' is not a link of the model; the matrix was "
                             "computed for another model (compute it again)");
      }
    }
  }
  std::vector<std::string> shaped;
  for (int l = 0; l < model.num_links(); ++l) {
    for (const LinkShape& s : shapes) {
      if (s.link == model.link_name(l)) {
        shaped.push_back(s.link);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < shaped.size(); ++i) {
    for (std::size_t j = i + 1; j < shaped.size(); ++j) {
      if (matrix.Find(shaped[i], shaped[j]) == nullptr) {
        ThrowInvalidArgument(source, ": no entry for links '", shaped[i],
                             "' and '", shaped[j],
                             "', which both carry shapes; the matrix was "
                             "computed for other shapes (compute it again)");
      }
    }
  }
}

}  // namespace iklab
