// The MPI side of process_group.h, compiled only when CMake found MPI
// (IKLAB_HAVE_MPI); mpi_unavailable.cc stands in otherwise.
// Only the C interface (Open MPI and MPICH would otherwise pull in their
// deprecated C++ bindings, which need their own library).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "reach/process_group.h"

// MPI_Comm_rank and MPI_Finalize are called by their profiling-interface
// names (PMPI_*, the MPI library's own implementations): Debian's
// sequential MUMPS, which IPOPT links, exports stub C functions MPI_Init,
// MPI_Comm_rank (always rank 0), MPI_Finalize (no-op) and MPI_Wtime into
// the same program, and the dynamic linker may bind those names to the
// stubs. (Every rank then believed it was rank 0.)

namespace iklab {

namespace {

constexpr int kResultTag = 17;

void Check(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string("MPI: ") + what + " failed: " +
                             std::string(text, length));
  }
}

class Mpi final : public ProcessGroup {
 public:
  Mpi() {
    int provided = 0;
    Check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
          "MPI_Init_thread");
    // Errors come back as codes (turned into exceptions), not as aborts
    // without a word.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (provided < MPI_THREAD_FUNNELED) {
      PMPI_Finalize();
      throw std::runtime_error(
          "MPI: the library does not support MPI_THREAD_FUNNELED (worker "
          "threads next to MPI calls on the main thread)");
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~Mpi() override { PMPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void Broadcast(std::vector<unsigned char>* bytes) override {
    unsigned long long size = bytes->size();
    Check(MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD),
          "MPI_Bcast");
    bytes->resize(size);
    for (unsigned long long at = 0; at < size; at += INT_MAX) {
      const int part = static_cast<int>(std::min<unsigned long long>(
          INT_MAX, size - at));
      Check(MPI_Bcast(bytes->data() + at, part, MPI_UNSIGNED_CHAR, 0,
                      MPI_COMM_WORLD),
            "MPI_Bcast");
    }
  }

  void SendToRoot(const std::vector<unsigned char>& bytes) override {
    if (bytes.size() > INT_MAX) {
      throw std::runtime_error("MPI: a result message above 2 GB");
    }
    Check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()),
                   MPI_UNSIGNED_CHAR, 0, kResultTag, MPI_COMM_WORLD),
          "MPI_Send");
  }

  bool TryReceive(std::vector<unsigned char>* bytes) override {
    int flag = 0;
    MPI_Status status;
    Check(MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &flag,
                     &status),
          "MPI_Iprobe");
    if (!flag) return false;
    int count = 0;
    Check(MPI_Get_count(&status, MPI_UNSIGNED_CHAR, &count), "MPI_Get_count");
    bytes->resize(count);
    Check(MPI_Recv(bytes->data(), count, MPI_UNSIGNED_CHAR, status.MPI_SOURCE,
                   kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    return true;
  }

  [[noreturn]] void Abort(int exit_code) override {
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool MpiBuilt() { return true; }

std::unique_ptr<ProcessGroup> StartMpi() { return std::make_unique<Mpi>(); }

}  // namespace iklab
