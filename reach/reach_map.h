#ifndef IKLAB_REACH_REACH_MAP_H_
#define IKLAB_REACH_REACH_MAP_H_

/// @file
/// Reachability and capability maps ("which regions of the workspace can the
/// limb reach, and how well?", Tolani et al. §1, §3.6): a chain's site over a
/// voxel grid, N approach orientations per voxel (orientation_set.h), each
/// query solved within the joint limits and verified by an independent FK.
///
///     ReachSettings settings;            // 5 cm, 20 approach axes, ...
///     ReachTask task(model, "panda_hand", settings);
///     ReachMap map = ComputeReachMap(task);        // threads (reach_run.h
///                                                  // adds MPI, resume)
///     WriteReachMapHdf5(map, "panda.h5");          // reach_hdf5.h
///
/// Grid. c is the origin of the first moving joint on the path root → site
/// (a point on its axis, fixed in the world) and R the chain's reach bound:
/// the sum of the constant distances between consecutive joint origins on
/// the path, the site's offset from the last one, and the travel of any
/// prismatic joint (triangle inequality: |p_site − c| ≤ R for every q). The
/// grid is the cube of side 2R centred on c, split into n = ⌈2R / h⌉ voxels
/// per axis of side h (the resolution); voxel (i, j, k) has its centre at
/// origin + h (i, j, k), origin = c − (n h − h)/2 per axis. A voxel whose
/// centre is farther than R from c cannot be reached and is not solved
/// (VoxelState::kOutsideReach); every other voxel's centre is the target
/// position of its queries.
///
/// Queries. Pose maps: the site at the voxel centre with each orientation
/// R_kj; position-only maps: the site's origin at the centre (one query).
/// Solver: the analytic 6R solver (solvers/analytic/six_r_solver.h: every
/// solution, the nearest within the limits) where the chain is a supported
/// 6R arm and the map is a pose map; otherwise bounded Levenberg–Marquardt
/// with random restarts (solvers/optimization/bounded_lm_solver.h), stopped by iteration
/// and attempt caps only — no wall-clock budget, so the answer never depends
/// on the machine's speed or load. Query (v, o) starts from a random pose
/// within the limits drawn from its own generator, seeded by
/// SplitMix64(seed, v, o): the result of a voxel depends only on the settings
/// and its index, never on which thread or process computed it.
///
/// Bounded LM runs on the SIMD batch solver (solvers/batch/simd_lm.h, the
/// engine of SolveBatch: several queries at once across vector lanes, a
/// chunk's queries in one batch) where it applies — a serial chain of at
/// most 8 coordinates without mimic joints (SimdLmApplies) and
/// ReachSettings::simd — else on the scalar solver, and
/// ReachTask::solver_method() says which and why. The SIMD solver's restarts
/// draw from the map's seed (one stream per query, the same for every
/// query), the scalar solver's from SplitMix64(seed, v, o); its answers are
/// the same on any batch, lane and thread count, but not bit-identical to
/// the scalar solver's nor across instruction sets (AVX2, AVX-512), so the
/// method is part of the map's fingerprint and of the file.
///
/// Verification. A query counts as reached only when the solver says
/// converged *and* an independent FK (bench/ik_benchmark.h
/// ReferenceSitePose) finds every component of the position error (m) and,
/// for pose maps, of the rotation vector log(R_target R_reachedᵀ) (rad)
/// within `tolerance`, with q within the joint limits. Collisions are
/// checked when the task has a collision setup (`iklab reach --collisions`,
/// lab/collision_files.h): the bounded LM problem gets the collision goal
/// (constraints/shape_collision.h) as a penalty, and a reached query also
/// needs the benchmark's independent clearance check
/// (IndependentMinDistance ≥ −tolerance); the analytic 6R solver, which
/// cannot take the goal, is then not used (auto → bounded LM).
///
/// Manipulability. At each reached answer, Yoshikawa's measure
/// w = √det(J Jᵀ) (Yoshikawa, "Manipulability of robotic mechanisms", IJRR
/// 4(2), 1985, Eq. 9) of the site's geometric 6 × n Jacobian (linear rows in
/// m/rad, angular rows in rad/rad, so w mixes units as the definition does)
/// or, for position-only maps, of its 3 × n position rows. Per voxel: the
/// minimum, mean and maximum over the reached queries (NaN when none).
///
/// Flood fill (optional). Voxels are solved in waves: first whole cubic
/// shells around c's voxel (Chebyshev distance 0, 1, 2, … in voxels) until a
/// shell holds a reachable voxel, then only the not yet solved voxels next
/// (26-neighbourhood) to a voxel found reachable in the previous wave. The
/// unreachable space beyond the workspace's boundary is never solved except
/// for the one-voxel layer that proves the boundary (VoxelState::kSkipped
/// elsewhere). It finds the reachable region connected to the first
/// reachable shell; a reachable region not connected to it (by voxels at
/// this resolution) would be reported skipped, so the full map is the
/// reference.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/chain_reach.h"
#include "framework/model.h"
#include "lab/collision_files.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/batch/simd_lm.h"

namespace iklab {

/// Which solver answers the queries.
enum class ReachSolverKind {
  /// The analytic 6R solver for pose maps of supported 6R arms, bounded LM
  /// otherwise.
  kAuto,
  kBoundedLm,
  kAnalytic6r,
};

/// "auto", "bounded-lm", "analytic-6r" (the last two are the registry's
/// names, solvers/registry.h).
const char* ReachSolverName(ReachSolverKind kind);

/// The kind called `name` (the inverse of ReachSolverName).
/// @throws std::invalid_argument naming `name` and the three choices.
ReachSolverKind ReachSolverFromName(const std::string& name);

/// Settings of a map. Everything here decides the result (and is written
/// into the output file); the thread and process counts do not.
struct ReachSettings {
  /// Voxel side h, model length units (metres for URDFs). > 0. 5 cm is a
  /// coarse map of a 1 m arm (≈ 35,000 voxels in the cube); 2.5 cm the
  /// resolution of published capability maps.
  double resolution = 0.05;
  /// Approach axes per voxel (Fibonacci lattice). ≥ 1.
  int approach_axes = 20;
  /// Rolls about each approach axis. ≥ 1. Orientations per voxel =
  /// approach_axes × rolls.
  int rolls = 1;
  /// Position-only map: one query per voxel, the site's origin at the
  /// voxel centre, any orientation.
  bool position_only = false;
  /// Solve in waves from the workspace centre (file comment).
  bool flood_fill = false;
  ReachSolverKind solver = ReachSolverKind::kAuto;
  /// Bounded LM: attempts per query (the first from the query's random
  /// start, then mid-limits, then random restarts). ≥ 1. An unreachable
  /// query costs all of them, so this sets the price of the map's
  /// unreachable part.
  int max_attempts = 10;
  /// Bounded LM: iterations per query over all attempts. ≥ 1.
  int max_iterations = 500;
  /// Bounded LM: solve on the SIMD batch solver where it applies (file
  /// comment); false: always the scalar solver.
  bool simd = true;
  /// Verification tolerance per component (m and rad), also the solver's
  /// stopping tolerance (on the norms). In (0, 0.1].
  double tolerance = 1e-5;
  /// Seed of every random start and restart.
  std::uint64_t seed = 1;

  /// Orientations per voxel: 1 for position-only maps, else
  /// approach_axes × rolls.
  int orientations_per_voxel() const {
    return position_only ? 1 : approach_axes * rolls;
  }
  /// True if every field is in range; otherwise says which and why in `why`.
  bool IsValid(std::string* why) const;
};

/// A regular grid of voxel centres.
struct VoxelGrid {
  /// Centre of voxel (0, 0, 0) in the model's root frame.
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  double resolution = 0.0;
  /// Voxels per axis (x, y, z).
  Eigen::Vector3i shape = Eigen::Vector3i::Zero();

  std::int64_t num_voxels() const {
    return static_cast<std::int64_t>(shape.x()) * shape.y() * shape.z();
  }
  /// Linear index (i · n_y + j) · n_z + k: row-major, as the HDF5 datasets.
  std::int64_t Index(int i, int j, int k) const {
    return (static_cast<std::int64_t>(i) * shape.y() + j) * shape.z() + k;
  }
  Eigen::Vector3i Coordinates(std::int64_t index) const;
  Eigen::Vector3d Centre(std::int64_t index) const;
};

/// Computes c and R for the chain root → `site` over the model's limits
/// (framework/chain_reach.h).
/// @throws std::invalid_argument if the chain has no moving joint or a
///   prismatic joint without finite limits (R would be infinite).
ChainReach ComputeChainReach(const Model& model, int site);

/// What became of a voxel.
enum class VoxelState : std::uint8_t {
  /// Not computed yet (only in a map under construction).
  kPending = 0,
  /// Every query was solved.
  kSolved = 1,
  /// The centre is beyond the reach bound R: unreachable, not solved.
  kOutsideReach = 2,
  /// Not solved: the flood fill did not reach it.
  kSkipped = 3,
};

/// One voxel's outcome.
struct VoxelResult {
  VoxelState state = VoxelState::kPending;
  /// Queries reached (verified), of orientations_per_voxel().
  int reached = 0;
  /// Yoshikawa manipulability over the reached queries; NaN when none.
  float manipulability_min = 0.0f;
  float manipulability_mean = 0.0f;
  float manipulability_max = 0.0f;
  /// Per orientation: 1 if reached (orientations_per_voxel() entries).
  std::vector<std::uint8_t> reached_orientations;
};

/// A voxel with nothing reached: `state`, count 0, NaN manipulability.
VoxelResult UnsolvedVoxel(VoxelState state, int orientations);

/// A map of one chain site: the grid and, per voxel, its outcome in flat
/// arrays (voxel index as VoxelGrid::Index).
struct ReachMap {
  ReachSettings settings;
  VoxelGrid grid;
  ChainReach reach;
  /// Names for the file's attributes.
  std::string robot;
  std::string base_link;
  std::string site;
  /// The solver that answered the queries: "bounded-lm" or "analytic-6r".
  std::string solver;
  /// How: ReachTask::solver_method() (empty in a file written before it was
  /// recorded: the scalar solver).
  std::string solver_method;
  /// Orientations tested (empty for position-only maps).
  std::vector<Eigen::Quaterniond> orientations;

  std::vector<std::uint8_t> state;  ///< VoxelState per voxel
  std::vector<std::uint16_t> reached;
  std::vector<float> manipulability_min;
  std::vector<float> manipulability_mean;
  std::vector<float> manipulability_max;
  /// num_voxels × orientations_per_voxel(), voxel-major.
  std::vector<std::uint8_t> reached_orientations;

  /// Reachable fraction of voxel v: reached / orientations_per_voxel().
  double Fraction(std::int64_t v) const;
  /// Stores a voxel's result.
  void Set(std::int64_t v, const VoxelResult& result);
  /// Number of voxels in `state`.
  std::int64_t CountState(VoxelState s) const;
  /// Queries solved (kSolved voxels × orientations).
  std::int64_t SolvedQueries() const;
};

/// Everything needed to compute any voxel of a map: the model, the site,
/// the grid, the orientation set and the solver. Immutable after
/// construction; ComputeVoxel is thread-safe.
class ReachTask {
 public:
  /// @param model the chain (e.g. LoadUrdfChain(...).figure.Compile()).
  /// @param site the site whose reach is mapped.
  /// @param settings validated here.
  /// @throws std::invalid_argument for a null model, an unknown site,
  ///   invalid settings (the field named), a chain without reach bound, a
  ///   grid beyond 2^31 voxels, or analytic-6r asked for a chain it does
  ///   not take (its reason) or for a position-only map.
  /// @param collisions shapes, checked self pairs and obstacles, or null
  ///   (no collision check).
  ReachTask(std::shared_ptr<const Model> model, const std::string& site,
            const ReachSettings& settings,
            std::shared_ptr<const CollisionSetup> collisions = nullptr);

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& shared_model() const { return model_; }
  int site() const { return site_; }
  const ReachSettings& settings() const { return settings_; }
  const VoxelGrid& grid() const { return grid_; }
  const ChainReach& reach() const { return reach_; }
  const std::vector<Eigen::Quaterniond>& orientations() const {
    return orientations_;
  }
  /// "bounded-lm" or "analytic-6r".
  std::string solver_name() const;
  /// How the queries are solved: "analytic-6r", "simd-bounded-lm
  /// (<instruction set>, <lanes> lanes)", or "scalar bounded-lm: <why the
  /// SIMD batch solver does not apply>".
  const std::string& solver_method() const { return method_; }
  /// True if voxel v's centre lies within the reach bound.
  bool InsideReach(std::int64_t v) const;

  /// Solves every query of voxel v (or marks it kOutsideReach).
  /// @throws std::invalid_argument for v out of range.
  VoxelResult ComputeVoxel(std::int64_t v) const;

  /// ComputeVoxel of voxels[0, count), the same results, with the queries
  /// of all of them solved as one batch by the SIMD solver (when it is the
  /// method).
  /// @throws std::invalid_argument for an index out of range.
  std::vector<VoxelResult> ComputeVoxels(const std::int64_t* voxels,
                                         std::size_t count) const;

  /// An empty map (every voxel kPending) with this task's grid and names.
  ReachMap EmptyMap(const std::string& robot,
                    const std::string& base_link) const;

  /// A 64-bit fingerprint of everything that decides the map (model
  /// kinematics and limits, site, settings, grid): a resumed run must have
  /// the same one.
  std::uint64_t Fingerprint() const;

 private:
  std::shared_ptr<const Model> model_;
  int site_ = -1;
  ReachSettings settings_;
  ChainReach reach_;
  VoxelGrid grid_;
  std::vector<Eigen::Quaterniond> orientations_;
  std::shared_ptr<const SixRAnalyticSolver> analytic_;
  std::shared_ptr<const SimdBoundedLm> simd_;
  std::string method_;
  std::shared_ptr<const CollisionSetup> collisions_;
};

/// The seed of query (voxel, orientation): SplitMix64 (Steele, Lea & Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014) of the
/// map seed mixed with both indices.
std::uint64_t QuerySeed(std::uint64_t seed, std::int64_t voxel,
                        int orientation);

}  // namespace iklab

#endif  // IKLAB_REACH_REACH_MAP_H_
