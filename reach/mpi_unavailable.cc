// process_group.h without MPI (CMake did not find it): one process only.
#include <stdexcept>

#include "reach/process_group.h"

namespace iklab {

bool MpiBuilt() { return false; }

std::unique_ptr<ProcessGroup> StartMpi() {
  throw std::runtime_error(
      "this iklab was built without MPI; install libopenmpi-dev (Debian) and "
      "rebuild, or run without mpirun");
}

}  // namespace iklab
