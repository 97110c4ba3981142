#include "reach/reach_run.h"

#include <time.h>

#include <tbb/concurrent_queue.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <typeinfo>

#include "framework/internal/check.h"
#include "framework/internal/read_file.h"
#include "reach/internal/file_checks.h"
#include "reach/internal/journal.h"
#include "framework/validate.h"

namespace iklab {

using internal::StrCat;
using internal::ThrowInvalidArgument;

namespace {

using internal::Bytes;

double ProcessCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Decodes a chunk (a rank's message) into `map`; returns the number of
// voxels.
std::int64_t DecodeInto(const Bytes& in, ReachMap* map) {
  std::int64_t count = 0;
  const std::string fault = internal::DecodeVoxels(
      in.data(), in.size(), map->grid.num_voxels(),
      map->settings.orientations_per_voxel(),
      [&](std::int64_t v, const VoxelResult& r) {
        map->Set(v, r);
        ++count;
      });
  if (!fault.empty()) {
    throw std::runtime_error("reach: a result message is malformed: " + fault);
  }
  return count;
}

// The journal of a run (rank 0 only).
class Journal {
 public:
  // Opens `path` (empty: no journal). Reads what an earlier run left when
  // `resume`, into `map`, and returns the number of voxels read.
  Journal(const std::string& path, bool resume, const ReachTask& task,
          ReachMap* map, std::int64_t* resumed) {
    *resumed = 0;
    if (path.empty()) return;
    namespace fs = std::filesystem;
    internal::JournalExpectation expected;
    expected.header =
        internal::JournalHeader(task.Fingerprint(), task.grid().num_voxels(),
                                task.settings().orientations_per_voxel());
    expected.num_voxels = task.grid().num_voxels();
    expected.orientations = task.settings().orientations_per_voxel();
    std::error_code error;
    const bool exists = fs::exists(path, error);
    if (exists && !resume) {
      ThrowInvalidArgument(
          "'", path, "' exists: the journal of an interrupted run. Add "
          "--resume to continue it, or delete it to start over");
    }
    if (exists) {
      expected.inside.resize(static_cast<size_t>(expected.num_voxels));
      for (std::int64_t v = 0; v < expected.num_voxels; ++v) {
        expected.inside[static_cast<size_t>(v)] = task.InsideReach(v);
      }
      const std::string bytes =
          internal::ReadFile(path, "an iklab reach journal");
      const size_t good = internal::ReadJournal(
          bytes, expected, path, [&](std::int64_t v, const VoxelResult& r) {
            map->Set(v, r);
            ++*resumed;
          });
      // Drop a torn last record, so appends continue a valid file.
      if (good < bytes.size()) {
        fs::resize_file(path, good, error);
        if (error) {
          throw std::runtime_error("cannot repair the journal '" + path +
                                   "': " + error.message());
        }
      }
      out_.open(path, std::ios::binary | std::ios::app);
    } else {
      out_.open(path, std::ios::binary | std::ios::trunc);
      out_.write(reinterpret_cast<const char*>(expected.header.data()),
                 static_cast<std::streamsize>(expected.header.size()));
    }
    out_.flush();
    if (!out_) {
      throw std::runtime_error("cannot write the journal '" + path +
                               "'; is the output folder writable?");
    }
    path_ = path;
  }

  void Append(const Bytes& payload) {
    if (path_.empty()) return;
    const auto size = static_cast<std::uint32_t>(payload.size());
    const std::uint64_t checksum =
        internal::Fnv1a64(payload.data(), payload.size());
    out_.write(reinterpret_cast<const char*>(&size), sizeof size);
    out_.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    out_.write(reinterpret_cast<const char*>(payload.data()), payload.size());
    out_.flush();
    if (!out_) {
      throw std::runtime_error("cannot append to the journal '" + path_ +
                               "' (disk full?)");
    }
  }

 private:
  std::string path_;
  std::ofstream out_;
};

// Rank 0's choice of voxels, wave by wave (reach_map.h, flood fill).
class WavePlanner {
 public:
  WavePlanner(const ReachTask& task, const ReachMap* map)
      : task_(task), map_(map), visited_(task.grid().num_voxels(), 0) {
    const VoxelGrid& g = task.grid();
    centre_ = ((task.reach().centre - g.origin) / g.resolution)
                  .array()
                  .round()
                  .cast<int>()
                  .matrix();
    centre_ = centre_.cwiseMax(0).cwiseMin(g.shape - Eigen::Vector3i::Ones());
    for (std::int64_t v = 0; v < g.num_voxels(); ++v) {
      inside_.push_back(task.InsideReach(v));
    }
  }

  // The next wave's voxels (index order); empty when the map is finished.
  std::vector<std::int64_t> Next() {
    const VoxelGrid& g = task_.grid();
    std::vector<std::int64_t> wave;
    if (!task_.settings().flood_fill) {
      if (!started_) {
        for (std::int64_t v = 0; v < g.num_voxels(); ++v) {
          if (inside_[v]) wave.push_back(v);
        }
      }
      started_ = true;
      return wave;
    }
    started_ = true;
    if (frontier_.empty() && !found_) {
      // Whole shells until one holds a reachable voxel.
      const int max_shell = g.shape.maxCoeff();
      for (; shell_ <= max_shell && wave.empty(); ++shell_) {
        for (std::int64_t v = 0; v < g.num_voxels(); ++v) {
          const Eigen::Vector3i d = g.Coordinates(v) - centre_;
          if (inside_[v] && !visited_[v] && d.cwiseAbs().maxCoeff() == shell_) {
            wave.push_back(v);
          }
        }
      }
    } else {
      for (std::int64_t v : frontier_) {
        const Eigen::Vector3i c = g.Coordinates(v);
        for (int dx = -1; dx <= 1; ++dx) {
          for (int dy = -1; dy <= 1; ++dy) {
            for (int dz = -1; dz <= 1; ++dz) {
              const Eigen::Vector3i n = c + Eigen::Vector3i(dx, dy, dz);
              if ((n.array() < 0).any() || (n.array() >= g.shape.array()).any()) {
                continue;
              }
              const std::int64_t u = g.Index(n.x(), n.y(), n.z());
              if (inside_[u] && !visited_[u]) {
                visited_[u] = 1;
                wave.push_back(u);
              }
            }
          }
        }
      }
      std::sort(wave.begin(), wave.end());
    }
    for (std::int64_t v : wave) visited_[v] = 1;
    last_ = wave;
    return wave;
  }

  // After a wave is done: its reachable voxels seed the next one.
  void Finished() {
    if (!task_.settings().flood_fill) return;
    frontier_.clear();
    for (std::int64_t v : last_) {
      if (map_->reached[v] > 0) frontier_.push_back(v);
    }
    if (!frontier_.empty()) found_ = true;
  }

  // Voxels within the reach bound (the progress total).
  std::int64_t InsideCount() const {
    return std::count(inside_.begin(), inside_.end(), true);
  }
  bool Inside(std::int64_t v) const { return inside_[v]; }

 private:
  const ReachTask& task_;
  const ReachMap* map_;
  std::vector<std::uint8_t> visited_;
  std::vector<bool> inside_;
  Eigen::Vector3i centre_;
  bool started_ = false;
  bool found_ = false;
  int shell_ = 0;
  std::vector<std::int64_t> frontier_;
  std::vector<std::int64_t> last_;
};

Bytes EncodeList(const std::vector<std::int64_t>& list) {
  Bytes bytes(list.size() * sizeof(std::int64_t));
  if (!list.empty()) std::memcpy(bytes.data(), list.data(), bytes.size());
  return bytes;
}

std::vector<std::int64_t> DecodeList(const Bytes& bytes) {
  std::vector<std::int64_t> list(bytes.size() / sizeof(std::int64_t));
  if (!list.empty()) std::memcpy(list.data(), bytes.data(), bytes.size());
  return list;
}

// Solves `list` (one wave) over the group: this rank's chunks on its
// threads; rank 0 also receives every other rank's chunks and hands each
// chunk (own or received) to `on_chunk`.
void SolveWave(const ReachTask& task, const std::vector<std::int64_t>& list,
               ProcessGroup* group, tbb::task_arena* arena, int threads,
               const std::function<void(const Bytes&)>& on_chunk) {
  const auto total = static_cast<std::int64_t>(list.size());
  const int ranks = group->size();
  const std::int64_t chunk = std::clamp<std::int64_t>(
      (total + 8LL * ranks * threads - 1) / (8LL * ranks * threads), 1, 64);
  const std::int64_t num_chunks = (total + chunk - 1) / chunk;
  std::vector<std::int64_t> mine;
  for (std::int64_t c = group->rank(); c < num_chunks; c += ranks) {
    mine.push_back(c);
  }
  tbb::concurrent_queue<Bytes> finished;
  std::atomic<bool> worker_done{false};
  std::exception_ptr worker_error;
  const auto work = [&] {
    try {
      arena->execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, mine.size(), 1),
            [&](const tbb::blocked_range<size_t>& range) {
              for (size_t m = range.begin(); m != range.end(); ++m) {
                const std::int64_t begin = mine[m] * chunk;
                const std::int64_t end = std::min(total, begin + chunk);
                Bytes bytes;
                // One batch per chunk (the SIMD solver's lanes stay full).
                const std::vector<VoxelResult> results = task.ComputeVoxels(
                    list.data() + begin, static_cast<std::size_t>(end - begin));
                for (std::int64_t i = begin; i < end; ++i) {
                  internal::EncodeVoxel(list[i], results[i - begin], &bytes);
                }
                finished.push(std::move(bytes));
              }
            });
      });
    } catch (const std::exception& e) {
      // TBB starts its worker threads on demand; when the system refuses
      // one, the thread that asked (this one, inside execute) gets a plain
      // std::runtime_error ("pthread_create has failed: ..."), which is
      // given the call's name here. A worker that TBB starts from another of
      // its workers (machines with more than two hardware threads) runs in
      // TBB's noexcept worker loop, where a refusal is std::terminate inside
      // TBB that no caller can catch; the thread count is therefore capped
      // at the hardware threads (MaxWorkerThreads), and a system that starts
      // the first worker rarely refuses the next.
      if (typeid(e) == typeid(std::runtime_error)) {
        worker_error = std::make_exception_ptr(std::runtime_error(StrCat(
            "iklab reach: the solving threads (TBB, ", threads,
            " requested) stopped: ", e.what(),
            "; if the system refused a thread, request fewer threads")));
      } else {
        worker_error = std::current_exception();
      }
    } catch (...) {
      worker_error = std::current_exception();
    }
    worker_done = true;
  };
  // A thread the system refuses to start is an error, not std::terminate.
  std::thread worker;
  try {
    worker = std::thread(work);
  } catch (const std::system_error& e) {
    throw std::runtime_error(StrCat(
        "iklab reach: could not start the worker thread (", e.what(),
        "); the system limits threads or memory: request fewer threads"));
  }
  // The calling thread makes every MPI call (MPI_THREAD_FUNNELED).
  std::int64_t expected = group->rank() == 0 ? num_chunks
                                             : static_cast<std::int64_t>(mine.size());
  std::int64_t handled = 0;
  try {
    while (handled < expected) {
      bool idle = true;
      Bytes bytes;
      while (finished.try_pop(bytes)) {
        idle = false;
        ++handled;
        if (group->rank() == 0) {
          on_chunk(bytes);
        } else {
          group->SendToRoot(bytes);
        }
      }
      if (group->rank() == 0) {
        while (group->TryReceive(&bytes)) {
          idle = false;
          ++handled;
          on_chunk(bytes);
        }
      }
      if (worker_done && worker_error) break;
      if (idle) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (worker_error) std::rethrow_exception(worker_error);
}

// `*started` turns true once every rank has passed the set-up checks
// (which fail alike on every rank); a failure after it is one rank's.
ReachRun Run(const ReachTask& task, const std::string& robot,
             const std::string& base_link, ProcessGroup* group,
             const ReachRunOptions& options, bool* started) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuSeconds();
  const auto seconds = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  ReachRun run;
  run.ranks = group->size();
  run.threads = options.threads;
  const bool root = group->rank() == 0;
  const int n = task.settings().orientations_per_voxel();
  tbb::task_arena arena(options.threads);

  std::unique_ptr<Journal> journal;
  std::unique_ptr<WavePlanner> planner;
  std::int64_t done = 0;
  std::int64_t total = 0;
  std::int64_t queries = 0;
  std::int64_t budget = options.stop_after > 0 ? options.stop_after : -1;
  if (root) {
    run.map = task.EmptyMap(robot, base_link);
    planner = std::make_unique<WavePlanner>(task, &run.map);
    // Voxels beyond the reach bound need no solver.
    const VoxelResult outside = UnsolvedVoxel(VoxelState::kOutsideReach, n);
    for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
      if (!planner->Inside(v)) run.map.Set(v, outside);
    }
    total = planner->InsideCount();
  }
  // Rank 0 may fail to open the journal; every rank must learn it.
  std::string setup_error;
  if (root) {
    try {
      journal = std::make_unique<Journal>(options.journal, options.resume, task,
                                          &run.map, &run.resumed_voxels);
    } catch (const std::exception& e) {
      setup_error = e.what();
    }
  }
  {
    Bytes message(setup_error.begin(), setup_error.end());
    group->Broadcast(&message);
    if (!message.empty()) {
      throw std::invalid_argument(std::string(message.begin(), message.end()));
    }
  }
  done = run.resumed_voxels;
  *started = true;

  const auto on_chunk = [&](const Bytes& bytes) {
    const std::int64_t count = DecodeInto(bytes, &run.map);
    journal->Append(bytes);
    done += count;
    run.solved_voxels += count;
    queries += count * n;
    if (options.progress) {
      options.progress(ReachProgress{done, total, queries, seconds()});
    }
  };

  bool truncated = false;
  for (;;) {
    std::vector<std::int64_t> todo;
    bool stop = false;
    if (root) {
      // The next wave with voxels to solve (waves done from the journal
      // are passed over).
      for (;;) {
        const std::vector<std::int64_t> wave = planner->Next();
        if (wave.empty()) {
          stop = true;
          break;
        }
        for (std::int64_t v : wave) {
          if (run.map.state[v] == static_cast<std::uint8_t>(VoxelState::kPending)) {
            todo.push_back(v);
          }
        }
        if (!todo.empty()) break;
        planner->Finished();
      }
      if (!stop && budget >= 0 &&
          static_cast<std::int64_t>(todo.size()) >= budget) {
        // --stop-after: the rest waits for a resumed run.
        todo.resize(budget);
        truncated = true;
      }
      if (!stop && todo.empty()) stop = true;
    }
    Bytes message = stop ? Bytes{} : EncodeList(todo);
    group->Broadcast(&message);
    if (message.empty()) break;
    todo = DecodeList(message);
    SolveWave(task, todo, group, &arena, options.threads, on_chunk);
    if (root) {
      planner->Finished();
      if (budget >= 0) budget -= static_cast<std::int64_t>(todo.size());
    }
    if (truncated) {
      Bytes end;
      group->Broadcast(&end);
      break;
    }
  }
  if (root) {
    bool pending = false;
    for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
      if (run.map.state[v] == static_cast<std::uint8_t>(VoxelState::kPending)) {
        pending = true;
      }
    }
    if (!truncated && task.settings().flood_fill) {
      // Never reached by the fill: skipped.
      const VoxelResult skipped = UnsolvedVoxel(VoxelState::kSkipped, n);
      for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
        if (run.map.state[v] ==
            static_cast<std::uint8_t>(VoxelState::kPending)) {
          run.map.Set(v, skipped);
        }
      }
      pending = false;
    }
    run.complete = !truncated && !pending;
    run.solved_queries = queries;
  }
  run.seconds = seconds();
  run.cpu_seconds = ProcessCpuSeconds() - cpu_start;
  return run;
}

}  // namespace

ReachRun RunReach(const ReachTask& task, const std::string& robot,
                  const std::string& base_link, ProcessGroup* group,
                  const ReachRunOptions& options) {
  if (group == nullptr) ThrowInvalidArgument("RunReach: group is null");
  // The library's thread rule (framework/validate.h): >= 1, capped at the
  // machine's hardware threads (the TBB arena gets no more).
  ReachRunOptions capped = options;
  capped.threads = CheckThreadCount(options.threads, "RunReach: threads");
  if (options.stop_after < 0) {
    ThrowInvalidArgument("RunReach: stop_after must be >= 0; got ",
                         options.stop_after);
  }
  bool started = false;
  if (group->size() == 1) {
    return Run(task, robot, base_link, group, capped, &started);
  }
  try {
    return Run(task, robot, base_link, group, capped, &started);
  } catch (const std::invalid_argument& e) {
    // A set-up error (an existing journal without resume, a journal of
    // other settings) reaches every rank alike: the caller reports it.
    if (!started) throw;
    std::fprintf(stderr, "iklab reach: rank %d of %d failed: %s\n",
                 group->rank(), group->size(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "iklab reach: rank %d of %d failed: %s; stopping every "
                 "rank (the finished voxels are kept in the journal%s%s; "
                 "rerun with --resume)\n",
                 group->rank(), group->size(), e.what(),
                 options.journal.empty() ? "" : " ",
                 options.journal.c_str());
  } catch (...) {
    std::fprintf(stderr, "iklab reach: rank %d of %d failed (unknown error)\n",
                 group->rank(), group->size());
  }
  group->Abort(2);
  std::_Exit(2);  // not reached: Abort does not return
}

ReachMap ComputeReachMap(const ReachTask& task, int threads) {
  const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
  ReachRunOptions options;
  options.threads = threads;
  return RunReach(task, "", "", local.get(), options).map;
}

}  // namespace iklab
