// A capability map of a 7-DOF arm: the Franka Panda's hand (shipped URDF,
// chain panda_link0 → panda_hand) over a voxel grid, with the approach
// orientations of reach/orientation_set.h at every voxel ("which regions of
// the workspace can the limb reach, and how well?", Tolani et al. §1,
// §3.6; the capability maps of Zacharias et al.).
//
// Metric: per voxel, the fraction of orientations reached (bounded LM with
// restarts, iteration caps only, every answer verified by an independent FK
// to 1e-5 m / 1e-5 rad per component within the joint limits) and the
// Yoshikawa manipulability of the answers; per run, queries per second of
// wall time and per CPU-second (one core's throughput, independent of the
// machine's load).
//
// Claim (iklab's target for maps): "at iklab's measured
// ~10 µs per solve, a 10^8-query map is about 20 core-minutes". Ours: the
// measured CPU cost per query of this map (reachable and unreachable
// queries mixed as the map mixes them) × 10^8. Reproduced if within a
// factor 2 of 20 core-minutes; it differs when unreachable queries, which
// cost every restart, dominate (they do: that is what the statement's
// 10 µs per *solved* benchmark target leaves out).
//
// Parameters we chose: 5 cm voxels, 20 approach axes (one roll), the flood
// fill from the workspace centre (the unreachable space beyond the arm's
// envelope is solved only in the one-voxel layer that proves the boundary;
// the full map is `iklab reach --robot panda --resolution 0.05
// --orientations 20`), 10 attempts and 500 iterations per query. Quick
// mode: 20 cm voxels, 4 axes. Joint limits are checked, collisions are not.
#include <cmath>
#include <memory>
#include <string>

#include "experiments/experiments_list.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_plots.h"
#include "reach/reach_scene.h"
#include "reach/reach_run.h"

namespace iklab {

namespace {

constexpr double kClaimCoreMinutes = 20.0;

void Run(const ExperimentContext& context, ExperimentOutput* out) {
  const auto model = std::make_shared<const Model>(
      LoadUrdfChain(DataFile("robots/panda.urdf").string(), "panda_link0",
                    "panda_hand")
          .figure.Compile());
  ReachSettings settings;
  settings.resolution = context.quick ? 0.2 : 0.05;
  settings.approach_axes = context.quick ? 4 : 20;
  settings.flood_fill = true;
  settings.seed = context.seed;
  const ReachTask task(model, "panda_hand", settings);
  out->SetParameter("robot", "panda (panda_link0 -> panda_hand, 7 DOF)");
  out->SetParameter("resolution_m", settings.resolution);
  out->SetParameter("approach_axes", settings.approach_axes);
  out->SetParameter("rolls", settings.rolls);
  out->SetParameter("flood_fill", settings.flood_fill);
  out->SetParameter("solver", task.solver_name());
  out->SetParameter("solver_method", task.solver_method());
  out->SetParameter("max_attempts", settings.max_attempts);
  out->SetParameter("max_iterations", settings.max_iterations);
  out->SetParameter("tolerance", settings.tolerance);
  out->SetParameter("threads", context.threads);

  const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
  ReachRunOptions options;
  options.threads = context.threads;
  options.progress = [&context](const ReachProgress& p) {
    context.Progress(p.total > 0 ? static_cast<double>(p.done) / p.total : 1.0,
                     std::to_string(p.done) + " voxels");
  };
  const ReachRun run = RunReach(task, "panda", "panda_link0", local.get(), options);
  const ReachMap& map = run.map;
  WriteReachMapHdf5(map, (out->dir() / "reach.h5").string());
  {
    iklab::Scene scene("Panda capability map (panda_hand)", "m", Eigen::Vector3d::UnitZ());
    const int arm = scene.AddFigure(*model, "panda", 0.04);
    AddReachMapView(map, "capability map", &scene, arm, model.get());
    scene.Write(out->dir() / "scene.json");
    out->AddScene("scene.json",
                  "The capability map in 3D: every voxel that reaches at least "
                  "one orientation, coloured by the reachable fraction (and by "
                  "the mean manipulability in a second layer), with the arm at "
                  "mid-limits; slice it with the plane.");
  }
  for (const auto& [file, caption] : DrawReachMap(map, out->dir())) {
    out->AddFigure(file, caption);
  }

  std::int64_t reachable = 0;
  std::int64_t reached_queries = 0;
  for (std::uint16_t r : map.reached) {
    reachable += r > 0;
    reached_queries += r;
  }
  const double queries = static_cast<double>(run.solved_queries);
  const double per_wall = queries / run.seconds;
  const double per_cpu = queries / run.cpu_seconds;
  const double us_per_query = 1e6 / per_cpu;
  out->AddTable(
      "The map", {"quantity", "value"},
      {{"grid", std::to_string(map.grid.shape.x()) + "^3 voxels of " +
                    FormatNumber(100 * settings.resolution, 3) + " cm"},
       {"voxels within the reach bound",
        std::to_string(map.grid.num_voxels() -
                       map.CountState(VoxelState::kOutsideReach))},
       {"voxels solved", std::to_string(map.CountState(VoxelState::kSolved))},
       {"voxels skipped by the flood fill",
        std::to_string(map.CountState(VoxelState::kSkipped))},
       {"reachable voxels (≥ 1 orientation)", std::to_string(reachable)},
       {"queries solved", FormatNumber(queries, 7)},
       {"queries reached", std::to_string(reached_queries)},
       {"wall time (s)", FormatNumber(run.seconds, 3)},
       {"CPU time (s)", FormatNumber(run.cpu_seconds, 3)},
       {"queries/s (wall, " + std::to_string(context.threads) + " thread(s))",
        FormatNumber(per_wall, 3)},
       {"queries per CPU-second (one core)", FormatNumber(per_cpu, 3)},
       {"CPU µs per query", FormatNumber(us_per_query, 3)}},
      "map.csv");
  out->AddText(
      "The map checks the joint limits but not collisions (no collision model "
      "is part of a query). Reproduce or extend it with `iklab reach --robot "
      "panda --resolution 0.05 --orientations 20 --flood-fill` (add "
      "`mpirun -n K` to split the voxels over K processes; the file is "
      "byte-identical).");

  const double core_minutes = 1e8 * us_per_query * 1e-6 / 60.0;
  Claim claim;
  claim.text = "A 10^8-query capability map costs about 20 core-minutes";
  claim.paper = "≈ 20 core-minutes at ~10 µs per solve (iklab's target for maps)";
  claim.ours = FormatNumber(core_minutes, 3) + " core-minutes at " +
               FormatNumber(us_per_query, 3) + " CPU µs per query (" +
               FormatNumber(100.0 * reached_queries / queries, 3) +
               " % of the queries reached)";
  claim.verdict = core_minutes <= 2 * kClaimCoreMinutes &&
                          core_minutes >= 0.5 * kClaimCoreMinutes
                      ? Verdict::kReproduced
                      : Verdict::kDiffers;
  claim.reason =
      claim.verdict == Verdict::kReproduced
          ? "the measured cost per query is within a factor 2 of 10 µs"
          : "unreachable queries cost every restart (" +
                std::to_string(settings.max_attempts) +
                " attempts), so the mean cost per query of a map is not the "
                "benchmark's cost per solved target";
  out->AddClaim(claim);
}

}  // namespace

void AddReachMap(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"reach-map-panda", "Capability map of the Panda's hand",
       "Tolani et al. §1, §3.6 (reachability); iklab's target for maps (scale)", Run});
}

}  // namespace iklab
