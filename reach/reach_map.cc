#include "reach/reach_map.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "bench/ik_benchmark.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "reach/orientation_set.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/restarts.h"

namespace iklab {

using internal::ThrowInvalidArgument;

ChainReach ComputeChainReach(const Model& model, int site) {
  ChainReach reach =
      ComputeChainReach(model, site, model.lower(), model.upper());
  if (!reach.moves) {
    ThrowInvalidArgument("the chain to site '", model.site_name(site),
                         "' has no moving joint; there is no reach to map");
  }
  if (!reach.unbounded.empty()) {
    ThrowInvalidArgument(reach.unbounded,
                         "; the chain's reach is unbounded and cannot be "
                         "gridded");
  }
  return reach;
}

std::uint64_t QuerySeed(std::uint64_t seed, std::int64_t voxel,
                        int orientation) {
  // SplitMix64 finalizer over the seed advanced by both indices.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL *
                               (static_cast<std::uint64_t>(voxel) * 65537ULL +
                                static_cast<std::uint64_t>(orientation) + 1ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

ReachTask::ReachTask(std::shared_ptr<const Model> model,
                     const std::string& site, const ReachSettings& settings,
                     std::shared_ptr<const CollisionSetup> collisions)
    : model_(std::move(model)),
      settings_(settings),
      collisions_(std::move(collisions)) {
  if (!model_) ThrowInvalidArgument("ReachTask: model is null");
  std::string why;
  if (!settings_.IsValid(&why)) ThrowInvalidArgument("reach settings: ", why);
  site_ = model_->SiteIndex(site);
  reach_ = ComputeChainReach(*model_, site_);
  const double n = std::ceil(2.0 * reach_.radius / settings_.resolution - 1e-9);
  if (!(n * n * n <= 2147483647.0)) {
    ThrowInvalidArgument("resolution ", settings_.resolution, " gives ", n,
                         "^3 voxels for a reach of ", reach_.radius,
                         "; more than 2^31 voxels: use a coarser resolution");
  }
  const int per_axis = std::max(1, static_cast<int>(n));
  grid_.resolution = settings_.resolution;
  grid_.shape = Eigen::Vector3i::Constant(per_axis);
  grid_.origin = reach_.centre - Eigen::Vector3d::Constant(
                                     0.5 * (per_axis - 1) * settings_.resolution);
  if (!settings_.position_only) {
    orientations_ =
        ApproachOrientations(settings_.approach_axes, settings_.rolls);
  }
  const bool want_analytic = settings_.solver == ReachSolverKind::kAnalytic6r;
  if (want_analytic && collisions_) {
    ThrowInvalidArgument("solver analytic-6r takes no collision goal; use "
                         "bounded-lm (or auto) with collisions");
  }
  if (settings_.solver != ReachSolverKind::kBoundedLm &&
      !settings_.position_only && !collisions_) {
    std::string reason;
    if (SixRArm::Create(*model_, site_, &reason)) {
      SixRAnalyticOptions options;
      options.common.position_tolerance = settings_.tolerance;
      options.common.angle_tolerance = settings_.tolerance;
      analytic_ = std::make_shared<SixRAnalyticSolver>(options);
      Problem problem(model_);
      problem.AddGoal(std::make_shared<PositionOrientationGoal>(
          *model_, site, Eigen::Isometry3d::Identity()));
      analytic_->Prepare(problem);
    } else if (want_analytic) {
      ThrowInvalidArgument("solver analytic-6r does not apply to this chain: ",
                           reason);
    }
  } else if (want_analytic) {
    ThrowInvalidArgument(
        "solver analytic-6r solves full poses; a position-only map needs "
        "bounded-lm (or auto)");
  }
}

std::string ReachTask::solver_name() const {
  return ReachSolverName(analytic_ ? ReachSolverKind::kAnalytic6r
                                   : ReachSolverKind::kBoundedLm);
}

bool ReachTask::InsideReach(std::int64_t v) const {
  return (grid_.Centre(v) - reach_.centre).norm() <= reach_.radius;
}

namespace {

// Largest component of the rotation vector of R_target R_reachedᵀ, and of
// the position difference, by the benchmark's independent FK.
bool VerifiedPosition(const Model& model, int site, const Eigen::VectorXd& q,
                      const Eigen::Vector3d& target, double tolerance) {
  const Eigen::VectorXd q_full = model.FullConfiguration(q);
  const Eigen::Isometry3d X = ReferenceSitePose(model, site, q_full);
  return (target - X.translation()).cwiseAbs().maxCoeff() <= tolerance &&
         model.WithinLimits(q) && FullWithinLimits(model, q_full) &&
         MimicRelationError(model, q_full) <= kMimicRelationTolerance;
}

}  // namespace

VoxelResult ReachTask::ComputeVoxel(std::int64_t v) const {
  if (v < 0 || v >= grid_.num_voxels()) {
    ThrowInvalidArgument("ComputeVoxel: voxel index ", v, " out of range [0, ",
                         grid_.num_voxels(), ")");
  }
  const int n = settings_.orientations_per_voxel();
  if (!InsideReach(v)) return UnsolvedVoxel(VoxelState::kOutsideReach, n);
  VoxelResult result = UnsolvedVoxel(VoxelState::kSolved, n);
  const Model& model = *model_;
  const Eigen::Vector3d p = grid_.Centre(v);
  const std::string& site_name = model.site_name(site_);

  // One problem per voxel (goals are mutated per query).
  Problem problem(model_);
  std::shared_ptr<PositionGoal> position_goal;
  std::shared_ptr<PositionOrientationGoal> pose_goal;
  if (settings_.position_only) {
    position_goal = std::make_shared<PositionGoal>(model, site_name, p);
    problem.AddGoal(position_goal);
  } else {
    // Rotation weighted 0.4 against metres, as in the benchmark protocol.
    PositionOrientationScales scales;
    scales.w_o = 0.4 * 0.4;
    pose_goal = std::make_shared<PositionOrientationGoal>(
        model, site_name, Eigen::Isometry3d::Identity(), 1.0, scales);
    problem.AddGoal(pose_goal);
  }
  if (collisions_) problem.AddGoal(collisions_->MakeGoal(model));
  BoundedLmOptions lm;
  lm.common.max_iterations = settings_.max_iterations;
  lm.common.time_budget_seconds = 0.0;  // iteration caps only: deterministic
  lm.common.position_tolerance = settings_.tolerance;
  lm.common.angle_tolerance = settings_.tolerance;
  lm.max_attempts = settings_.max_attempts;

  Data data(model);
  Matrix6Xd J(6, model.nq());
  Eigen::Matrix3Xd Jp(3, model.nq());
  double sum = 0.0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (int o = 0; o < n; ++o) {
    const std::uint64_t seed = QuerySeed(settings_.seed, v, o);
    std::mt19937_64 rng(seed);
    const Eigen::VectorXd q0 = RandomPose(problem.bounds(), &rng);
    Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
    target.translation() = p;
    Result solved;
    if (settings_.position_only) {
      lm.seed = seed;
      solved = Solve(problem, q0, lm);
    } else {
      target.linear() = orientations_[o].toRotationMatrix();
      pose_goal->set_target(target);
      if (analytic_) {
        solved = analytic_->Solve(problem, q0);
      } else {
        lm.seed = seed;
        solved = Solve(problem, q0, lm);
      }
    }
    if (!solved.converged()) continue;
    const bool ok =
        settings_.position_only
            ? VerifiedPosition(model, site_, solved.q, p, settings_.tolerance) &&
                  (!collisions_ ||
                   IndependentMinDistance(model, *collisions_, solved.q) >=
                       -settings_.tolerance)
            : Verify(model, site_, solved.q, target, settings_.tolerance,
                     collisions_.get())
                  .success;
    if (!ok) continue;
    ForwardKinematics(model, solved.q, &data);
    double w = 0.0;
    if (settings_.position_only) {
      SitePositionJacobian(model, data, site_, Jp);
      w = std::sqrt(std::max(0.0, (Jp * Jp.transpose()).determinant()));
    } else {
      SiteJacobian(model, data, site_, J);
      w = std::sqrt(std::max(0.0, (J * J.transpose()).determinant()));
    }
    result.reached_orientations[o] = 1;
    ++result.reached;
    sum += w;
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  if (result.reached > 0) {
    result.manipulability_min = static_cast<float>(lo);
    result.manipulability_mean = static_cast<float>(sum / result.reached);
    result.manipulability_max = static_cast<float>(hi);
  }
  return result;
}

ReachMap ReachTask::EmptyMap(const std::string& robot,
                             const std::string& base_link) const {
  ReachMap map;
  map.settings = settings_;
  map.grid = grid_;
  map.reach = reach_;
  map.robot = robot;
  map.base_link = base_link;
  map.site = model_->site_name(site_);
  map.solver = solver_name();
  map.orientations = orientations_;
  const std::int64_t count = grid_.num_voxels();
  const int n = settings_.orientations_per_voxel();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  map.state.assign(count, static_cast<std::uint8_t>(VoxelState::kPending));
  map.reached.assign(count, 0);
  map.manipulability_min.assign(count, nan);
  map.manipulability_mean.assign(count, nan);
  map.manipulability_max.assign(count, nan);
  map.reached_orientations.assign(static_cast<size_t>(count) * n, 0);
  return map;
}

namespace {

// FNV-1a over raw bytes.
class Hasher {
 public:
  void Add(const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
      hash_ = (hash_ ^ bytes[i]) * 0x100000001b3ULL;
    }
  }
  void Add(double x) { Add(&x, sizeof x); }
  void Add(std::int64_t x) { Add(&x, sizeof x); }
  void Add(const std::string& s) {
    Add(static_cast<std::int64_t>(s.size()));
    Add(s.data(), s.size());
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

std::uint64_t ReachTask::Fingerprint() const {
  Hasher h;
  const Model& m = *model_;
  h.Add(static_cast<std::int64_t>(m.num_steps()));
  for (int s = 0; s < m.num_steps(); ++s) {
    h.Add(static_cast<std::int64_t>(m.parent(s)));
    h.Add(static_cast<std::int64_t>(m.kind(s)));
    h.Add(m.X_PJ(s).matrix().data(), 16 * sizeof(double));
    h.Add(m.axis(s).data(), 3 * sizeof(double));
  }
  // Mimic relations (only when there are some, so that the fingerprints of
  // models without them stay what they were).
  for (int s = 0; m.has_mimics() && s < m.num_steps(); ++s) {
    h.Add(static_cast<std::int64_t>(m.dof(s)));
    h.Add(m.dof_scale(s));
    h.Add(m.dof_offset(s));
  }
  for (int i = 0; i < m.nq(); ++i) {
    h.Add(m.lower()[i]);
    h.Add(m.upper()[i]);
  }
  h.Add(m.X_FS(site_).matrix().data(), 16 * sizeof(double));
  h.Add(m.site_name(site_));
  h.Add(settings_.resolution);
  h.Add(static_cast<std::int64_t>(settings_.approach_axes));
  h.Add(static_cast<std::int64_t>(settings_.rolls));
  h.Add(static_cast<std::int64_t>(settings_.position_only));
  h.Add(static_cast<std::int64_t>(settings_.flood_fill));
  h.Add(solver_name());
  h.Add(static_cast<std::int64_t>(settings_.max_attempts));
  h.Add(static_cast<std::int64_t>(settings_.max_iterations));
  // The collision setup (only when there is one, so that the fingerprints of
  // maps without it stay what they were): its checked pairs and shapes.
  if (collisions_) {
    h.Add(std::string("collisions"));
    for (const auto& [a, b] : collisions_->self_pairs) {
      h.Add(a);
      h.Add(b);
    }
    for (const LinkShape& shape : collisions_->shapes) {
      h.Add(shape.link);
      h.Add(static_cast<std::int64_t>(shape.shape.type));
      h.Add(shape.shape.radius);
      h.Add(shape.shape.half_length);
      h.Add(shape.X_LG.matrix().data(), 16 * sizeof(double));
    }
    for (const WorldShape& o : collisions_->obstacles) {
      h.Add(static_cast<std::int64_t>(o.shape.type));
      h.Add(o.shape.radius);
      h.Add(o.X_WG.matrix().data(), 16 * sizeof(double));
    }
  }
  h.Add(settings_.tolerance);
  h.Add(static_cast<std::int64_t>(settings_.seed));
  return h.value();
}

}  // namespace iklab
