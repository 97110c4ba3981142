#include "reach/reach_map.h"

#include <algorithm>
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

namespace {

// The problem of every query: one goal on the site (its target set per
// query), the joint limits as bounds. Pose goals weight rotation 0.4
// against metres, as in the benchmark protocol.
// With `collisions`, their goal (a penalty) as well. The goal is returned in
// *position or *pose (when not null) for its target to be set.
Problem QueryProblem(const std::shared_ptr<const Model>& model, int site,
                     const ReachSettings& settings,
                     const CollisionSetup* collisions,
                     std::shared_ptr<PositionGoal>* position = nullptr,
                     std::shared_ptr<PositionOrientationGoal>* pose = nullptr) {
  Problem problem(model);
  const std::string& name = model->site_name(site);
  if (settings.position_only) {
    auto goal =
        std::make_shared<PositionGoal>(*model, name, Eigen::Vector3d::Zero());
    problem.AddGoal(goal);
    if (position != nullptr) *position = goal;
  } else {
    PositionOrientationScales scales;
    scales.w_o = 0.4 * 0.4;
    auto goal = std::make_shared<PositionOrientationGoal>(
        *model, name, Eigen::Isometry3d::Identity(), 1.0, scales);
    problem.AddGoal(goal);
    if (pose != nullptr) *pose = goal;
  }
  if (collisions != nullptr) problem.AddGoal(collisions->MakeGoal(*model));
  return problem;
}

// Bounded LM of the queries: iteration and attempt caps only (no budget, so
// the answers never depend on the machine's speed); `seed` seeds the
// restarts (per query on the scalar solver).
BoundedLmOptions QueryOptions(const ReachSettings& settings) {
  BoundedLmOptions lm;
  lm.common.max_iterations = settings.max_iterations;
  lm.common.time_budget_seconds = 0.0;
  lm.common.position_tolerance = settings.tolerance;
  lm.common.angle_tolerance = settings.tolerance;
  lm.max_attempts = settings.max_attempts;
  lm.seed = settings.seed;
  return lm;
}

}  // namespace

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
  if (analytic_) {
    method_ = "analytic-6r";
    return;
  }
  // Bounded LM: on the SIMD batch solver where it applies.
  why = "ReachSettings::simd is false";
  const Problem problem =
      QueryProblem(model_, site_, settings_, collisions_.get());
  const BoundedLmOptions lm = QueryOptions(settings_);
  if (settings_.simd && collisions_) {
    why = "the SIMD solver takes no collision goal";
  }
  if (settings_.simd && !collisions_ && SimdLmApplies(problem, lm, &why)) {
    simd_ = std::make_shared<const SimdBoundedLm>(problem, lm);
    method_ = internal::StrCat("simd-bounded-lm (", SimdBoundedLm::TargetName(),
                               ", ", SimdBoundedLm::Lanes(), " lanes)");
  } else {
    method_ = "scalar bounded-lm: " + why;
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

namespace {

// The reached queries of a voxel: count, mask and Yoshikawa manipulability
// w = √det(J Jᵀ) of each answer (file comment of reach_map.h).
class VoxelTally {
 public:
  VoxelTally(const Model& model, int site, bool position_only,
             const CollisionSetup* collisions)
      : model_(model),
        site_(site),
        position_only_(position_only),
        collisions_(collisions),
        data_(model),
        J_(6, model.nq()),
        Jp_(3, model.nq()) {}

  // Verifies the answer q to query o (target X_target; only its position
  // for position-only maps) by the benchmark's independent FK and, if it
  // holds, counts it into *result.
  void Add(int o, const Eigen::VectorXd& q, const Eigen::Isometry3d& X_target,
           double tolerance, VoxelResult* result) {
    const bool ok =
        position_only_
            ? VerifiedPosition(model_, site_, q, X_target.translation(),
                               tolerance) &&
                  (collisions_ == nullptr ||
                   IndependentMinDistance(model_, *collisions_, q) >=
                       -tolerance)
            : Verify(model_, site_, q, X_target, tolerance, collisions_)
                  .success;
    if (!ok) return;
    ForwardKinematics(model_, q, &data_);
    double w = 0.0;
    if (position_only_) {
      SitePositionJacobian(model_, data_, site_, Jp_);
      w = std::sqrt(std::max(0.0, (Jp_ * Jp_.transpose()).determinant()));
    } else {
      SiteJacobian(model_, data_, site_, J_);
      w = std::sqrt(std::max(0.0, (J_ * J_.transpose()).determinant()));
    }
    result->reached_orientations[o] = 1;
    ++result->reached;
    sum_ += w;
    lo_ = std::min(lo_, w);
    hi_ = std::max(hi_, w);
  }

  // Writes the manipulability statistics into *result and starts over.
  void Finish(VoxelResult* result) {
    if (result->reached > 0) {
      result->manipulability_min = static_cast<float>(lo_);
      result->manipulability_mean = static_cast<float>(sum_ / result->reached);
      result->manipulability_max = static_cast<float>(hi_);
    }
    sum_ = 0.0;
    lo_ = std::numeric_limits<double>::infinity();
    hi_ = -lo_;
  }

 private:
  const Model& model_;
  int site_;
  bool position_only_;
  const CollisionSetup* collisions_;  // null: none
  Data data_;
  Matrix6Xd J_;
  Eigen::Matrix3Xd Jp_;
  double sum_ = 0.0;
  double lo_ = std::numeric_limits<double>::infinity();
  double hi_ = -std::numeric_limits<double>::infinity();
};

}  // namespace

VoxelResult ReachTask::ComputeVoxel(std::int64_t v) const {
  if (simd_) return ComputeVoxels(&v, 1)[0];
  if (v < 0 || v >= grid_.num_voxels()) {
    ThrowInvalidArgument("ComputeVoxel: voxel index ", v, " out of range [0, ",
                         grid_.num_voxels(), ")");
  }
  const int n = settings_.orientations_per_voxel();
  if (!InsideReach(v)) return UnsolvedVoxel(VoxelState::kOutsideReach, n);
  VoxelResult result = UnsolvedVoxel(VoxelState::kSolved, n);
  const Eigen::Vector3d p = grid_.Centre(v);

  // One problem per voxel (goals are mutated per query).
  std::shared_ptr<PositionGoal> position_goal;
  std::shared_ptr<PositionOrientationGoal> pose_goal;
  Problem problem =
      QueryProblem(model_, site_, settings_, collisions_.get(), &position_goal,
                   &pose_goal);
  BoundedLmOptions lm = QueryOptions(settings_);
  VoxelTally tally(*model_, site_, settings_.position_only, collisions_.get());
  for (int o = 0; o < n; ++o) {
    const std::uint64_t seed = QuerySeed(settings_.seed, v, o);
    std::mt19937_64 rng(seed);
    const Eigen::VectorXd q0 = RandomPose(problem.bounds(), &rng);
    Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
    target.translation() = p;
    Result solved;
    if (settings_.position_only) {
      position_goal->set_target(p);
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
    tally.Add(o, solved.q, target, settings_.tolerance, &result);
  }
  tally.Finish(&result);
  return result;
}

std::vector<VoxelResult> ReachTask::ComputeVoxels(const std::int64_t* voxels,
                                                  std::size_t count) const {
  std::vector<VoxelResult> results;
  results.reserve(count);
  if (!simd_) {
    for (std::size_t i = 0; i < count; ++i) {
      results.push_back(ComputeVoxel(voxels[i]));
    }
    return results;
  }
  const int n = settings_.orientations_per_voxel();
  const int nq = model_->nq();
  const int columns = simd_->target_columns();
  // Every query of the voxels inside the reach bound, in (voxel,
  // orientation) order: its target row and its start (the scalar path's).
  std::vector<std::size_t> inside;
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t v = voxels[i];
    if (v < 0 || v >= grid_.num_voxels()) {
      ThrowInvalidArgument("ComputeVoxel: voxel index ", v,
                           " out of range [0, ", grid_.num_voxels(), ")");
    }
    if (InsideReach(v)) {
      inside.push_back(i);
      results.push_back(UnsolvedVoxel(VoxelState::kSolved, n));
    } else {
      results.push_back(UnsolvedVoxel(VoxelState::kOutsideReach, n));
    }
  }
  if (inside.empty()) return results;
  const std::size_t queries = inside.size() * static_cast<std::size_t>(n);
  std::vector<double> targets(queries * columns);
  std::vector<double> starts(queries * nq);
  std::vector<double> answers(queries * nq);
  std::vector<SolveStatus> status(queries);
  const Bounds bounds = QueryProblem(model_, site_, settings_, nullptr).bounds();
  std::size_t k = 0;
  for (const std::size_t i : inside) {
    const Eigen::Vector3d p = grid_.Centre(voxels[i]);
    for (int o = 0; o < n; ++o, ++k) {
      std::mt19937_64 rng(QuerySeed(settings_.seed, voxels[i], o));
      Eigen::Map<Eigen::VectorXd>(starts.data() + k * nq, nq) =
          RandomPose(bounds, &rng);
      double* row = targets.data() + k * columns;
      row[0] = p.x();
      row[1] = p.y();
      row[2] = p.z();
      if (columns == 7) {
        const Eigen::Quaterniond& r = orientations_[o];
        row[3] = r.w();
        row[4] = r.x();
        row[5] = r.y();
        row[6] = r.z();
      }
    }
  }
  SimdLmOutput out;
  out.q = answers.data();
  out.status = status.data();
  simd_->Solve(targets.data(), starts.data(), static_cast<int>(queries), out);
  VoxelTally tally(*model_, site_, settings_.position_only, collisions_.get());
  Eigen::VectorXd q(nq);
  k = 0;
  for (const std::size_t i : inside) {
    VoxelResult& result = results[i];
    Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
    target.translation() = grid_.Centre(voxels[i]);
    for (int o = 0; o < n; ++o, ++k) {
      if (status[k] != SolveStatus::kConverged) continue;
      if (!settings_.position_only) {
        target.linear() = orientations_[o].toRotationMatrix();
      }
      q = Eigen::Map<const Eigen::VectorXd>(answers.data() + k * nq, nq);
      tally.Add(o, q, target, settings_.tolerance, &result);
    }
    tally.Finish(&result);
  }
  return results;
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
  map.solver_method = method_;
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
  // The SIMD batch solver's answers differ from the scalar solver's (and
  // between instruction sets): its maps are other maps. Scalar maps keep
  // the fingerprints they had.
  if (simd_) h.Add(method_);
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
