#ifndef IKLAB_REACH_REACH_RUN_H_
#define IKLAB_REACH_REACH_RUN_H_

/// @file
/// Computing a map with threads on one machine and MPI ranks across many,
/// with a journal that makes a stopped or failed run resumable.
///
/// Work split. Voxels are solved in waves (one wave holding every voxel
/// within the reach bound, or the flood fill's waves, reach_map.h). Rank 0
/// lists a wave's voxels still to solve, in index order, and broadcasts the
/// list; the list is cut into chunks of consecutive entries and chunk c goes
/// to rank c mod K, whose threads (TBB) take its chunks one at a time. Each
/// finished chunk is sent to rank 0, which stores it, appends it to the
/// journal and reports progress. Every voxel's result depends only on the
/// settings and its index (reach_map.h), and rank 0 writes the final file
/// from the complete map in index order, so the output is byte-identical for
/// any number of ranks and threads and across resumes.
///
/// Journal (`<output>.partial`). A binary file: the header (magic
/// "IKLABRJ1", the task's Fingerprint, voxel count, orientations per voxel),
/// then one record per finished chunk (payload size, FNV-1a checksum, the
/// voxels' results). It is flushed after every record, so after a crash,
/// an abort or a `stop_after` it holds every chunk that was finished; a torn
/// last record fails its checksum and is dropped. A resumed run reads it,
/// refuses it if the fingerprint differs (other settings or another model)
/// or if a record disagrees with the settings or the other records (a
/// voxel outside the grid or the reach bound, a voxel given twice, a result
/// that breaks the map's rules, a checksum failure before the last record;
/// reach/internal/journal.h), naming the record, and solves only the voxels
/// it lacks. The journal is never the map: the
/// map file is written only when every voxel is done.

#include <cstdint>
#include <functional>
#include <string>

#include "reach/process_group.h"
#include "reach/reach_map.h"

namespace iklab {

/// Progress seen on rank 0.
struct ReachProgress {
  /// Voxels within the reach bound that are done (computed or resumed) and
  /// their total (the flood fill's total is an upper bound: it may finish
  /// early).
  std::int64_t done = 0;
  std::int64_t total = 0;
  /// Queries solved in this run, and its seconds so far.
  std::int64_t queries = 0;
  double seconds = 0.0;
};

struct ReachRunOptions {
  /// Worker threads per process, ≥ 1 (CheckThreadCount,
  /// framework/validate.h); more than MaxWorkerThreads() are not started.
  int threads = 1;
  /// Journal path; empty: no journal (the run cannot be resumed).
  std::string journal;
  /// Continue from the journal if it exists. Without `resume`, an existing
  /// journal is an error (an interrupted run would otherwise be lost).
  bool resume = false;
  /// Solve at most this many voxels in this run, then stop with the
  /// journal kept (a long map in several batch jobs); 0: no limit.
  std::int64_t stop_after = 0;
  /// Rank 0: called after every finished chunk (from the calling thread).
  std::function<void(const ReachProgress&)> progress;
};

/// What a run produced.
struct ReachRun {
  /// Rank 0: the map (complete when `complete`); other ranks: empty.
  ReachMap map;
  /// Every voxel is done.
  bool complete = false;
  /// Voxels taken from the journal, and solved in this run (all ranks).
  std::int64_t resumed_voxels = 0;
  std::int64_t solved_voxels = 0;
  /// Queries solved in this run (all ranks) and the run's wall time.
  std::int64_t solved_queries = 0;
  double seconds = 0.0;
  /// CPU time of this process (all its threads) during the run, seconds:
  /// with `threads` ≤ the free cores, queries / cpu_seconds is the cost per
  /// core, independent of how loaded the machine is.
  double cpu_seconds = 0.0;
  int ranks = 1;
  int threads = 1;
};

/// Computes the map of `task` on `group` (every rank calls it with the same
/// task and options). `robot` and `base_link` only name the map.
/// @throws std::invalid_argument for bad options (threads < 1, a negative
///   stop_after), an existing journal without `resume`, a journal of other
///   settings, or a journal that is not one, is damaged or inconsistent
///   (naming the file and the record); std::runtime_error if the journal cannot be written.
///   With more than one rank, the set-up errors above are thrown on every
///   rank alike; a failure on one rank after the set-up prints
///   "iklab reach: rank R of K failed: …" and aborts the whole job (exit 2)
///   instead of throwing: the other ranks could not continue.
ReachRun RunReach(const ReachTask& task, const std::string& robot,
                  const std::string& base_link, ProcessGroup* group,
                  const ReachRunOptions& options);

/// The whole map in this process with `threads` threads, no journal.
ReachMap ComputeReachMap(const ReachTask& task, int threads = 1);

}  // namespace iklab

#endif  // IKLAB_REACH_REACH_RUN_H_
