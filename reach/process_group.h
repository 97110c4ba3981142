#ifndef IKLAB_REACH_PROCESS_GROUP_H_
#define IKLAB_REACH_PROCESS_GROUP_H_

/// @file
/// The processes that share a map: one process (LocalProcessGroup), or the
/// ranks of an MPI job (`mpirun -n K iklab reach …`, StartMpi). Rank 0
/// drives: it decides which voxels to solve, receives every result and
/// writes the files; the other ranks compute their share and send it.
///
/// MPI is a private dependency of iklab::reach: no MPI header appears in
/// the installed headers, and a program built without MPI still builds
/// (MpiBuilt() is then false and StartMpi throws).

#include <memory>
#include <vector>

namespace iklab {

/// What the map computation needs from a group of processes. Only the
/// thread that created the group calls it.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Rank 0's `bytes` to every rank (resized on the others). Collective.
  virtual void Broadcast(std::vector<unsigned char>* bytes) = 0;
  /// A rank other than 0 sends one message to rank 0.
  virtual void SendToRoot(const std::vector<unsigned char>& bytes) = 0;
  /// Rank 0: the next message from any rank, if one has arrived (false
  /// otherwise; does not block).
  virtual bool TryReceive(std::vector<unsigned char>* bytes) = 0;
  /// Stops every process of the group after a failure on this one, with
  /// `exit_code` (MPI_Abort); for one process, std::exit. Never returns.
  [[noreturn]] virtual void Abort(int exit_code) = 0;
};

/// The group of this process alone (rank 0 of 1).
std::unique_ptr<ProcessGroup> LocalProcessGroup();

/// True if iklab was built with MPI (Debian libopenmpi-dev found by CMake).
bool MpiBuilt();

/// True if this process was started by an MPI launcher (mpirun/mpiexec of
/// Open MPI, MPICH or a PMIx launcher): its environment holds the
/// launcher's rank variables. Without a launcher, `iklab reach` runs as one
/// process and never initializes MPI.
bool LaunchedByMpi();

/// Initializes MPI (MPI_Init_thread with MPI_THREAD_FUNNELED: only the
/// calling thread makes MPI calls; worker threads compute) and returns
/// MPI_COMM_WORLD as a group; its destructor calls MPI_Finalize.
/// @throws std::runtime_error if iklab was built without MPI or MPI does
///   not initialize.
std::unique_ptr<ProcessGroup> StartMpi();

}  // namespace iklab

#endif  // IKLAB_REACH_PROCESS_GROUP_H_
