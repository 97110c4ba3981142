#include "lab/motion_retargeting.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/Geometry>

#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "constraints/tolerance_goals.h"
#include "framework/kinematics.h"
#include "lab/planted_point_goal.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/registry.h"

namespace iklab {

namespace {

// The parent key point of pair k: the pair whose source site is the nearest
// ancestor of k's in the source tree. On k's own step only a site nearer
// the step's origin (e.g. "Head" for "Head_End") qualifies; on an ancestor
// step the one nearest its origin.
int KeyPointParent(const Model& source, const std::vector<int>& sites, int k) {
  const auto offset = [&](int j) {
    return source.X_FS(sites[j]).translation().norm();
  };
  const int n = static_cast<int>(sites.size());
  int step = source.site_step(sites[k]);
  int best = -1;
  for (int j = 0; j < n; ++j) {
    if (j == k || source.site_step(sites[j]) != step) continue;
    const bool nearer = offset(j) < offset(k) || (offset(j) == offset(k) && j < k);
    if (nearer && (best < 0 || offset(j) < offset(best))) best = j;
  }
  while (best < 0 && step > 0) {
    step = source.parent(step);
    for (int j = 0; j < n; ++j) {
      if (source.site_step(sites[j]) != step) continue;
      if (best < 0 || offset(j) < offset(best)) best = j;
    }
  }
  return best;
}

// A rotation whose third column is `up` (the ground box's frame).
Eigen::Isometry3d GroundFrame(const Eigen::Vector3d& up) {
  Eigen::Vector3d a = up.unitOrthogonal();
  Eigen::Matrix3d R;
  R << a, up.cross(a), up;
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = R;
  return X;
}

double LegLength(const Model& model, const Data& data,
                 const std::vector<int>& sites, int root,
                 const std::vector<int>& lowest_of, const Eigen::Vector3d& up) {
  double lowest = std::numeric_limits<double>::infinity();
  for (int k : lowest_of) {
    lowest = std::min(lowest, up.dot(SitePosition(model, data, sites[k])));
  }
  return up.dot(SitePosition(model, data, sites[root])) - lowest;
}

// The first frame's start: `start` with only the coordinates that move the
// root key point (those of its site's ancestor steps, e.g. a floating root)
// solved for the root's key point and posture, the others held by equal
// bounds. From a rest pose far from the first frame (a BVH rest pose stands
// at the origin, the clip 1 m higher), a solve of every goal at once may
// wander to another Euler-angle representation of the same joint
// rotations, (a + π, π − b, c + π), which the frame-to-frame warm start
// then keeps for the whole clip.
Eigen::VectorXd PlaceRoot(
    const std::shared_ptr<const Model>& target, const KeyPointTrack& track,
    const std::vector<std::shared_ptr<PositionGoal>>& keypoints,
    const std::vector<std::shared_ptr<OrientationGoal>>& postures,
    const std::vector<int>& posture_of, const Solver& solver,
    const Eigen::VectorXd& start) {
  const Model& model = *target;
  int root = 0;
  while (track.parent[root] >= 0) ++root;
  std::vector<char> moves_root(model.nq(), 0);
  for (int step = model.site_step(keypoints[root]->site()); step > 0;
       step = model.parent(step)) {
    if (model.dof(step) >= 0) moves_root[model.dof(step)] = 1;
  }
  Problem problem(target);
  keypoints[root]->set_target(track.p[0][root]);
  problem.AddGoal(keypoints[root]);
  for (std::size_t g = 0; g < postures.size(); ++g) {
    if (posture_of[g] != root) continue;
    postures[g]->set_target(track.R[0][root]);
    problem.AddGoal(postures[g]);
  }
  for (int i = 0; i < model.nq(); ++i) {
    if (!moves_root[i]) problem.mutable_bounds()->Set(i, start[i], start[i]);
  }
  const Result placed = solver.Solve(problem, start);
  if (placed.q.size() == model.nq() && placed.q.allFinite()) return placed.q;
  return start;
}

}  // namespace

const char* ContactModeName(ContactMode mode) {
  switch (mode) {
    case ContactMode::kOff:
      return "off";
    case ContactMode::kPenalty:
      return "penalty";
    case ContactMode::kHard:
      return "hard";
  }
  return "?";
}

ContactMode ParseContactMode(const std::string& name) {
  for (ContactMode m :
       {ContactMode::kOff, ContactMode::kPenalty, ContactMode::kHard}) {
    if (name == ContactModeName(m)) return m;
  }
  throw std::invalid_argument("contact mode '" + name +
                              "' is not one of off, penalty, hard");
}

KeyPointTrack MakeKeyPointTrack(const Model& source,
                                const Eigen::MatrixXd& poses,
                                const std::vector<int>& frames,
                                double frame_time, const RetargetMap& map,
                                const Model& target) {
  CheckRetargetMap(map, source, target);
  if (poses.cols() != source.nq()) {
    throw std::invalid_argument(
        "MakeKeyPointTrack: poses has " + std::to_string(poses.cols()) +
        " columns; the source has nq = " + std::to_string(source.nq()));
  }
  if (!(frame_time > 0.0) || !std::isfinite(frame_time)) {
    throw std::invalid_argument(
        "MakeKeyPointTrack: frame_time must be > 0 seconds; got " +
        std::to_string(frame_time));
  }
  KeyPointTrack track;
  track.frames = frames;
  track.frame_time = frame_time;
  track.source_up = map.source_up;
  track.target_up = map.target_up;
  const Eigen::Matrix3d R_TS = map.R_TS();
  std::vector<int> s_site, t_site;
  for (const RetargetPair& pair : map.pairs) {
    track.source_sites.push_back(pair.source);
    track.target_sites.push_back(pair.target);
    track.position_weights.push_back(pair.position_weight);
    track.orientation_weights.push_back(pair.orientation_weight);
    s_site.push_back(source.SiteIndex(pair.source));
    t_site.push_back(target.SiteIndex(pair.target));
  }
  const int n = static_cast<int>(s_site.size());
  for (const std::string& foot : map.feet) {
    for (int k = 0; k < n; ++k) {
      if (track.source_sites[k] == foot) track.feet.push_back(k);
    }
  }
  std::vector<int> roots;
  for (int k = 0; k < n; ++k) {
    track.parent.push_back(KeyPointParent(source, s_site, k));
    if (track.parent.back() < 0) roots.push_back(k);
  }
  // Rest poses: the source's q = 0 (the BVH rest pose); the target's q = 0
  // (the builders' standing pose) with the map's target_rest coordinates.
  Data source_rest(source), target_rest(target);
  track.target_rest = TargetRestPose(map, target);
  ForwardKinematics(source, Eigen::VectorXd::Zero(source.nq()), &source_rest);
  ForwardKinematics(target, track.target_rest, &target_rest);
  std::vector<int> lowest_of = track.feet;
  if (lowest_of.empty()) {
    for (int k = 0; k < n; ++k) lowest_of.push_back(k);
  }
  const int root = roots.front();  // the first pair without a mapped ancestor
  track.source_leg_length =
      LegLength(source, source_rest, s_site, root, lowest_of, map.source_up);
  track.target_leg_length =
      LegLength(target, target_rest, t_site, root, lowest_of, map.target_up);
  if (!(track.source_leg_length > 0.0) || !(track.target_leg_length > 0.0)) {
    // The root is the lowest key point (a trunk without legs): measure both
    // by the largest rest distance from the root to a key point instead.
    track.source_leg_length = track.target_leg_length = 0.0;
    for (int k = 0; k < n; ++k) {
      track.source_leg_length = std::max(
          track.source_leg_length,
          (SitePosition(source, source_rest, s_site[k]) -
           SitePosition(source, source_rest, s_site[root]))
              .norm());
      track.target_leg_length = std::max(
          track.target_leg_length,
          (SitePosition(target, target_rest, t_site[k]) -
           SitePosition(target, target_rest, t_site[root]))
              .norm());
    }
  }
  if (!(track.source_leg_length > 0.0) || !(track.target_leg_length > 0.0)) {
    throw std::invalid_argument(
        map.origin + ": the root key point '" + track.source_sites[root] +
        "' is not above the lowest " +
        (track.feet.empty() ? "key point" : "foot") +
        " at rest in the source and the target (leg lengths " +
        std::to_string(track.source_leg_length) + " and " +
        std::to_string(track.target_leg_length) +
        "); check the map's axes and pairs");
  }
  track.scale = track.target_leg_length / track.source_leg_length;
  for (int k = 0; k < n; ++k) {
    const int j = track.parent[k];
    double rho = track.scale;
    if (j >= 0) {
      const double ls = (SitePosition(source, source_rest, s_site[k]) -
                         SitePosition(source, source_rest, s_site[j]))
                            .norm();
      const double lt = (SitePosition(target, target_rest, t_site[k]) -
                         SitePosition(target, target_rest, t_site[j]))
                            .norm();
      if (ls > 1e-9 * track.source_leg_length) rho = lt / ls;
    }
    track.segment_scale.push_back(rho);
  }

  // Source positions and rotations per frame; the source ground.
  Data data(source);
  std::vector<std::vector<Eigen::Vector3d>> ps;
  std::vector<std::vector<Eigen::Matrix3d>> Rs;
  track.source_ground = std::numeric_limits<double>::infinity();
  for (int f : frames) {
    if (f < 0 || f >= poses.rows()) {
      throw std::invalid_argument(
          "MakeKeyPointTrack: frame " + std::to_string(f) +
          " is not a row of poses (" + std::to_string(poses.rows()) +
          " frames)");
    }
    ForwardKinematics(source, poses.row(f).transpose(), &data);
    std::vector<Eigen::Vector3d> p;
    std::vector<Eigen::Matrix3d> R;
    for (int k = 0; k < n; ++k) {
      const Eigen::Isometry3d X = SitePose(source, data, s_site[k]);
      p.push_back(X.translation());
      R.push_back(X.linear());
    }
    std::vector<Eigen::Vector3d> feet;
    for (int k : track.feet) feet.push_back(p[k]);
    for (int k : lowest_of) {
      track.source_ground =
          std::min(track.source_ground, map.source_up.dot(p[k]));
    }
    track.source_feet.push_back(feet);
    ps.push_back(p);
    Rs.push_back(R);
  }
  if (frames.empty()) track.source_ground = 0.0;

  // Targets: roots first, then each key point from its parent (parents come
  // first in the source's depth-first step order).
  std::vector<int> order(n);
  for (int k = 0; k < n; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return source.site_step(s_site[a]) < source.site_step(s_site[b]);
  });
  std::vector<Eigen::Matrix3d> rest_offset(n);  // R_S,restᵀ Rᵀ R_T,rest
  for (int k = 0; k < n; ++k) {
    rest_offset[k] = SitePose(source, source_rest, s_site[k]).linear().transpose() *
                     R_TS.transpose() *
                     SitePose(target, target_rest, t_site[k]).linear();
  }
  for (std::size_t t = 0; t < frames.size(); ++t) {
    std::vector<Eigen::Vector3d> P(n);
    std::vector<Eigen::Matrix3d> Rg(n);
    std::vector<char> done(n, 0);
    // Same-step children may precede their parent in `order`: repeat until
    // every key point is placed (at most n passes).
    for (int pass = 0; pass < n; ++pass) {
      for (int k : order) {
        if (done[k]) continue;
        const int j = track.parent[k];
        if (j < 0) {
          P[k] = track.scale *
                 (R_TS * (ps[t][k] - track.source_ground * map.source_up));
        } else if (done[j]) {
          P[k] = P[j] + track.segment_scale[k] * (R_TS * (ps[t][k] - ps[t][j]));
        } else {
          continue;
        }
        Rg[k] = R_TS * Rs[t][k] * rest_offset[k];
        done[k] = 1;
      }
    }
    track.p.push_back(P);
    track.R.push_back(Rg);
  }
  // Per-segment scaling moves the feet's lowest point off the ground (a
  // longer shank lowers an inclined foot less than s times): shift every
  // key point along u_T so that the lowest foot key point touches it.
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& P : track.p) {
    for (int k : lowest_of) lowest = std::min(lowest, map.target_up.dot(P[k]));
  }
  if (!track.p.empty()) {
    for (auto& P : track.p) {
      for (Eigen::Vector3d& p : P) p -= lowest * map.target_up;
    }
  }
  return track;
}

bool MotionRetargetOptions::IsValid(std::string* why) const {
  const std::pair<const char*, double> weights[] = {
      {"keypoint_weight", keypoint_weight},
      {"orientation_weight", orientation_weight},
      {"smoothness_weight", smoothness_weight},
      {"contact_weight", contact_weight},
      {"contact_blend_seconds", contact_blend_seconds},
      {"branch_check_error", branch_check_error}};
  for (const auto& [name, value] : weights) {
    if (!(value >= 0.0) || !std::isfinite(value)) {
      if (why != nullptr) {
        *why = std::string("MotionRetargetOptions::") + name +
               " must be a finite number >= 0; got " + std::to_string(value);
      }
      return false;
    }
  }
  if (!contact.IsValid(why) || !collision_matrix.IsValid(why)) return false;
  if (!(self_collision_weight >= 0.0) || !std::isfinite(self_collision_weight)) {
    if (why != nullptr) {
      *why = "MotionRetargetOptions::self_collision_weight must be a finite "
             "number >= 0; got " + std::to_string(self_collision_weight);
    }
    return false;
  }
  if (self_collision_matrix != nullptr && collision_shapes.empty()) {
    if (why != nullptr) {
      *why = "MotionRetargetOptions::self_collision_matrix is given but the "
             "target has no collision_shapes";
    }
    return false;
  }
  if (self_collision != ContactMode::kOff && collision_shapes.empty()) {
    if (why != nullptr) {
      *why = std::string("MotionRetargetOptions::self_collision is ") +
             ContactModeName(self_collision) +
             " but the target has no collision_shapes (a robot's URDF or "
             "MJCF geometry)";
    }
    return false;
  }
  return true;
}

std::shared_ptr<const ShapeCollisionGoal> SelfPenetrationGoal(
    const Model& model, const std::vector<LinkShape>& shapes,
    const SelfCollisionMatrix& matrix) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const LinkPairEntry& e : matrix.pairs) {
    if (e.reason == CollisionPairReason::kEnabled ||
        e.reason == CollisionPairReason::kNever) {
      pairs.emplace_back(e.first, e.second);
    }
  }
  if (pairs.empty()) return nullptr;
  return std::make_shared<const ShapeCollisionGoal>(
      model, shapes, std::vector<WorldShape>{}, pairs, 0.0, 1.0);
}

std::vector<std::vector<char>> SourceContacts(const KeyPointTrack& track,
                                              const ContactOptions& options) {
  return DetectContacts(track.source_feet, track.source_up, track.frame_time,
                        track.source_leg_length, options);
}

MotionRetargetResult RetargetMotion(const std::shared_ptr<const Model>& target,
                                    const KeyPointTrack& track,
                                    const Solver& solver,
                                    const MotionRetargetOptions& options,
                                    const Eigen::VectorXd& start) {
  std::string why;
  if (!options.IsValid(&why)) throw std::invalid_argument(why);
  if (target == nullptr || target->nq() == 0) {
    throw std::invalid_argument(
        "RetargetMotion: the target has no coordinates to solve for");
  }
  target->CheckConfiguration(start, "RetargetMotion: start");
  const Model& model = *target;
  const int n = static_cast<int>(track.target_sites.size());
  const double L = track.target_leg_length;
  const double L2 = L * L;

  MotionRetargetResult result;
  result.contact = SourceContacts(track, options.contact);
  result.run.solver = solver.name();

  // Goals that live through the clip; targets change per frame.
  std::vector<std::shared_ptr<PositionGoal>> keypoints;
  std::vector<std::shared_ptr<OrientationGoal>> postures;
  std::vector<int> posture_of;
  for (int k = 0; k < n; ++k) {
    keypoints.push_back(std::make_shared<PositionGoal>(
        model, track.target_sites[k], Eigen::Vector3d::Zero(),
        options.keypoint_weight * track.position_weights[k] / L2));
    const double w = options.orientation_weight * track.orientation_weights[k];
    if (w > 0.0) {
      postures.push_back(std::make_shared<OrientationGoal>(
          model, track.target_sites[k], Eigen::Matrix3d::Identity(), w));
      posture_of.push_back(k);
    }
  }
  Eigen::VectorXd gains(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    gains[i] = model.kind(model.dof_step(i)) == StepKind::kPrismatic
                   ? options.smoothness_weight / L2
                   : options.smoothness_weight;
  }
  const auto smoothness =
      std::make_shared<JointCenterBias>(model, start, gains);
  const Eigen::Isometry3d ground_frame = GroundFrame(track.target_up);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::shared_ptr<PositionBoxGoal>> grounds;
  for (int k : track.feet) {
    grounds.push_back(std::make_shared<PositionBoxGoal>(
        model, track.target_sites[k], ground_frame,
        Eigen::Vector3d(-inf, -inf, 0.0), Eigen::Vector3d(inf, inf, inf),
        options.contact_weight / L2));
  }
  std::vector<Eigen::Vector3d> anchor(track.feet.size());
  // A point lifted onto the ground if below it.
  const auto on_ground = [&](Eigen::Vector3d p) {
    const double below = -track.target_up.dot(p);
    if (below > 0.0) p += below * track.target_up;
    return p;
  };
  // Frames since each foot's contact ended (−1: none fading).
  std::vector<int> since_release(track.feet.size(), -1);
  // The foot of each foot point: its topmost key-point ancestor that is a
  // foot point too (the ankle for the toe), so that points of one foot share
  // it and the two feet do not.
  std::vector<int> foot_of(track.feet.size());
  for (std::size_t j = 0; j < track.feet.size(); ++j) {
    foot_of[j] = track.feet[j];
    for (int k = track.parent[track.feet[j]]; k >= 0; k = track.parent[k]) {
      if (std::find(track.feet.begin(), track.feet.end(), k) !=
          track.feet.end()) {
        foot_of[j] = k;
      }
    }
  }
  const int blend = static_cast<int>(
      std::lround(options.contact_blend_seconds / track.frame_time));
  // The self-collision matrix, given or once per retarget; the goal over
  // its enabled pairs, and the pairs self-penetration is measured on.
  std::shared_ptr<const ShapeCollisionGoal> self_collision, measured_pairs;
  if (options.self_collision_matrix != nullptr) {
    CheckSelfCollisionMatrix(*options.self_collision_matrix, model,
                             options.collision_shapes,
                             "MotionRetargetOptions::self_collision_matrix");
    result.self_collision_matrix = *options.self_collision_matrix;
  } else if (!options.collision_shapes.empty()) {
    result.self_collision_matrix = ComputeSelfCollisionMatrix(
        model, options.collision_shapes, options.collision_matrix);
  }
  if (!options.collision_shapes.empty()) {
    measured_pairs = SelfPenetrationGoal(model, options.collision_shapes,
                                         result.self_collision_matrix);
    const auto enabled = result.self_collision_matrix.EnabledPairs();
    if (options.self_collision != ContactMode::kOff && !enabled.empty()) {
      self_collision = std::make_shared<const ShapeCollisionGoal>(
          model, options.collision_shapes, std::vector<WorldShape>{}, enabled,
          0.0, options.self_collision_weight / L2);
    }
  }

  Data data(model);
  Eigen::VectorXd q = start;
  const int frames = static_cast<int>(track.p.size());
  if (frames > 0) q = PlaceRoot(target, track, keypoints, postures, posture_of,
                                solver, start);
  // Hard mode: each planted point held exactly in the directions its
  // position Jacobian adds to the points before it (PlantedPointDirections;
  // none where the points before it already fix its body's pose). Every
  // planted point also keeps its penalty goal, which the equalities leave
  // at zero.
  std::vector<std::shared_ptr<PlantedPointGoal>> held(track.feet.size());
  // The problem of frame t: contacts as goals (penalty), or as constraints
  // where `held` says so. A phase that begins at t takes its anchor from
  // `from` (the source's point, or the target's own once placed). `placing`:
  // the solve that places the points of phases beginning at t (below); in
  // hard mode they have no equalities yet and keep their ground
  // constraints, with penalties they have no planted goal yet.
  const auto frame_problem = [&](int t, bool hard,
                                 const std::vector<Eigen::Vector3d>& from,
                                 bool placing = false) {
    Problem problem(target);
    for (int k = 0; k < n; ++k) {
      keypoints[k]->set_target(track.p[t][k]);
      problem.AddGoal(keypoints[k]);
    }
    for (std::size_t g = 0; g < postures.size(); ++g) {
      postures[g]->set_target(track.R[t][posture_of[g]]);
      problem.AddGoal(postures[g]);
    }
    if (t > 0 && options.smoothness_weight > 0.0) {
      smoothness->set_centers(q);
      problem.AddRegularizer(smoothness);
    }
    if (self_collision != nullptr) {
      if (options.self_collision == ContactMode::kHard) {
        problem.AddInequalityConstraint(self_collision);
      } else {
        problem.AddGoal(self_collision);
      }
    }
    if (options.contacts == ContactMode::kOff) return problem;
    for (std::size_t j = 0; j < track.feet.size(); ++j) {
      const int k = track.feet[j];
      if (!result.contact[t][j]) {
        // Released: the planted goal fades out over the blend frames.
        if (since_release[j] < 0 || since_release[j] + 1 > blend) continue;
        const double fade = 1.0 - (since_release[j] + 1) / (blend + 1.0);
        problem.AddGoal(std::make_shared<PositionGoal>(
            model, track.target_sites[k], anchor[j],
            fade * options.contact_weight / L2));
        continue;
      }
      if (t == 0 || !result.contact[t - 1][j]) {  // a phase begins
        if (placing && !hard) continue;
        anchor[j] = on_ground(from[j]);
      }
      problem.AddGoal(std::make_shared<PositionGoal>(
          model, track.target_sites[k], anchor[j],
          options.contact_weight / L2));
      if (hard && held[j] != nullptr) problem.AddEqualityConstraint(held[j]);
    }
    bool holding = false;
    for (const auto& h : held) holding = holding || h != nullptr;
    for (std::size_t j = 0; j < grounds.size(); ++j) {
      const bool anchored =
          result.contact[t][j] &&
          !(placing && (t == 0 || !result.contact[t - 1][j]));
      if (!hard) {
        problem.AddGoal(grounds[j]);
      } else if (!(anchored && holding)) {
        // (A planted point's anchor is on or above the ground and the
        // equalities hold it there: its ground constraint would only repeat
        // them, dependently.)
        problem.AddInequalityConstraint(grounds[j]);
      }
    }
    return problem;
  };
  // The branch check's seed: the coordinates that do not move the root key
  // point go back to the rest pose's (PlaceRoot's split); a track made
  // without one (target_rest empty) uses the start.
  const Eigen::VectorXd& rest =
      track.target_rest.size() == model.nq() ? track.target_rest : start;
  int root_key = 0;
  while (root_key < n && track.parent[root_key] >= 0) ++root_key;
  std::vector<char> moves_root(model.nq(), 0);
  if (root_key < n) {
    for (int step = model.site_step(keypoints[root_key]->site()); step > 0;
         step = model.parent(step)) {
      if (model.dof(step) >= 0) moves_root[model.dof(step)] = 1;
    }
  }
  // Σ_k w_k ‖P(k, t) − p_k(q)‖² and the largest ‖P(k, t) − p_k(q)‖.
  const auto keypoint_misses = [&](int t, const Eigen::VectorXd& x,
                                   double* cost) {
    ForwardKinematics(model, x, &data);
    double largest = 0.0;
    *cost = 0.0;
    for (int k = 0; k < n; ++k) {
      const double e =
          (SitePosition(model, data, keypoints[k]->site()) - track.p[t][k])
              .norm();
      largest = std::max(largest, e);
      *cost += track.position_weights[k] * e * e;
    }
    return largest;
  };
  const auto usable = [&](const Result& r) {
    return r.q.size() == model.nq() && r.q.allFinite();
  };
  std::vector<Eigen::Vector3d> source_points(track.feet.size());
  std::vector<Eigen::Vector3d> own_points(track.feet.size());
  for (int t = 0; t < frames; ++t) {
    bool begins = false, ends = false;
    for (std::size_t j = 0; j < track.feet.size(); ++j) {
      source_points[j] = track.p[t][track.feet[j]];
      const bool before = t > 0 && result.contact[t - 1][j];
      begins = begins || (result.contact[t][j] && !before);
      ends = ends || (!result.contact[t][j] && before);
      if (result.contact[t][j] && !before) {
        // The foot has landed again: a released point of it no longer
        // fades toward where it stood before (its old anchor would pull
        // the foot off its new one, and the fade's last step would jerk).
        for (std::size_t i = 0; i < track.feet.size(); ++i) {
          if (foot_of[i] == foot_of[j] && !result.contact[t][i]) {
            since_release[i] = -1;
          }
        }
      }
    }
    const auto begin = std::chrono::steady_clock::now();
    Eigen::VectorXd from = q;
    const std::vector<Eigen::Vector3d>* anchors = &source_points;
    const bool hard = options.contacts == ContactMode::kHard;
    const bool placing = begins && options.contacts != ContactMode::kOff;
    if (placing) {
      // A phase begins: place its points on the target's own foot (file
      // comment), holding the points planted before as they stand. In hard
      // mode the new points are pulled to the source's points by penalties
      // while the old points' equalities keep the foot standing, and keep
      // the ground as a hard constraint, so their anchors are on or above
      // it as one rigid foot: lifting a point that a penalty left below
      // would move it off its foot, where the equalities, which fix each
      // foot's pose, cannot follow. With penalties they follow their key
      // points only: a planted goal at the source's point would drag the
      // points planted before, which are penalties too.
      if (hard) {
        for (std::size_t j = 0; j < track.feet.size(); ++j) {
          if (!result.contact[t][j]) held[j] = nullptr;
        }
      }
      const Result placed =
          solver.Solve(frame_problem(t, hard, source_points, true), q);
      if (usable(placed)) from = placed.q;
      anchors = &own_points;
    }
    if (placing || (hard && ends)) {
      ForwardKinematics(model, from, &data);
      for (std::size_t j = 0; j < track.feet.size(); ++j) {
        own_points[j] =
            SitePosition(model, data, keypoints[track.feet[j]]->site());
      }
    }
    if (hard && (begins || ends)) {
      // The planted set changed: choose again which directions of which
      // points are equalities (a point that got none from the points
      // before it may need some once they are released, e.g. the toe of a
      // foot whose heel lifts).
      std::vector<int> planted_sites;
      for (std::size_t j = 0; j < track.feet.size(); ++j) {
        if (result.contact[t][j]) {
          planted_sites.push_back(keypoints[track.feet[j]]->site());
        }
      }
      const std::vector<Eigen::Matrix3Xd> directions =
          PlantedPointDirections(model, data, planted_sites);
      for (std::size_t j = 0, i = 0; j < track.feet.size(); ++j) {
        held[j] = nullptr;
        if (!result.contact[t][j]) continue;
        const Eigen::Matrix3Xd& U = directions[i++];
        if (U.cols() == 0) continue;
        // A continuing phase keeps its anchor; a new one takes its own
        // point, lifted onto the ground as frame_problem does.
        const Eigen::Vector3d at = t > 0 && result.contact[t - 1][j]
                                       ? anchor[j]
                                       : on_ground(own_points[j]);
        held[j] = std::make_shared<PlantedPointGoal>(
            model, track.target_sites[track.feet[j]], at, U);
      }
    }
    const Problem problem = frame_problem(t, hard, *anchors);
    for (std::size_t j = 0; j < track.feet.size(); ++j) {
      if (result.contact[t][j]) {
        since_release[j] = 0;
      } else if (since_release[j] >= 0 && ++since_release[j] > blend) {
        since_release[j] = -1;
      }
    }
    Result solved = solver.Solve(problem, from);
    double first_cost = 0.0;
    if (options.branch_check_error > 0.0 && usable(solved) &&
        keypoint_misses(t, solved.q, &first_cost) >
            options.branch_check_error * L) {
      Eigen::VectorXd seed = solved.q;
      for (int i = 0; i < model.nq(); ++i) {
        if (!moves_root[i]) seed[i] = rest[i];
      }
      Result again = solver.Solve(problem, seed);
      double second_cost = 0.0;
      if (usable(again) && again.status != SolveStatus::kInvalidInput) {
        keypoint_misses(t, again.q, &second_cost);
        if (second_cost < 0.5 * first_cost) solved = std::move(again);
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    if (solved.status == SolveStatus::kInvalidInput) {
      throw std::invalid_argument("RetargetMotion: solver " + solver.name() +
                                  " refused the problem of frame " +
                                  std::to_string(track.frames[t]) + ": " +
                                  solved.message);
    }
    RetargetFrame r;
    r.frame = track.frames[t];
    r.microseconds = 1e6 * seconds;
    r.iterations = solved.iterations;
    r.converged = solved.converged();
    r.status = solved.status;
    r.message = solved.message;
    if (solved.q.size() == model.nq() && solved.q.allFinite()) q = solved.q;
    ForwardKinematics(model, q, &data);
    for (int k = 0; k < n; ++k) {
      const double e =
          (SitePosition(model, data, keypoints[k]->site()) - track.p[t][k])
              .norm();
      r.max_error = std::max(r.max_error, e);
      r.mean_error += e / n;
    }
    result.run.frames.push_back(r);
    result.run.q.push_back(q);
  }
  result.metrics = MeasureAgainstTrack(model, track, result.run, result.contact,
                                       measured_pairs.get());
  // Geometry without a pair that may overlap: measured, nothing overlaps.
  if (!options.collision_shapes.empty()) {
    result.metrics.self_penetration.measured = true;
  }
  return result;
}

RetargetMetrics MeasureAgainstTrack(
    const Model& model, const KeyPointTrack& track, const RetargetRun& run,
    const std::vector<std::vector<char>>& contact,
    const ShapeCollisionGoal* self_penetration) {
  if (run.q.size() != track.p.size()) {
    throw std::invalid_argument(
        "MeasureAgainstTrack: the run has " + std::to_string(run.q.size()) +
        " frames; the track " + std::to_string(track.p.size()));
  }
  std::vector<double> microseconds;
  std::vector<bool> converged;
  for (const RetargetFrame& r : run.frames) {
    microseconds.push_back(r.microseconds);
    converged.push_back(r.converged);
  }
  RetargetMetrics m = MeasureRetargeting(
      model, run.q, track.target_sites, track.p, track.feet, contact,
      track.target_up, track.frame_time, microseconds, converged);
  if (self_penetration != nullptr) {
    m.self_penetration = MeasureSelfPenetration(model, run.q, *self_penetration);
  }
  return m;
}

std::optional<HumanFigureOptions> HumanRetargetOptions(const std::string& onto) {
  if (onto != "human" && onto.rfind("human:", 0) != 0) return std::nullopt;
  HumanFigureOptions options;
  if (onto.size() > 6) {
    const std::string h = onto.substr(6);
    std::size_t used = 0;
    double height = 0.0;
    try {
      height = std::stod(h, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != h.size() || !(height > 0.0) || !std::isfinite(height)) {
      throw std::invalid_argument("onto '" + onto +
                                  "': the height must be a number of metres "
                                  "> 0 (e.g. human:1.6)");
    }
    options.body.height = height;
  }
  return options;
}

std::unique_ptr<Solver> MakeMotionRetargetSolver(const std::string& name,
                                                 double tolerance) {
  const SolverEntry* entry = FindSolver(name);
  if (entry == nullptr) {
    throw std::invalid_argument("no solver named '" + name +
                                "'; the known ones are " + SolverNames());
  }
  if (entry->family == SolverFamily::kAnalytic ||
      name == "extended-jacobian") {
    throw std::invalid_argument(
        "solver '" + name + "' takes " + entry->accepts +
        "; retargeting solves many key points in 3D with a general solver");
  }
  if (!(tolerance > 0.0) || !std::isfinite(tolerance)) {
    throw std::invalid_argument(
        "the retargeting tolerance must be a finite length > 0; got " +
        std::to_string(tolerance));
  }
  SolveOptions common;
  common.position_tolerance = tolerance;
  common.max_iterations = 10000;
  common.time_budget_seconds = 0.0;
  if (name != "bounded-lm") return MakeSolver(name, common);
  BoundedLmOptions lm;
  lm.common = common;
  lm.max_attempts = 1;
  return std::make_unique<BoundedLmSolver>(lm);
}

}  // namespace iklab
